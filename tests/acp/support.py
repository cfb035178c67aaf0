"""An ACP client for the tests: the official Python SDK's client side, recording what the agent sends.

It answers ``session/request_permission`` with the first option of the kind it
was told to pick (``allow_once``, ``reject_once``...), and keeps every
``session/update`` so a test can read the chunks, tool calls and plans an
editor would have shown.
"""

from __future__ import annotations

import asyncio
from typing import Any

from acp import RequestPermissionResponse
from acp.schema import AllowedOutcome, DeniedOutcome, PermissionOption


class RecordingClient:
    """What an editor does, minus the screen: pick a permission option, keep the updates."""

    def __init__(self, pick: str = "allow_once", *, hold: asyncio.Event | None = None) -> None:
        self.pick = pick
        self.hold = hold
        self.updates: list[Any] = []
        self.permissions: list[Any] = []
        self.asked = asyncio.Event()

    async def request_permission(self, options: list[PermissionOption], session_id: str, tool_call: Any, **kwargs: Any) -> RequestPermissionResponse:
        self.permissions.append((tool_call, options))
        self.asked.set()
        if self.hold is not None:
            await self.hold.wait()
        chosen = [option for option in options if option.kind == self.pick]
        if not chosen:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=chosen[0].option_id))

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)

    def on_connect(self, conn: Any) -> None:
        pass

    def kinds(self) -> list[str]:
        return [getattr(update, "session_update", "") for update in self.updates]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(update.content.text for update in self.updates if getattr(update, "session_update", "") == kind and hasattr(update.content, "text"))

    def of(self, kind: str) -> list[Any]:
        return [update for update in self.updates if getattr(update, "session_update", "") == kind]
