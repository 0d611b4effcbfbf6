"""The rules core: the plugin API, card primitives, chance, and the built-in variants.

Pure Python: no grpc, no protobuf, no I/O.
"""

# installed on import: faster constructors for Event, and for Move and the view's records
from bezique.variants import _fast_event, _fast_records  # noqa: F401
