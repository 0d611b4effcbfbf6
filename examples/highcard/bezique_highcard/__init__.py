"""High card: a tiny trick game shipped as its own package, to show how a variant plugs in."""
