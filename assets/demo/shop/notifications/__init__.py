"""Customer notifications over pluggable channels (all in-memory here)."""
