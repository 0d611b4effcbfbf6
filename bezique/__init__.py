"""The bezique card-table engine: every importable name lives under this one package.

``bezique.service`` (the gRPC server), ``bezique.variants`` (the pure rules core and the plugin
API), ``bezique.clients`` (SDK, CLI, terminal game, verifier) and the generated ``bezique.v1``.
In the repository the first three are the top-level folders ``service/``, ``variants/`` and
``clients/``; the entries here are links to them, and a built wheel holds real copies.
"""
