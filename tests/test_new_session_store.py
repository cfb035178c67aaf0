"""The session-store recipe (docs/ARCHITECTURE.md): a class satisfying ``AgentSession`` and a ``SessionStore`` that
creates and opens it, handed to ``build_agent``.

The store here keeps its sessions in a dict and builds its own ``session.Replay``;
nothing else is changed. A real agent runs a prompt against the fake Anthropic
server, every entry is recorded through this store (the JSONL store writes no
session folder), and a resume, by id or ``--continue``, sends the model the
conversation this store replays.
"""

from __future__ import annotations

import asyncio
from contextlib import aclosing
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from pseudoclaude.agent import Agent, AgentSession, Stop, build_agent
from pseudoclaude.config import Flags, Settings, load_settings
from pseudoclaude.llm import Image, Message, Usage, provider_entry
from pseudoclaude.redaction import Redactor
from pseudoclaude.session import ReadStamp, Replay, SessionMeta, SessionNotFound, WriteFailure, write_spill
from tests.e2e.support import KEYS, fake_server
from tests.fakes.script import Reply

MODEL = provider_entry("anthropic").default_model


class DictSession:
    """One session kept in memory: what was recorded, in order, as ``(kind, value)``."""

    def __init__(self, session_id: str, folder: Path, entries: list[tuple[str, Any]]) -> None:
        self.id = session_id
        self.spill_dir = folder / "spill"
        self.jsonl_path = folder / "session.jsonl"  # never written: recall and the hooks' transcript find nothing
        self.write_failure: WriteFailure | None = None
        self.closed = False
        self.entries = entries

    def _add(self, kind: str, value: Any) -> None:
        assert not self.closed, "recorded after close"
        self.entries.append((kind, value))

    def recorded(self, kind: str) -> list[Any]:
        return [value for k, value in self.entries if k == kind]

    def append_message(self, message: Message) -> None:
        self._add("message", message)

    def append_usage(self, usage: Usage, *, context_messages: int, model: str = "") -> None:
        self._add("usage", usage)

    def append_error(self, kind: str, message: str) -> None:
        self._add("error", (kind, message))

    def append_interrupt(self, reason: str = "user") -> None:
        self._add("interrupt", reason)

    def sync(self) -> None:
        self._add("sync", None)

    def write_spill(self, call_id: str, content: str) -> Path:
        self.spill_dir.mkdir(parents=True, exist_ok=True)
        return write_spill(self.spill_dir, call_id, content)

    def append_replacement(self, call_id: str, preview: str, **decision: Any) -> None:
        self._add("replacement", (call_id, preview))

    def keep_image(self, image: Image) -> Path:
        raise OSError("this store keeps no images")

    def append_compaction(self, *, summary: str, messages: Any, trigger: str, before_tokens: int, after_tokens: int) -> None:
        self._add("compaction", (summary, tuple(messages)))

    def append_window(self, context_window: int) -> None:
        self._add("window", context_window)

    def append_calibration(self, bytes_per_token: float, samples: int) -> None:
        self._add("calibration", (bytes_per_token, samples))

    @property
    def title(self) -> str:
        titles = self.recorded("title")
        return str(titles[-1]) if titles else ""

    def set_title(self, title: str) -> None:
        self._add("title", title)

    def append_memory(self, snapshot: str) -> None:
        self._add("memory", snapshot)

    def append_model(self, model: str, provider: str = "") -> None:
        self._add("model", model)

    def append_effort(self, effort: str | None) -> None:
        self._add("effort", effort)

    def append_mode(self, mode: str) -> None:
        self._add("mode", mode)

    def append_file_stamp(self, stamp: ReadStamp) -> None:
        self._add("file_stamp", stamp)

    def close(self) -> None:
        self.closed = True


class DictStore:
    """A ``SessionStore`` over a dict of sessions by id; a session's files go under ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.sessions: dict[str, list[tuple[str, Any]]] = {}
        self.opened: list[DictSession] = []

    def create(self, settings: Settings, *, session_id: str | None = None, redactor: Redactor | None = None) -> AgentSession:
        session_id = session_id or f"dict-{len(self.sessions) + 1}"
        return self._session(session_id, self.sessions.setdefault(session_id, [("meta", settings.model)]))

    def open(
        self, settings: Settings, session_id: str | None, *, fork: bool = False, new_id: str | None = None, redactor: Redactor | None = None
    ) -> tuple[AgentSession, Replay]:
        if session_id is None and self.sessions:
            session_id = list(self.sessions)[-1]
        if session_id not in self.sessions:
            raise SessionNotFound(f"no session {session_id or 'to continue'} in this store")
        session = self._session(session_id, self.sessions[session_id])
        return session, self.replay(session, settings)

    def _session(self, session_id: str, entries: list[tuple[str, Any]]) -> DictSession:
        session = DictSession(session_id, self.folder / session_id, entries)
        self.opened.append(session)
        return session

    @staticmethod
    def replay(session: DictSession, settings: Settings) -> Replay:
        messages = tuple(session.recorded("message"))
        usage = sum(session.recorded("usage"), Usage())
        (model,) = session.recorded("meta")
        meta = SessionMeta(session.id, str(settings.workspace), model, "anthropic", datetime.now(timezone.utc), "test", title=session.title)
        snapshots = session.recorded("memory")
        return Replay(meta, messages, messages, {}, None, usage, 0, (), memory_snapshot=snapshots[0] if snapshots else None)


def settings_for(tmp_path: Path, url: str) -> Settings:
    env = {"ANTHROPIC_API_KEY": KEYS["anthropic"], "ANTHROPIC_BASE_URL": url, "PSEUDOCLAUDE_HOME": str(tmp_path / "home")}
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    return load_settings(workspace, Flags(model=MODEL), environ=env)


def run(agent: Agent, prompt: str) -> Stop:
    async def go() -> Stop:
        try:
            async with aclosing(agent.run(prompt)) as events:
                last = [event async for event in events][-1]
        finally:
            await agent.aclose()
        assert isinstance(last, Stop)
        return last

    return asyncio.run(go())


def request_texts(request: dict[str, Any]) -> list[str]:
    return [block["text"] for m in request["messages"] for block in m["content"] if isinstance(block, dict) and block.get("type") == "text"]


def test_a_prompt_is_recorded_through_the_new_store_and_the_jsonl_store_writes_nothing(tmp_path: Path) -> None:
    store = DictStore(tmp_path / "dict")
    with fake_server("anthropic", [Reply(text="Parsers live in src/parse.", input_tokens=900, output_tokens=9)]) as server:
        settings = settings_for(tmp_path, server.url)
        stop = run(build_agent(settings, store=store), "Where are the parsers?")
        assert server.rejections == []
    (session,) = store.opened
    assert stop.final_text == "Parsers live in src/parse." and session.closed
    assert [(m.role, m.text) for m in session.recorded("message")] == [("user", "Where are the parsers?"), ("assistant", stop.final_text)]
    assert session.recorded("usage") == [Usage(input_tokens=900, output_tokens=9)]
    assert session.title == "Where are the parsers?" and session.recorded("memory") != []
    assert session.recorded("sync")  # the runner's end of turn reached the store
    assert not settings.sessions_dir.exists()


@pytest.mark.parametrize("by", ["id", "continue"])
def test_a_resume_sends_the_conversation_the_new_store_replays(tmp_path: Path, by: str) -> None:
    store = DictStore(tmp_path / "dict")
    with fake_server("anthropic", [Reply(text="It is 42."), Reply(text="Still 42.")]) as server:
        settings = settings_for(tmp_path, server.url)
        run(build_agent(settings, store=store), "What is the answer?")
        first = store.opened[0]
        resumed = build_agent(settings, store=store, **({"resume_id": first.id} if by == "id" else {"continue_latest": True}))
        assert resumed.facts.session_id == first.id
        run(resumed, "Are you sure?")
        assert server.rejections == []
        second = server.requests[1]
    replayed = [m.text for m in DictStore.replay(first, settings).conversation]
    assert replayed == ["What is the answer?", "It is 42.", "Are you sure?", "Still 42."]
    assert [t for t in request_texts(second) if t in replayed] == replayed[:3]
    assert not settings.sessions_dir.exists()


def test_a_session_the_store_does_not_have_is_not_found(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, "http://127.0.0.1:9")
    with pytest.raises(SessionNotFound):
        build_agent(settings, store=DictStore(tmp_path / "dict"), continue_latest=True)
