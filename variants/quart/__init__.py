"""Built-in variant package (being written)."""
