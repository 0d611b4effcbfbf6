"""Multi-pack Bezique for 2 and 3 players (``bezique-2p``, ``bezique-3p``): one trick engine.

Rules as implemented: docs/rules/bezique.md. Modules: ``lookup`` (per-shoe arrays), ``tricks``
(winners and endgame duties), ``melds`` (declarations and the class rule), ``deal`` (chance
steps), ``game`` (the state machine), ``variant`` (facts and options), ``bots``, ``plugin``.
"""
