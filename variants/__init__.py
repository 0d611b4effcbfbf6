"""The rules core: the plugin API, card primitives, chance, and the built-in variants.

Pure Python: no grpc, no protobuf, no I/O.
"""

from bezique.variants import _fast_event  # noqa: F401  (installs Event's faster constructor)
