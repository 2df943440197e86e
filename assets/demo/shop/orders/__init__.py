"""Orders: carts, pricing and the order lifecycle."""
