"""The status toolbar: the permission mode and the sandbox on their own coloured line, then model, context meter, tokens, cost, session.

It renders an ``AgentStatus`` (``pseudoclaude.agent.facade``), a snapshot taken
at turn boundaries: estimating the context costs a tokenizer pass, so the
toolbar never computes it on a redraw. Before an agent exists the snapshot
comes from the settings alone.

The mode and the sandbox are safety signals, so they are never dropped: they
share a line of their own, the mode coloured per mode, the sandbox dim when it
confines commands and in the warning colour when commands run unconfined
(``no sandbox``); when narrow, the mode's hints go first, then the sandbox's
kind and network. The info line is fitted to the terminal's width by dropping
the least useful fields first (the session id, then the tokens, then the cost);
the model and the context meter always stay.
"""

from __future__ import annotations

from pseudoclaude.agent import AgentStatus
from pseudoclaude.config import Settings
from pseudoclaude.sandbox import SandboxStatus

MODE_STYLES = {"default": "ansiblue", "accept-edits": "ansimagenta", "plan": "ansicyan", "bypass": "ansired"}
MODE_HINTS = {
    "default": "asks before edits and commands",
    "accept-edits": "edits files without asking",
    "plan": "read-only until the plan is approved",
    "bypass": "asks nothing",
}
CYCLE_HINT = " (shift+tab to cycle)"
NETWORK_LABELS = {"off": "network off", "allowed": "allowed domains only", "all": "network on"}
CONFINED_STYLE, UNCONFINED_STYLE = "ansigreen", "bold ansiyellow"
Fragments = list[tuple[str, str]]


def confined(sandbox: SandboxStatus | None) -> bool:
    """True when commands run inside a sandbox that is up (not None, available, not ``off``)."""
    return sandbox is not None and sandbox.available and sandbox.mode != "off" and sandbox.kind != "none"


def sandbox_label(sandbox: SandboxStatus | None, *, short: bool = False) -> str:
    """``sandbox: bubblewrap · workspace-write · network off``; ``short``: ``sandbox: workspace-write``; else ``no sandbox``."""
    if not confined(sandbox):
        return "no sandbox"
    assert sandbox is not None
    if short:
        return f"sandbox: {sandbox.mode}"
    return f"sandbox: {sandbox.kind} · {sandbox.mode} · {NETWORK_LABELS.get(sandbox.network, 'network ' + sandbox.network)}"


def format_status(info: AgentStatus, width: int | None = None) -> str:
    """The info line (everything but the mode), fitted to ``width`` columns when given."""
    from pseudoclaude.tui.render import compact_number

    model = info.model + (f" · effort {info.effort}" if info.effort else "")
    fields = [
        (model, 9),
        (
            f"ctx {info.context_percent}% (compacts at {info.threshold_percent}%)"
            + (f" of {compact_number(info.context_window)} from {info.window_source}" if info.window_source not in ("", "model table", "default") else ""),
            9,
        ),
        (f"↑ {compact_number(info.tokens_in)} ↓ {compact_number(info.tokens_out)}", 2),
        (f"${info.cost_usd:.3f}" if info.cost_usd is not None else "cost unknown", 3),
        (info.session_id or "new session", 1),
    ]
    while width is not None and len(" · ".join(text for text, _ in fields)) > width and min(rank for _, rank in fields) < 9:
        fields.remove(min(fields, key=lambda field: field[1]))
    line = " · ".join(text for text, _ in fields)
    return line if width is None or len(line) <= width else line[: max(0, width - 1)] + "…"


def mode_line(mode: str, width: int | None = None) -> str:
    """``⏵⏵ accept-edits mode · edits files without asking (shift+tab to cycle)``, the hints dropped first when narrow."""
    head = f"⏵⏵ {mode} mode"
    for line in (f"{head} · {MODE_HINTS.get(mode, '')}{CYCLE_HINT}", head + CYCLE_HINT, head):
        if width is None or len(line) <= width:
            return line
    return head


def safety_line(info: AgentStatus, width: int | None = None) -> tuple[str, str]:
    """The mode line and the sandbox's part after it (empty before a session exists), fitted to ``width`` together."""
    if not info.sandbox_known:
        return mode_line(info.mode, width), ""
    full, short = " · " + sandbox_label(info.sandbox), " · " + sandbox_label(info.sandbox, short=True)
    for tail in (full, short):
        mode = mode_line(info.mode, None if width is None else width - len(tail))
        if width is None or len(mode) + len(tail) <= width:
            return mode, tail
    return mode_line(info.mode, width), "" if confined(info.sandbox) else short


def status_fragments(info: AgentStatus, width: int) -> Fragments:
    """The toolbar as prompt-toolkit fragments: the coloured mode and sandbox line, then the info line (one space of margin)."""
    style = MODE_STYLES.get(info.mode, "ansiyellow")
    mode, sandbox = safety_line(info, width - 1)
    return [
        (f"bold {style}", " " + mode),
        *([(CONFINED_STYLE if confined(info.sandbox) else UNCONFINED_STYLE, sandbox)] if sandbox else []),
        ("", "\n"),
        ("class:bottom-toolbar.text", " " + format_status(info, width - 1)),
    ]


def initial_status(settings: Settings) -> AgentStatus:
    """Before any agent exists: nothing used yet (the agent's own view says what the settings give)."""
    return AgentStatus.before_session(settings)
