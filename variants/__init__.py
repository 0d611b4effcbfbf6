"""The rules core: the plugin API, card primitives, chance, and the built-in variants.

Pure Python: no grpc, no protobuf, no I/O.
"""
