"""Tests of the built-in multi-pack Bezique variants (2 and 3 players)."""
