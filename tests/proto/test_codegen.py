"""Code for other languages comes out of proto/ with no extra flags: protoc's Java and C#
generators and protoc-gen-go / protoc-gen-go-grpc (Debian's packages protobuf-compiler,
libprotobuf-dev, protoc-gen-go, protoc-gen-go-grpc; .ci/run installs them, and Debian's Go
toolchain and gRPC packages to build a Go client). Without the file's language options Go
generation stops with "unable to determine Go import path"."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.helpers import spawn_server
from tests.npm import tool

ROOT = Path(__file__).resolve().parents[2]
PROTO = "bezique/v1/table_service.proto"


def program(name: str) -> str:
    return tool(name, "protoc, libprotobuf-dev, protoc-gen-go, protoc-gen-go-grpc and Go")


def generate(out: Path, *flags: str) -> None:
    out.mkdir(parents=True)
    program("protoc-gen-go")
    program("protoc-gen-go-grpc")
    result = subprocess.run([program("protoc"), "-I", str(ROOT / "proto"), *flags, PROTO],
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr


def test_go_code_and_its_grpc_service(tmp_path: Path) -> None:
    out = tmp_path / "go"
    generate(out, f"--go_out={out}", f"--go-grpc_out={out}")
    folder = out / "bezique.dev" / "gen" / "go" / "bezique" / "v1"
    messages = (folder / "table_service.pb.go").read_text()
    service = (folder / "table_service_grpc.pb.go").read_text()
    assert "package beziquev1" in messages and "package beziquev1" in service
    assert "type SubmitMoveRequest struct" in messages
    assert "ErrorReason_ERROR_REASON_STALE_VERSION ErrorReason = 10" in messages
    assert "type TableServiceClient interface" in service
    assert "WatchTable(ctx context.Context, in *WatchTableRequest" in service


def test_java_code_one_class_a_file(tmp_path: Path) -> None:
    out = tmp_path / "java"
    generate(out, f"--java_out={out}")
    folder = out / "dev" / "bezique" / "v1"
    names = {path.name for path in folder.glob("*.java")}
    assert {"TableServiceProto.java", "SubmitMoveRequest.java", "ErrorReason.java",
            "View.java"} <= names
    assert (folder / "View.java").read_text().count("package dev.bezique.v1;") == 1


def test_csharp_code_in_its_namespace(tmp_path: Path) -> None:
    out = tmp_path / "csharp"
    generate(out, f"--csharp_out={out}")
    code = (out / "TableService.cs").read_text()
    assert "namespace Bezique.V1 {" in code
    assert "public sealed partial class SubmitMoveRequest" in code
    assert "public enum ErrorReason" in code


def test_the_proto_without_its_go_package_cannot_make_go(tmp_path: Path) -> None:
    """The failure the options fix: shown so that this test could fail without them."""
    copy = tmp_path / "proto"
    shutil.copytree(ROOT / "proto", copy)
    source = copy / PROTO
    source.write_text("\n".join(line for line in source.read_text().splitlines()
                                if not line.startswith("option go_package")))
    out = tmp_path / "go"
    out.mkdir()
    result = subprocess.run([program("protoc"), "-I", str(copy), f"--go_out={out}", PROTO],
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode != 0 and "unable to determine Go import path" in result.stderr


def test_a_go_client_built_from_the_generated_code_calls_the_server(tmp_path: Path) -> None:
    """Debian's Go toolchain and gRPC, GOPATH mode: the generated package compiles, and
    tests/proto/go_client calls a real server, switching on ErrorReason."""
    gopath = tmp_path / "gopath"
    generate(gopath / "src", f"--go_out={gopath / 'src'}", f"--go-grpc_out={gopath / 'src'}")
    shutil.copytree(Path(__file__).parent / "go_client", gopath / "src" / "beziquecheck")
    env = {**os.environ, "GO111MODULE": "off", "GOFLAGS": "",
           "GOPATH": f"{gopath}{os.pathsep}/usr/share/gocode"}
    built = subprocess.run([program("go"), "build", "-o", str(tmp_path / "check"),
                            "beziquecheck"], cwd=gopath, env=env, capture_output=True,
                           text=True, timeout=600, check=False)
    assert built.returncode == 0, built.stderr
    server = spawn_server("--store", "memory:")
    try:
        ran = subprocess.run([str(tmp_path / "check"), server.address], capture_output=True,
                             text=True, timeout=60, check=False)
    finally:
        server.terminate()
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    assert "variant bezique-2p" in lines and "variant quart-bezique" in lines
    assert "error NotFound ERROR_REASON_NOT_FOUND" in lines
