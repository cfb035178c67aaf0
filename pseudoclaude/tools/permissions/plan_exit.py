"""The one transition out of plan mode the model can ask for: approving its plan.

A tool declaring ``exits_plan`` (``exit_plan_mode``, Claude Code's
ExitPlanMode) is not judged like other calls: calling it *is* the question.
The approver shows the plan; its answer decides:

* "always" approves and switches to accept-edits (edits run without asking);
* "once" approves and switches to default (each edit asks);
* "deny" keeps plan mode, and the user's comments go back as the call's result.

Outside plan mode there is nothing to exit: the call is refused with a reason.
A headless run has no one to ask: the plan stands as the run's result, plan
mode stays on, and the model is told so (a headless run never leaves plan
mode on its own).
"""

from __future__ import annotations

from pseudoclaude.tools.permissions.approval import ApprovalRequest, Approver, Decision
from pseudoclaude.tools.permissions.modes import PermissionMode
from pseudoclaude.tools.permissions.rules import Call

NOT_PLANNING = "You are not in plan mode, so there is no plan to approve: go ahead with the task (calls that need the user's approval still ask)."
HEADLESS = (
    "This run is headless: no one can approve the plan, so plan mode stays on and nothing will be changed. "
    "The plan is this run's result: end your turn now with the plan as your final answer."
)


async def review_plan(mode: PermissionMode, approver: Approver | None, call: Call) -> tuple[Decision, PermissionMode]:
    """The decision on an ``exits_plan`` call, and the mode to continue in."""
    if mode is not PermissionMode.PLAN:
        return Decision(False, NOT_PLANNING, "mode"), mode
    if approver is None:
        return Decision(False, HEADLESS, "headless"), mode
    plan = call.args.get("plan")
    request = ApprovalRequest(call.tool, call.args, plan if isinstance(plan, str) else "", None, kind="plan")
    answer = await approver.ask(request)
    if answer.choice == "always":
        return Decision(True, "the user approved the plan; accept-edits mode", "approval"), PermissionMode.ACCEPT_EDITS
    if answer.choice == "once":
        return Decision(True, "the user approved the plan; default mode", "approval"), PermissionMode.DEFAULT
    comments = answer.reason.strip()
    why = f"The user wants changes to the plan: {comments}" if comments else "The user did not approve the plan."
    return Decision(False, f"{why} You are still in plan mode: revise the plan and present it again with exit_plan_mode.", "approval"), mode
