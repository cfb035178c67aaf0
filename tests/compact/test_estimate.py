from __future__ import annotations

import math
from pathlib import Path

import pytest

from pseudoclaude.compact import BytesEstimator, ContextState, estimate_messages
from pseudoclaude.compact.estimate import MAX_BYTES_PER_TOKEN, messages_bytes
from pseudoclaude.compact.tokenizer import load_offline_encoding
from pseudoclaude.llm.messages import Message, ToolCall


def _runtime(model: str = "claude-test", **kwargs: object) -> ContextState:
    return ContextState(model=model, context_window=200_000, **kwargs)  # type: ignore[arg-type]


def test_estimate_is_utf8_bytes_over_three_and_a_half() -> None:
    messages = [Message.user("你好"), Message.assistant("ok", [ToolCall("id1", "grep", '{"q":"x"}')]), Message.tool("id1", "found")]
    expected_bytes = (4 + 6) + (9 + 2 + 3 + 4 + 9) + (4 + 3 + 5)
    assert messages_bytes(messages) == expected_bytes
    assert estimate_messages(messages) == math.ceil(expected_bytes / 3.5)


def test_estimate_of_nothing_is_zero() -> None:
    assert estimate_messages([]) == 0


def test_without_anchor_overhead_is_added() -> None:
    messages = [Message.user("x" * 350)]
    assert _runtime(overhead=1_000).estimate(messages) == 1_000 + estimate_messages(messages)


def test_anchor_counts_only_messages_after_it() -> None:
    runtime = _runtime(overhead=1_000)
    messages = [Message.user("x" * 3_500), Message.assistant("y" * 35)]
    runtime.record_usage(5_000, 1)
    assert runtime.estimate(messages) == 5_000 + estimate_messages(messages[1:])


def test_anchor_beyond_the_conversation_is_ignored() -> None:
    runtime = _runtime(anchor=(5_000, 10))
    messages = [Message.user("x" * 35)]
    assert runtime.estimate(messages) == estimate_messages(messages)


def test_calibration_moves_toward_reported_ratio_smoothly() -> None:
    estimator = BytesEstimator()
    estimator.observe(message_bytes=20_000, tokens=10_000)
    assert 2.0 < estimator.bytes_per_token < 3.5
    assert estimator.samples == 1
    assert "calibrated" in estimator.name


def test_calibration_is_bounded() -> None:
    estimator = BytesEstimator()
    for _ in range(50):
        estimator.observe(message_bytes=100_000, tokens=1)
    assert estimator.bytes_per_token <= MAX_BYTES_PER_TOKEN


def test_calibration_ignores_tiny_samples() -> None:
    estimator = BytesEstimator()
    estimator.observe(message_bytes=100, tokens=100)
    assert estimator.bytes_per_token == 3.5 and estimator.samples == 0


def test_usage_reports_calibrate_the_runtime_estimate() -> None:
    chinese = "这是一个关于上下文压缩的中文段落，用来校准估算。" * 40
    runtime = _runtime()
    sent = [Message.user("start")]
    runtime.note_sent(sent)
    runtime.record_usage(3_000, 1)
    sent = sent + [Message.assistant(chinese), Message.user(chinese)]
    true_tokens = len(chinese) * 2  # what a tokenizer might report for Chinese: ~1 token per character
    runtime.note_sent(sent)
    before = abs(runtime.estimate(sent) - (3_000 + true_tokens))
    runtime.record_usage(3_000 + true_tokens, len(sent))
    following = sent + [Message.user(chinese)]
    after = abs(runtime.estimate(following) - (3_000 + true_tokens + len(chinese)))
    assert runtime.estimator_name.startswith("bytes/") and "calibrated" in runtime.estimator_name
    assert after < before


def test_non_openai_models_use_the_byte_estimate() -> None:
    assert _runtime("claude-sonnet-4-5").estimator_name == "bytes/3.5"


def test_tiktoken_loads_offline_from_packaged_ranks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    encoding = load_offline_encoding("gpt-4o")
    assert encoding is not None and encoding.name == "o200k_base"
    assert len(encoding.encode("hello world")) == 2


def test_openai_models_count_with_tiktoken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    runtime = _runtime("gpt-4o")
    assert runtime.estimator_name == "tiktoken:o200k_base"
    assert runtime.estimate([Message.user("hello world")]) == 2 + 4


def test_missing_packaged_ranks_fall_back_to_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))
    assert load_offline_encoding("gpt-4o", data_dir=tmp_path / "empty") is None


def test_corrupt_packaged_ranks_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gzip

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "o200k_base.tiktoken.gz").write_bytes(gzip.compress(b"aGVsbG8= 0\n"))
    assert load_offline_encoding("gpt-4o", data_dir=tmp_path) is None
    assert not any((tmp_path / "cache").glob("*"))


def test_disabled_tiktoken_cache_falls_back(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
    assert load_offline_encoding("gpt-4o", data_dir=tmp_path) is None
