"""The approval question a turn's keys are answering: the request, the answer's future, what is being typed.

Its own module because three views read it (the keys that answer it, the
approver that asks it, the plan view that shows it) and none of them should
import another for it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from pseudoclaude.tools.permissions import ApprovalAnswer, ApprovalRequest


@dataclass
class PendingApproval:
    request: ApprovalRequest
    future: asyncio.Future[ApprovalAnswer]
    typing_reason: bool = False
    reason: str = ""
    editing_rule: bool = False
