"""exit_plan_mode: the call is the question; the answer sets the mode or sends comments back."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.tools.builtins import plan_mode_tools
from pseudoclaude.tools.permissions import ApprovalAnswer, PermissionMode, PermissionPolicy

from .fakes import HOME, WORKSPACE, ScriptedApprover, tool

PLAN = {"plan": "1. Fix the parser\n2. Run the tests"}


def review(mode: PermissionMode, *answers: ApprovalAnswer) -> tuple[Any, PermissionPolicy, ScriptedApprover]:
    approver = ScriptedApprover(list(answers))
    policy = PermissionPolicy(mode=mode, workspace=WORKSPACE, home=HOME, approver=approver if answers else None)
    decision = asyncio.run(policy.check(tool("exit_plan_mode"), PLAN))
    return decision, policy, approver


@pytest.mark.parametrize(("choice", "mode"), [("always", PermissionMode.ACCEPT_EDITS), ("once", PermissionMode.DEFAULT)])
def test_an_approved_plan_leaves_plan_mode(choice: str, mode: PermissionMode) -> None:
    decision, policy, approver = review(PermissionMode.PLAN, ApprovalAnswer(choice))  # type: ignore[arg-type]
    assert decision.allowed and policy.mode is mode
    [request] = approver.requests
    assert request.kind == "plan" and request.summary == PLAN["plan"] and request.suggested_rule is None


def test_comments_keep_plan_mode_and_reach_the_model() -> None:
    decision, policy, _ = review(PermissionMode.PLAN, ApprovalAnswer("deny", "also update the docs"))
    assert not decision.allowed and policy.mode is PermissionMode.PLAN
    assert decision.reason.startswith("The user wants changes to the plan: also update the docs")


def test_headless_plan_mode_keeps_the_plan_as_the_result() -> None:
    decision, policy, _ = review(PermissionMode.PLAN)
    assert not decision.allowed and decision.source == "headless" and policy.mode is PermissionMode.PLAN
    assert "The plan is this run's result" in decision.reason


def test_outside_plan_mode_there_is_nothing_to_exit() -> None:
    decision, policy, approver = review(PermissionMode.DEFAULT, ApprovalAnswer("once"))
    assert not decision.allowed and policy.mode is PermissionMode.DEFAULT and approver.requests == []


def test_plan_mode_instructions_offer_the_tool_and_only_plan_mode_does() -> None:
    policy = PermissionPolicy(mode=PermissionMode.PLAN, workspace=WORKSPACE, home=HOME)
    text = policy.mode_instructions()
    assert "calling exit_plan_mode" in text and plan_mode_tools() in text
    policy.mode = PermissionMode.DEFAULT
    assert "exit_plan_mode" not in policy.mode_instructions()
