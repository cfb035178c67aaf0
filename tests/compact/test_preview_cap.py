"""The Layer 1 preview head: at most 2,048 bytes (the seed's cap), cut on a character boundary."""

from __future__ import annotations

from pseudoclaude.compact.preview import preview_head


def test_the_preview_head_is_capped_at_2048_bytes() -> None:
    head = preview_head("x" * 10_000)
    assert len(head.encode()) == 2_048


def test_the_cap_never_splits_a_character() -> None:
    head = preview_head("é" * 5_000)
    assert len(head.encode()) == 2_048 and head == "é" * 1_024
    assert len(preview_head("€" * 5_000).encode()) == 2_046
