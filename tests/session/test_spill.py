from __future__ import annotations

import stat
from pathlib import Path

from pseudoclaude.session import safe_spill_name, write_spill


def test_names_are_readable_and_safe() -> None:
    name = safe_spill_name("../../etc/passwd")
    assert "/" not in name and not name.startswith(".")
    assert name.endswith(".txt")
    assert safe_spill_name("toolu_01ABC").startswith("toolu_01ABC-")


def test_ids_that_sanitize_alike_get_different_files(tmp_path: Path) -> None:
    first = write_spill(tmp_path, "call/1", "first")
    second = write_spill(tmp_path, "call_1", "second")
    assert first != second
    assert (first.read_text(), second.read_text()) == ("first", "second")


def test_same_content_is_reused_and_different_content_never_overwrites(tmp_path: Path) -> None:
    original = write_spill(tmp_path, "c1", "same")
    assert write_spill(tmp_path, "c1", "same") == original
    changed = write_spill(tmp_path, "c1", "different")
    assert changed != original
    assert (original.read_text(), changed.read_text()) == ("same", "different")


def test_spill_files_are_private(tmp_path: Path) -> None:
    assert stat.S_IMODE(write_spill(tmp_path, "c1", "secret").stat().st_mode) == 0o600
