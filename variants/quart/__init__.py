"""Quart-Bezique and trump Quart-Bezique: one betting engine (``betting``), one hand evaluator
(``evaluator``), one table state machine (``game``) and the two variants' facts (``variant``).

The rules as implemented are in docs/rules/quart-bezique.md.
"""
