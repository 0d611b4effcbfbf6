"""Generate Python code (with .pyi stubs) from proto/ into ./bezique/v1. Not committed."""

from __future__ import annotations

import sys
from pathlib import Path

from grpc_tools import protoc  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    protos = sorted(str(p.relative_to(ROOT / "proto")) for p in (ROOT / "proto").rglob("*.proto"))
    include = Path(protoc.__file__).parent / "_proto"
    code = protoc.main([
        "grpc_tools.protoc", f"-I{ROOT / 'proto'}", f"-I{include}",
        f"--python_out={ROOT}", f"--pyi_out={ROOT}", f"--grpc_python_out={ROOT}", *protos,
    ])
    for folder in (ROOT / "bezique", ROOT / "bezique" / "v1"):
        (folder / "__init__.py").touch()
    return int(code)


if __name__ == "__main__":
    sys.exit(main())
