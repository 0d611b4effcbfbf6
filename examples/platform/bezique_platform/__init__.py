"""A small platform embedding the bezique engine: it creates tables, seats its players, lets
scripted players play, and follows the results feed into a chip ledger and a rating table kept
in a SQLite file of its own. Run ``python -m bezique_platform --help``; docs/embedding.md
walks through it.
"""
