"""`buf lint` (STANDARD + COMMENTS) and `buf breaking` (FILE rules, against the committed
baseline image) hold for proto/, and fail where they should: a renumbered field is a breaking
change, an undocumented field a lint error."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.npm import ROOT, node_modules

BASELINE = ROOT / "proto" / "baseline" / "bezique.v1.binpb"
PROTO = Path("proto") / "bezique" / "v1" / "table_service.proto"


@pytest.fixture(scope="module")
def buf() -> str:
    return str(node_modules() / "buf")


def run(buf: str, cwd: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([buf, *arguments], cwd=cwd, capture_output=True, text=True,
                          timeout=120, check=False)


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """proto/ and buf.yaml copied to a temporary folder, to be changed there."""
    shutil.copytree(ROOT / "proto", tmp_path / "proto")
    shutil.copy(ROOT / "buf.yaml", tmp_path / "buf.yaml")
    return tmp_path


def edit(root: Path, old: str, new: str) -> None:
    path = root / PROTO
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))


def test_the_proto_passes_buf_lint_and_buf_breaking(buf: str) -> None:
    assert "buf" in (ROOT / "Makefile").read_text()
    linted = run(buf, ROOT, "lint")
    assert linted.returncode == 0, linted.stdout + linted.stderr
    checked = run(buf, ROOT, "breaking", "--against", str(BASELINE))
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_renumbered_field_fails_buf_breaking(buf: str, copy: Path) -> None:
    edit(copy, "int64 expected_version = 3;", "int64 expected_version = 5;")
    assert run(buf, copy, "lint").returncode == 0  # still well-formed and documented
    checked = run(buf, copy, "breaking", "--against", str(BASELINE))
    assert checked.returncode != 0
    assert ('field "3" with name "expected_version" on message "SubmitMoveRequest" was '
            'deleted') in checked.stdout, checked.stdout


def test_a_renamed_field_and_a_removed_enum_value_fail_buf_breaking(
        buf: str, copy: Path) -> None:
    edit(copy, "string request_id = 4;", "string idempotency_key = 4;")
    edit(copy, "  ERROR_REASON_SEAT_CHURN = 24;\n", "  reserved 24;\n")
    checked = run(buf, copy, "breaking", "--against", str(BASELINE))
    assert checked.returncode != 0
    assert 'changed name from "request_id"' in checked.stdout, checked.stdout
    assert 'enum value "24" on enum "ErrorReason" was deleted' in checked.stdout, checked.stdout


def test_an_added_field_is_not_breaking(buf: str, copy: Path) -> None:
    edit(copy, "  bool duplicate = 4;\n",
         "  bool duplicate = 4;\n  // When the move was applied.\n"
         "  google.protobuf.Timestamp applied_at = 5;\n")
    checked = run(buf, copy, "breaking", "--against", str(BASELINE))
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_an_undocumented_field_fails_buf_lint(buf: str, copy: Path) -> None:
    edit(copy, "  // True when request_id had been seen: nothing was applied this time.\n", "")
    linted = run(buf, copy, "lint")
    assert linted.returncode != 0
    assert 'Field "duplicate" should have a non-empty comment' in linted.stdout, linted.stdout
