"""The browser protocols (Connect, gRPC-Web) on an HTTP port: one ASGI adapter onto the
TableService servicer, run by uvicorn in the server's own event loop."""
