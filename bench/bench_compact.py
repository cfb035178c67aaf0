"""Benchmarks for the compaction pipeline (plain script: ``python bench/bench_compact.py``).

1. ``manage_context`` cost per call when there is nothing to do, on 200 and on
   2,000 messages, in the steady state (usage anchor recorded, the runner
   passing back the conversation it was given). Target: ratio < 2.
2. Estimation error against tiktoken (o200k_base, loaded offline) on a mixed
   English / Chinese / code / JSON corpus generated here: the seed's
   bytes / 3.5 and the estimate calibrated from usage reports.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pseudoclaude.compact import BytesEstimator, ContextState, estimate_messages, manage_context  # noqa: E402
from pseudoclaude.compact.estimate import message_bytes  # noqa: E402
from pseudoclaude.compact.tokenizer import load_offline_encoding  # noqa: E402
from pseudoclaude.llm.messages import Message, ToolCall  # noqa: E402


class _NoProvider:
    name = "none"
    model = "none"

    def stream(self, request):  # type: ignore[no-untyped-def]
        raise AssertionError("nothing to do: the benchmark must not call the model")

    async def aclose(self) -> None:
        return None


def _conversation(messages: int) -> list[Message]:
    out = [Message.user("start")]
    i = 0
    while len(out) < messages:
        call = ToolCall(f"call_{i}", "read_file", json.dumps({"path": f"src/module_{i}.py"}))
        out += [Message.assistant(f"reading module {i}", [call]), Message.tool(call.id, "line\n" * 40)]
        i += 1
    return out[:messages]


def bench_manage(messages: int, calls: int = 300) -> tuple[float, float]:
    """(first call with a full scan and no anchor, mean steady-state call), in microseconds."""
    with tempfile.TemporaryDirectory():
        runtime = ContextState(model="claude-bench", context_window=10_000_000)
        provider = _NoProvider()
        conversation = _conversation(messages)
        start = time.perf_counter()
        result = asyncio.run(manage_context(conversation, runtime, provider))  # type: ignore[arg-type]
        first = time.perf_counter() - start
        runtime.record_usage(estimate_messages(result.conversation), len(result.conversation))
        loop = asyncio.new_event_loop()
        try:
            conversation = result.conversation
            start = time.perf_counter()
            for _ in range(calls):
                conversation = loop.run_until_complete(manage_context(conversation, runtime, provider)).conversation  # type: ignore[arg-type]
            steady = (time.perf_counter() - start) / calls
        finally:
            loop.close()
    return first * 1e6, steady * 1e6


def _corpus(rng: random.Random) -> dict[str, list[str]]:
    words = "the context window holds every message the model reads before it answers a request".split()
    hanzi = "上下文窗口保存模型在回答请求之前读取的每一条消息因此压缩历史需要谨慎保留最近的工具调用结果"
    english = [" ".join(rng.choice(words) for _ in range(rng.randint(80, 400))) + "." for _ in range(40)]
    chinese = ["".join(rng.choice(hanzi) for _ in range(rng.randint(80, 400))) + "。" for _ in range(40)]
    code = [
        "\n".join(
            f"def handler_{i}_{j}(request, *, timeout={j}):\n    value = request.get('key_{j}', {j})\n    return value * {i} + len(str(timeout))"
            for j in range(rng.randint(5, 25))
        )
        for i in range(40)
    ]
    data = [
        json.dumps([{"id": rng.randint(1, 10**6), "name": rng.choice(words), "tags": rng.sample(words, 3), "ok": True} for _ in range(rng.randint(5, 40))])
        for _ in range(40)
    ]
    return {"english": english, "chinese": chinese, "code": code, "json": data}


def bench_estimates() -> None:
    encoding = load_offline_encoding("gpt-4o")
    if encoding is None:
        print("estimation error: tiktoken could not load offline; skipped")
        return
    rng = random.Random(7)
    corpus = _corpus(rng)

    def true_tokens(text: str) -> int:
        return len(encoding.encode_ordinary(text)) + 4

    mixed = [text for texts in corpus.values() for text in texts]
    rng.shuffle(mixed)
    calibration, held_out = mixed[: len(mixed) // 2], mixed[len(mixed) // 2 :]
    calibrated = BytesEstimator()
    for i in range(0, len(calibration), 8):
        batch = [Message.user(t) for t in calibration[i : i + 8]]
        calibrated.observe(sum(message_bytes(m) for m in batch), sum(true_tokens(m.text) for m in batch))
    print(f"estimation error vs tiktoken:{encoding.name} (signed, + = overestimate); calibrated ratio {calibrated.bytes_per_token:.2f}")
    print(f"  {'corpus':<10}{'tokens':>9}{'bytes/3.5':>12}{'calibrated':>12}")
    for name, texts in [*corpus.items(), ("mixed", held_out)]:
        messages = [Message.user(t) for t in texts]
        truth = sum(true_tokens(t) for t in texts)
        raw = estimate_messages(messages)
        cal = calibrated.count(messages)
        print(f"  {name:<10}{truth:>9}{(raw - truth) / truth:>+12.1%}{(cal - truth) / truth:>+12.1%}")


def main() -> None:
    small_first, small = bench_manage(200)
    large_first, large = bench_manage(2_000)
    print("manage_context, nothing to do (steady state, anchored):")
    print(f"  200 messages:   {small:8.1f} us/call   (first call, full scan: {small_first:9.1f} us)")
    print(f"  2,000 messages: {large:8.1f} us/call   (first call, full scan: {large_first:9.1f} us)")
    ratio = large / small
    print(f"  ratio: {ratio:.2f} (target < 2) {'OK' if ratio < 2 else 'OVER TARGET'}")
    bench_estimates()


if __name__ == "__main__":
    main()
