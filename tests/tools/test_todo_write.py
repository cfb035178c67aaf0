"""todo_write: validation, replacement of ctx.todos, rendering."""

from __future__ import annotations

import pytest

from pseudoclaude.tools import ToolContext, ToolError
from pseudoclaude.tools.todo_write import TodoWriteTool

from .conftest import Call

todo = TodoWriteTool()


def test_items_replace_the_list_and_render(call: Call, ctx: ToolContext) -> None:
    kept = ctx.todos
    out = call(
        todo,
        items=[
            {"content": "write tests", "status": "completed"},
            {"content": "fix bug", "status": "in_progress", "id": "bug"},
            {"content": "ship", "status": "pending"},
        ],
    )
    assert out.content == "Todo list updated:\n[x] write tests  (id 1)\n[~] fix bug  (id bug)\n[ ] ship  (id 3)\n"
    assert kept is ctx.todos
    assert ctx.todos[1] == {"id": "bug", "content": "fix bug", "status": "in_progress"}
    call(todo, items=[{"content": "only", "status": "pending"}])
    assert [item["content"] for item in ctx.todos] == ["only"]


def test_bad_status_is_refused(call: Call) -> None:
    with pytest.raises(ToolError, match=r"'items\[0\]\.status' must be one of"):
        call(todo, items=[{"content": "x", "status": "done"}])


def test_missing_content_is_refused(call: Call) -> None:
    with pytest.raises(ToolError, match="missing required field.*'content'"):
        call(todo, items=[{"status": "pending"}])


def test_unknown_item_field_is_refused(call: Call) -> None:
    with pytest.raises(ToolError, match="unknown field"):
        call(todo, items=[{"content": "x", "status": "pending", "priority": "high"}])


def test_duplicate_ids_are_refused(call: Call) -> None:
    with pytest.raises(ToolError, match="duplicate id"):
        call(todo, items=[{"content": "a", "status": "pending", "id": "1"}, {"content": "b", "status": "pending", "id": "1"}])


def test_items_must_be_a_list(call: Call) -> None:
    with pytest.raises(ToolError, match="'items' must be an array"):
        call(todo, items="do things")


def test_empty_list_clears(call: Call, ctx: ToolContext) -> None:
    call(todo, items=[{"content": "a", "status": "pending"}])
    assert "empty" in call(todo, items=[]).content
    assert ctx.todos == []
