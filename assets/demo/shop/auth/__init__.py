"""Authentication and authorization: tokens, sessions, decorators, users."""
