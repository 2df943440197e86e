"""Optional features loaded by name at startup (see ``loader``)."""
