"""Permission questions answered by the editor: our ``Approver`` over ACP's ``session/request_permission``.

The policy decides what needs asking, exactly as in the REPL (rules, modes,
protected paths, the sandbox); only the question travels. Each kind of
question has the REPL's choices as ACP options: a call is allowed once,
always (the rule the REPL would save, for this session) or rejected; leaving
plan mode is "yes, and accept edits" (always), "yes, and ask for each edit"
(once) or "keep planning"; a command the sandbox blocked may run outside it
once or always. An editor that cancels the question, or a connection that
fails, denies the call: nothing runs without a yes.
"""

from __future__ import annotations

from typing import Any, Protocol

from acp import helpers
from acp.schema import PermissionOption, RequestPermissionResponse, ToolCallUpdate

from pseudoclaude.acp.mapping import CallView, EventMapper
from pseudoclaude.tools.permissions import ApprovalAnswer, ApprovalRequest


class PermissionClient(Protocol):
    """What the approver needs of the connection to the editor (the SDK's ``Client`` has it)."""

    async def request_permission(
        self, options: list[PermissionOption], session_id: str, tool_call: ToolCallUpdate, **kwargs: Any
    ) -> RequestPermissionResponse: ...


_CHOICES: dict[str, tuple[tuple[str, str, str], ...]] = {
    "call": (("once", "allow_once", "Allow"), ("always", "allow_always", "Always allow {rule}"), ("deny", "reject_once", "Reject")),
    "plan": (
        ("always", "allow_always", "Yes, and accept edits"),
        ("once", "allow_once", "Yes, and ask before each edit"),
        ("deny", "reject_once", "No, keep planning"),
    ),
    "sandbox": (
        ("once", "allow_once", "Run it outside the sandbox once"),
        ("always", "allow_always", "Always run {rule} outside the sandbox"),
        ("deny", "reject_once", "Reject"),
    ),
}


class AcpApprover:
    """Asks the editor about one session's calls; ``session_id`` is set once the session exists."""

    def __init__(self, client: PermissionClient, mapper: EventMapper, session_id: str = "") -> None:
        self.client = client
        self.mapper = mapper
        self.session_id = session_id

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        if request.kind == "question":  # a question answered in words: ACP's permission request has no text field
            return ApprovalAnswer("deny", "the editor cannot answer questions in words")
        view = await self.mapper.started_call(request.tool, request.args)
        if view is None:
            view = self.mapper.view(f"ask-{id(request):x}", request.tool, request.args)
        options = permission_options(request)
        try:
            reply = await self.client.request_permission(options=options, session_id=self.session_id, tool_call=_question(view, request))
        except Exception as error:  # a broken connection must deny, never allow or hang the run
            return ApprovalAnswer("deny", f"the editor could not be asked: {error}")
        outcome = reply.outcome
        if getattr(outcome, "outcome", "") != "selected":
            return ApprovalAnswer("deny", "the question was cancelled in the editor")
        choice = str(getattr(outcome, "option_id", ""))
        if choice not in ("once", "always"):
            return ApprovalAnswer("deny", "the user rejected this call in the editor" if request.kind != "plan" else "the user wants to keep planning")
        return ApprovalAnswer("once" if choice == "once" else "always")


def permission_options(request: ApprovalRequest) -> list[PermissionOption]:
    """The REPL's choices for this question; "always" only where there is a rule to save (or plan mode to leave)."""
    rule = str(request.suggested_rule) if request.suggested_rule is not None else ""
    options = []
    for choice, kind, name in _CHOICES.get(request.kind, _CHOICES["call"]):
        if choice == "always" and request.kind != "plan" and not rule:
            continue
        options.append(PermissionOption(option_id=choice, name=name.format(rule=rule), kind=kind))  # type: ignore[arg-type]
    return options


def _question(view: CallView, request: ApprovalRequest) -> ToolCallUpdate:
    """The call the question is about: its id (the ``tool_call`` the editor already shows), title, diff, files."""
    start = view.start()
    content = list(start.content or [])
    detail = request.reason or (request.summary if request.kind != "call" else "")
    if detail:
        content.append(helpers.tool_content(helpers.text_block(detail)))
    return ToolCallUpdate(
        tool_call_id=view.call_id,
        title=view.title,
        kind=start.kind,
        status="pending",
        content=content or None,
        locations=start.locations,
        raw_input=dict(request.args),
    )
