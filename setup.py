"""Generates the protobuf code while building, so ``pip install .`` from a clean clone works."""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).parent


def generate_protos() -> None:
    """Run grpc_tools.protoc (from the build environment) over proto/ into ``bezique.v1``."""
    sys.path.insert(0, str(ROOT / "tools"))
    import gen_proto

    if gen_proto.main() != 0:
        raise SystemExit("protoc failed")


class BuildWithProtos(build_py):
    def run(self) -> None:
        generate_protos()
        super().run()


setup(cmdclass={"build_py": BuildWithProtos})
