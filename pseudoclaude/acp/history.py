"""A saved session replayed to the editor (``session/load``), and an editor's prompt read into ours.

ACP's ``session/load`` asks the agent to stream the whole conversation back
as ``session/update`` notifications before it answers, so the editor can
show it: the user's messages, the answers and reasoning, each tool call with
its result. What is replayed is the transcript the REPL's recap shows (the
conversation without a compaction's scaffolding).
"""

from __future__ import annotations

from typing import Any, Sequence

from acp import helpers

from pseudoclaude.acp.mapping import PLAN_TOOLS, EventMapper, Update, plan_update
from pseudoclaude.llm import Image, Message


def replayed(messages: Sequence[Message], mapper: EventMapper) -> list[Update]:
    """The notifications that show ``messages`` as they were seen."""
    updates: list[Update] = []
    calls: dict[str, Any] = {}
    for message in messages:
        if message.role == "user" and message.text:
            updates.append(helpers.update_user_message_text(message.text))
        elif message.role == "assistant":
            updates.extend(helpers.update_agent_thought_text(part.text) for part in message.thinking if part.text)
            if message.text:
                updates.append(helpers.update_agent_message_text(message.text))
            for call in message.tool_calls:
                try:
                    arguments = call.parsed_arguments()
                except ValueError:
                    arguments = {}
                calls[call.id] = (call.name, arguments)
                if call.name in PLAN_TOOLS:
                    plan = plan_update(arguments)
                    updates.extend([plan] if plan is not None else [])
                else:
                    updates.append(mapper.view(call.id, call.name, arguments).start())
        elif message.role == "tool" and message.tool_result is not None:
            result = message.tool_result
            if calls.get(result.call_id, ("", {}))[0] in PLAN_TOOLS:
                continue
            content = [helpers.tool_content(helpers.text_block(result.content))] if result.content else None
            updates.append(helpers.update_tool_call(result.call_id, status="failed" if result.is_error else "completed", content=content))
    return updates


def prompt_parts(blocks: Sequence[Any]) -> tuple[str, tuple[Image, ...]]:
    """An ACP prompt as our prompt text and images.

    Text blocks are the text; a linked file is ``@path`` (as typed in the
    REPL); an embedded resource (the editor's selection or file) is appended
    as a ``<context>`` block naming its URI, as Zed's Claude adapter does; an
    image block becomes an attached image, fitted like a pasted one.
    """
    texts: list[str] = []
    context: list[str] = []
    images: list[Image] = []
    for block in blocks:
        kind = getattr(block, "type", "")
        if kind == "text":
            texts.append(block.text)
        elif kind == "resource_link":
            texts.append(f"@{_path_of(block.uri)}")
        elif kind == "resource":
            resource = block.resource
            if hasattr(resource, "text"):
                texts.append(f"@{_path_of(resource.uri)}")
                context.append(f'<context ref="{resource.uri}">\n{resource.text}\n</context>')
        elif kind == "image" and block.data:
            images.append(_image(block.data, len(images) + 1))
    return "\n".join([" ".join(texts), *context]).strip(), tuple(images)


def _image(data: str, number: int) -> Image:
    """A base64 image block, decoded and fitted to the providers' limits; ``ValueError`` names what is wrong."""
    import base64
    import binascii

    from pseudoclaude.imaging import ImageError, fit_image

    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as error:
        raise ValueError(f"image {number}: its data is not valid base64 ({error})") from None
    try:
        return fit_image(raw, f"image {number}")
    except ImageError as error:
        raise ValueError(str(error)) from None


def _path_of(uri: str) -> str:
    return uri.removeprefix("file://")
