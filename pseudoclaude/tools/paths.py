"""Workspace containment: the one place a model-supplied path becomes a real path.

Invariant: every path a tool opens went through ``resolve_path`` and the
returned path is the *real* location (all symlinks followed, also those of
parent folders, also for a target that does not exist yet, whose deepest
existing parent is resolved) and lies inside the workspace or one of the extra
folders; reads may also reach the session's spill folder, writes may not.

Checking the resolved path, not the text, is what refuses ``..``, absolute
paths elsewhere, a symlink pointing out, and a symlinked parent folder alike.
``/proc`` is refused outright, whatever it resolves to: its magic links
(``/proc/self/root``, ``/proc/<pid>/cwd``, ``/proc/self/fd/N``) are views of
the whole machine, and a path through them is never what a coding task needs.
"""

from __future__ import annotations

import os
from pathlib import Path

from pseudoclaude.textsafe import quote_name
from pseudoclaude.tools.base import ToolContext, ToolError

_PROC = Path("/proc")


def resolve_path(ctx: ToolContext, raw: str, *, for_write: bool) -> Path:
    """The real path of ``raw`` (relative to ``ctx.workspace``), refused when outside the allowed folders."""
    if not isinstance(raw, str) or not raw.strip():
        raise ToolError("path must be a non-empty string")
    if "\x00" in raw:
        raise ToolError("path must not contain NUL characters")
    expanded = os.path.expanduser(raw.strip()) if raw.strip().startswith("~") else raw.strip()
    workspace = _real(ctx.workspace)
    candidate = Path(expanded)
    if not candidate.is_absolute():
        candidate = workspace / candidate
    lexical = Path(os.path.normpath(candidate))
    resolved = _real(candidate)
    if _within(lexical, _PROC) or _within(resolved, _PROC):
        raise ToolError(f"refused: {raw!r} is under /proc, which is outside the workspace {workspace}")
    roots = allowed_roots(ctx, for_write=for_write)
    if not any(_within(resolved, root) for root in roots):
        where = "write to" if for_write else "access"
        extra = ""
        if len(roots) > 1:
            extra = " (allowed: " + ", ".join(str(r) for r in roots) + ")"
        target = f"{raw!r}" if str(resolved) == raw else f"{raw!r} (resolves to {quote_name(str(resolved))})"
        raise ToolError(f"refused: cannot {where} {target}: it is outside the workspace {workspace}{extra}")
    return resolved


SESSION_IMAGES = "images"
"""The session folder's image store (``session.images.IMAGE_DIR``; tools cannot import the session package)."""


def allowed_roots(ctx: ToolContext, *, for_write: bool) -> list[Path]:
    """The real folders a path may lie in: the workspace, the extra folders, and (reads only) the session's own files.

    Those are the spill folder and the ``images/`` folder beside it, which the
    notes of offloaded results and images name for the model to read again.
    """
    roots = [_real(ctx.workspace), *(_real(d) for d in ctx.extra_dirs)]
    if not for_write and ctx.spill_dir is not None:
        roots.append(_real(ctx.spill_dir))
        roots.append(_real(ctx.spill_dir.parent / SESSION_IMAGES))
    return roots


def display_path(ctx: ToolContext, path: Path) -> str:
    """``path`` relative to the workspace when inside it, else absolute: short and unambiguous for the model.

    A name with control characters comes as a JSON string literal (``textsafe.quote_name``): it cannot
    inject lines or terminal escapes into a tool's output, and the model can pass it back as it is.
    """
    workspace = _real(ctx.workspace)
    if _within(path, workspace) and path != workspace:
        return quote_name(path.relative_to(workspace).as_posix())
    return quote_name(str(path))


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _within(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)
