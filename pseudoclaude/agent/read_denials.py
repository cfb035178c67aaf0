"""The session's read deny rules, as the reading tools ask them (``tools.read_guard.ReadGuard``).

The rules come from one place, the permission policy: a deny rule with a path
pattern on a tool whose declared kind is ``read`` and that takes a path
(``read_file(.env)``, Claude Code's ``Read(**/.env)``, ``Grep(secrets/**)``)
forbids reading what it matches, to every reading tool, exactly as the policy's
``_read_denied`` makes a shell line reading it ask. Matching is the rules' own
(``Rule.matches_path``); this class only supplies the spellings of a path:
as given and resolved, each relative to the configured workspace (which may be
a symlink) when it lies in the resolved one.

It lives in ``agent`` because ``tools`` may not import ``tools.permissions``;
``agent.build`` hands it to the tools as ``ToolContext.read_guard``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from pseudoclaude.tools.permissions import PermissionPolicy, Rule


@dataclass(frozen=True)
class DeniedReads:
    """Read deny rules bound to a workspace and a home; ``denied`` names the rule that forbids a path."""

    rules: tuple[Rule, ...]
    workspace: Path
    home: Path

    @classmethod
    def of(cls, policy: PermissionPolicy) -> DeniedReads:
        """The deny rules of ``policy`` that forbid reading: a path pattern, on a reading tool that takes a path."""
        return cls(policy.rules.read_denials(policy.tools), policy.workspace, policy.home)

    @property
    def patterns(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(rule.pattern for rule in self.rules if rule.pattern is not None))

    def denied(self, path: Path) -> str | None:
        if not self.rules:
            return None
        for spelling in self._spellings(path):
            for rule in self.rules:
                if rule.matches_path(spelling, workspace=self.workspace, home=self.home):
                    return str(rule)
        return None

    def _spellings(self, path: Path) -> list[Path]:
        lexical = Path(os.path.normpath(path))
        real = Path(os.path.realpath(lexical))
        real_workspace = Path(os.path.realpath(self.workspace))
        spellings = [lexical, real]
        if real_workspace != self.workspace:
            spellings += [self.workspace / p.relative_to(real_workspace) for p in (lexical, real) if p.is_relative_to(real_workspace)]
        return list(dict.fromkeys(spellings))
