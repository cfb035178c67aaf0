"""todo_write: the model's own task list for the session.

Each call replaces the whole list (the model sends the list as it should now
be), which keeps the state trivially consistent. ``ctx.todos`` is replaced in
place, so anyone holding the list (a renderer) sees the new one. It changes no
file, hence kind ``read``; its result is the session's plan, so it is never
cleared.
"""

from __future__ import annotations

from typing import Any, Mapping

from pseudoclaude.tools.args import check_args
from pseudoclaude.tools.base import ToolContext, ToolError, ToolOutput, ToolTraits

MAX_ITEMS = 100
_MARKS = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "content": {"type": "string", "minLength": 1, "description": "Imperative and short."},
                    "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]},
                    "id": {"type": "string"},
                },
                "required": ["content", "status"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["items"],
    "additionalProperties": False,
}


class TodoWriteTool:
    name = "todo_write"
    description = "Replace the session's task list: send the whole list each time; keep one item in_progress while you work on it."
    input_schema: Mapping[str, Any] = _SCHEMA
    traits = ToolTraits(kind="read", clearable=False, claude_names=("TodoWrite",), claude_arguments=(("items", "todos"),))

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        checked = check_args(self.name, args, self.input_schema)
        raw_items: list[dict[str, Any]] = checked["items"]
        if len(raw_items) > MAX_ITEMS:
            raise ToolError(f"todo_write: at most {MAX_ITEMS} items, got {len(raw_items)}")
        items: list[dict[str, Any]] = []
        seen: set[str] = set()
        for number, raw in enumerate(raw_items, start=1):
            content = raw["content"].strip()
            if not content:
                raise ToolError(f"todo_write: items[{number - 1}].content must not be blank")
            item_id = raw.get("id") or str(number)
            if item_id in seen:
                raise ToolError(f"todo_write: duplicate id {item_id!r}; ids must be unique")
            seen.add(item_id)
            items.append({"id": item_id, "content": content, "status": raw["status"]})
        ctx.todos[:] = items
        rendered = render_todos(items)
        done = sum(item["status"] == "completed" for item in items)
        return ToolOutput(
            rendered,
            summary=f"Todos: {done}/{len(items)} completed",
            display={"todos": [dict(item) for item in items]},
        )


def render_todos(items: list[dict[str, Any]]) -> str:
    """The list as the model (and a plain renderer) reads it."""
    if not items:
        return "The todo list is now empty.\n"
    lines = [f"{_MARKS[item['status']]} {item['content']}  (id {item['id']})" for item in items]
    return "Todo list updated:\n" + "\n".join(lines) + "\n"
