"""The Play RPC: a seat's two-way stream, over a real port (server, SDK)."""
