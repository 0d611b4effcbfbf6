"""The table as a pure decider: typed log entries (entries), the table's own state and the one
reducer over it (state.evolve), and the table's rules (decide.decide).

Pure: no I/O, no asyncio, no protobuf, no logging; the game (a variant's mutable ``Game``) is
not part of it. The server (service.live, service.commands) and the verifier
(clients/verify.py) replay with the same ``evolve``, and the clients import this package
without the server.
"""
