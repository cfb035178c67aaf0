"""The plan-approval question in the live footer (``exit_plan_mode``).

The plan is the model's Markdown, shown rendered (through ``for_terminal``:
it is untrusted text) and capped so the question stays on screen; then the
three answers: accept edits, approve and ask before edits, or keep planning
with comments (typed after ``n``, sent back to the model as the call's result).
Once approved, the plan stays in the scrollback (``approved_plan``), as Claude
Code keeps "Exited plan mode" with its plan: the question's box lived in the
live footer and vanishes with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import RenderableType
from rich.markdown import Markdown
from rich.panel import Panel
from rich.text import Text

from pseudoclaude.textsafe import for_terminal

if TYPE_CHECKING:
    from pseudoclaude.tui.pending import PendingApproval

PLAN_LINES = 30
APPROVED = "Plan approved — leaving plan mode"


def plan_box(plan: str) -> Panel:
    """The plan, rendered, in the box the approval question showed it in."""
    return Panel(Markdown(for_terminal(plan)), title="Plan", title_align="left", border_style="cyan")


def approved_plan(plan: str) -> list[RenderableType]:
    """What an approved ``exit_plan_mode`` call leaves in the transcript: the whole plan and one line saying so."""
    return [plan_box(plan.strip()), Text("● ", style="bold green") + Text(APPROVED, style="bold")]


def plan_lines(pending: PendingApproval, max_lines: int = PLAN_LINES) -> list[RenderableType]:
    rows = for_terminal(pending.request.summary).splitlines()
    shown = "\n".join(rows[:max_lines]) + (f"\n\n… {len(rows) - max_lines} more lines" if len(rows) > max_lines else "")
    lines: list[RenderableType] = [
        plan_box(shown),
        Text("? ", style="bold yellow") + Text("Approve this plan and leave plan mode?", style="bold"),
    ]
    if pending.typing_reason:
        lines.append(
            Text("  What should change? (Enter sends your comments; plan mode stays) › ", style="yellow") + Text(pending.reason) + Text("▌", style="dim")
        )
    else:
        lines.append(
            Text("  [a] yes, and accept edits   [y] yes, ask before each edit   [n] no, keep planning (say what to change)   [esc] stop", style="yellow")
        )
    return lines
