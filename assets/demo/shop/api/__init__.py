"""HTTP-like API: request/response objects, handlers and a route table."""
