"""What a hook prints reaches the model and the user with the session's secrets masked."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pseudoclaude.agent.hooks.config import HookConfig
from pseudoclaude.agent.hooks import SessionHooks
from pseudoclaude.redaction import Redactor

KEY = "sk-ant-test-secret-123"


def hooks(tmp_path: Path, command: str) -> SessionHooks:
    layer = {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": command}]}]}}
    return SessionHooks(HookConfig.from_settings(layer), workspace=tmp_path, session_id="s-1", redactor=Redactor.of([KEY]))


def test_a_hooks_context_reaches_the_model_with_the_key_masked(tmp_path: Path) -> None:
    (tmp_path / "key.txt").write_text(KEY)
    submitted = asyncio.run(hooks(tmp_path, "echo context; cat key.txt").submit("hello"))
    assert submitted.text is not None and "context" in submitted.text and "***" in submitted.text and KEY not in submitted.text


def test_a_hooks_block_reason_reaches_the_user_with_the_key_masked(tmp_path: Path) -> None:
    (tmp_path / "key.txt").write_text(KEY)
    submitted = asyncio.run(hooks(tmp_path, "cat key.txt >&2; exit 2").submit("hello"))
    assert submitted.text is None and submitted.reason.endswith("***") and KEY not in repr(submitted.events)


class RecordingAsker:
    def __init__(self) -> None:
        self.prompts: list[str] = []

    async def ask(self, system: str, prompt: str, model: str | None) -> str:
        self.prompts.append(prompt)
        return '{"ok": true}'


def test_a_prompt_hooks_question_reaches_the_model_with_the_key_masked(tmp_path: Path) -> None:
    asker = RecordingAsker()
    layer = {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "prompt", "prompt": "Is this prompt safe? $ARGUMENTS"}]}]}}
    session = SessionHooks(HookConfig.from_settings(layer), workspace=tmp_path, session_id="s-1", redactor=Redactor.of([KEY]), asker=asker)
    submitted = asyncio.run(session.submit(f"my key is {KEY}"))
    assert submitted.text is not None
    (asked,) = asker.prompts
    assert asked.startswith("Is this prompt safe? {") and "***" in asked and KEY not in asked
