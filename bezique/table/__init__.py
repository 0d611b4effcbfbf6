"""What a table's log means: typed log entries (entries) and the table's own state with the one
reducer over it (state.evolve). The table's rules, which decide what may be appended, are the
server's (service/decide.py).

Pure: no I/O, no asyncio, no protobuf, no logging; the game (a variant's mutable ``Game``) is
not part of it. The server (service.live, service.commands) and the verifier
(clients/verify.py) replay with the same ``evolve``; it lives outside the server package so
that the clients import it without the server.
"""
