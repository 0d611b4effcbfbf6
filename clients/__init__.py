"""Python SDK and the bezique CLI."""
