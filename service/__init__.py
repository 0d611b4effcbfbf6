"""The gRPC server."""
