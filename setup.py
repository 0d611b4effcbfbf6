"""Generates the protobuf code before setuptools looks for packages, so that ``pip install .``
from a clean clone installs ``bezique.v1`` (the generated code is never committed)."""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).parent


def generate_protos() -> None:
    """Run grpc_tools.protoc (from the build environment) over proto/ into ``bezique.v1``."""
    sys.path.insert(0, str(ROOT / "tools"))
    import gen_proto

    if gen_proto.main() != 0:
        raise SystemExit("protoc failed")


generate_protos()
setup()
