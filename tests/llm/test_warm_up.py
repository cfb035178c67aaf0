"""The warm-up thread imports the provider SDK while the run starts; the first request waits for it without holding
the event loop, so a signal or a cancellation is served at once even while the import still runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = """
import asyncio, dataclasses, sys
from pathlib import Path
from pseudoclaude.llm import providers, warmup

gate = Path(sys.argv[1])
entry = dataclasses.replace(providers.provider_entry("anthropic"), sdk_module="gated_sdk")
warmup.start_warm_up("anthropic", [entry])

async def main() -> None:
    waiting = asyncio.ensure_future(warmup.sdk_ready())
    await asyncio.sleep(0.05)
    waiting.cancel()
    try:
        await waiting
    except asyncio.CancelledError:
        print("cancelled while importing:", warmup.warm_up_running(), flush=True)
    gate.write_text("open")

asyncio.run(main())
"""

GATED_SDK = """
import time
from pathlib import Path
while not Path(GATE).exists():
    time.sleep(0.01)
"""


def test_a_cancelled_wait_for_the_sdk_returns_while_the_warm_up_still_imports(tmp_path: Path) -> None:
    """The import here ends only after the waiter was cancelled: a wait that blocked the loop would never return."""
    gate = tmp_path / "gate"
    (tmp_path / "gated_sdk.py").write_text(f"GATE = {str(gate)!r}\n" + GATED_SDK)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(gate)], capture_output=True, text=True, timeout=20, env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"}
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "cancelled while importing: True\n"
