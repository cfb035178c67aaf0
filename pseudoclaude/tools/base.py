"""The Tool protocol: what the runner needs from every tool.

A tool validates its own arguments and raises ``ToolError`` for any misuse;
the runner turns that into an error result the model can react to. A tool
never prints; what a renderer may want (a diff, an exit code) travels in
``ToolOutput.display``.

What the rest of the code knows about a tool (may it run in plan mode, is it
an edit, may its old results be cleared, what Claude Code calls it, which
argument to show, which arguments are paths) is declared once, on the tool, as
its ``ToolTraits``. Permissions, hooks, display and context clearing read the
declaration (through ``ToolRegistry``); none keeps a list of tool names.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Literal, Mapping, Protocol, Sequence, get_args

from pseudoclaude.llm import Image, ToolSpec
from pseudoclaude.tools.child_env import ChildEnvironment
from pseudoclaude.tools.read_guard import NO_DENIED_READS, ReadGuard

if TYPE_CHECKING:
    from pseudoclaude.sandbox import CommandSandbox
    from pseudoclaude.tools.background import BackgroundJobs


class ToolError(Exception):
    """A misuse or failure that goes back to the model as an error result."""


@dataclass(frozen=True)
class FileStamp:
    """What a file looked like when the model last read or wrote it."""

    mtime_ns: int
    size: int
    sha256: str


@dataclass(frozen=True)
class PriorRead:
    """A ``read_file`` result the model was given: the file's stamp then, the turn, the lines shown."""

    stamp: FileStamp
    turn: int
    first: int
    last: int
    total: int


ReadRange = tuple[Path, int, int | None]
"""A read's path, first line and explicit line limit (None: the default page)."""


MemoryScope = Literal["user", "project"]


class SavedFactView(Protocol):
    """Where a remembered fact went; ``added`` is False when it was already there."""

    @property
    def scope(self) -> MemoryScope: ...
    @property
    def path(self) -> Path: ...
    @property
    def line(self) -> str: ...
    @property
    def added(self) -> bool: ...


class FactStore(Protocol):
    """Cross-session memory as ``remember`` needs it (``pseudoclaude.agent.memory.MemoryStore`` satisfies it)."""

    def save(self, text: str, scope: MemoryScope = "project") -> SavedFactView: ...


@dataclass(frozen=True)
class PastMessage:
    """One message of the session's recorded history, as ``recall`` searches it.

    ``index`` is its 1-based position in the session's transcript; ``compactions``
    counts the compaction boundaries recorded before it (0: before the first).
    ``text`` is a message's text (with an assistant's tool calls), or a tool
    result's complete output (its spill file when the result was shortened).
    ``tool``, ``arguments`` and ``call_id`` name the call a tool result answers;
    ``is_error`` says whether the result was an error.
    """

    index: int
    role: str
    text: str
    compactions: int
    tool: str = ""
    arguments: Mapping[str, Any] = field(default_factory=dict)
    call_id: str = ""
    background: BackgroundJobs | None = None
    is_error: bool = False


class HistorySearch(Protocol):
    """The session's own history, for ``recall`` (``pseudoclaude.agent.history.SessionHistory`` implements it).

    ``summarized()`` returns the messages recorded before the latest compaction
    boundary, read afresh from the session file (empty before any compaction);
    ``compactions()`` how many boundaries the session has recorded.
    """

    def summarized(self) -> Sequence[PastMessage]: ...
    def compactions(self) -> int: ...


@dataclass(frozen=True)
class OutputBudget:
    """How much of a tool's output goes into the context inline (``compact.Budget`` derives it from the window).

    ``inline_bytes``: a shaped command or search output (status line, head,
    error lines, tail); ``read_bytes``: one page of a file; ``result_limit_bytes``:
    the largest result context governance keeps inline unshaped (Layer 1's
    single-result limit). The defaults are a 128k-or-larger window's.
    """

    inline_bytes: int = 11_200
    read_bytes: int = 64_000
    result_limit_bytes: int = 50_000


@dataclass(frozen=True)
class TurnFacts:
    """The small part of a tool's context that changes while a session runs.

    ``turn`` counts the model calls of the session (the runner increments it
    before each); ``budget`` sizes inline output (the runner sets it from the
    context budget); ``vision``: whether the current model may be sent images
    (set from the model table before each tool round: ``read_file`` answers a
    model without vision with a note instead of an image it could not see);
    ``call_id`` is the id of the call being run (each call gets its own copy).
    """

    turn: int = 0
    budget: OutputBudget = field(default_factory=OutputBudget)
    vision: bool = True
    call_id: str = ""


@dataclass(frozen=True)
class ToolContext:
    """What the tools know of their session (fixed when it starts), and the current turn's ``TurnFacts``.

    The fields are never rebound: the runner hands each tool round, and the
    round each call, a copy with new ``now`` facts (``at``); a call the user
    approved to run outside the sandbox gets a copy without ``sandbox``. The
    session's stores are shared by reference through every copy:
    ``file_stamps`` remembers files read or written in this session, so
    ``write_file`` can refuse to overwrite a file the model has not seen or
    that changed on disk since (``stamp_sink`` is told each new stamp: the
    session records it, so a resume keeps what was read); ``todos`` is the
    todo list; ``read_log`` holds the reads whose results the model can still
    see, so a repeated read of an unchanged file can answer with a note
    instead of the same text (the runner empties it whenever context
    governance changed earlier results, since the note would then point at
    text the model no longer has).

    ``spill_dir`` is the session's ``tool-results/`` folder (None when the
    session is not persisted). ``memory`` is the session's memory store, used
    by ``remember``. ``history`` is the session's recorded history, searched
    by ``recall`` (None: not persisted). ``background`` holds the session's
    background commands (None: none can be started). ``sandbox`` confines the
    commands the model runs (None: they run unconfined, as with ``--sandbox
    off`` or a command the user approved to run outside). ``child_env``: the
    environment those commands run with (the user's, its secrets withheld)
    and the redactor every tool result passes through. ``read_guard``
    answers, for every file a reading tool touches (not only its path
    argument), whether a ``Read(...)`` deny rule forbids it.
    """

    workspace: Path
    spill_dir: Path | None = None
    extra_dirs: tuple[Path, ...] = ()
    file_stamps: dict[Path, FileStamp] = field(default_factory=dict)
    stamp_sink: Callable[[Path, FileStamp], None] | None = None
    todos: list[dict[str, Any]] = field(default_factory=list)
    memory: FactStore | None = None
    history: HistorySearch | None = None
    read_log: dict[ReadRange, PriorRead] = field(default_factory=dict)
    background: BackgroundJobs | None = None
    sandbox: CommandSandbox | None = None
    child_env: ChildEnvironment = field(default_factory=ChildEnvironment.from_process)
    read_guard: ReadGuard = NO_DENIED_READS
    now: TurnFacts = field(default_factory=TurnFacts)

    def at(self, **facts: Any) -> ToolContext:
        """This context with some ``TurnFacts`` changed (``turn=``, ``budget=``, ``vision=``, ``call_id=``)."""
        return replace(self, now=replace(self.now, **facts))

    @property
    def turn(self) -> int:
        return self.now.turn

    @property
    def budget(self) -> OutputBudget:
        return self.now.budget

    @property
    def vision(self) -> bool:
        return self.now.vision

    @property
    def call_id(self) -> str:
        return self.now.call_id


@dataclass(frozen=True)
class ToolOutput:
    """A tool's result: ``content`` is what the model reads.

    ``summary`` is one short line for the event stream; ``display`` carries
    structured extras for renderers (``diff``, ``exit_code``, ``total_bytes``...).
    ``shaped`` and ``full_output`` travel into the conversation's ``ToolResult``
    (see there): a tool that fitted its output to ``ToolContext.budget`` says so.
    ``images`` go to the model with the result (``read_file`` of a PNG, an MCP
    tool's screenshot), already fitted to the providers' limits; ``content``
    names them, for the transcript and for a model that cannot see them.
    ``details`` are facts about what the call did in Claude Code's
    ``tool_response`` shape (an edit's ``structuredPatch``, ``originalFile``...),
    for ``PostToolUse`` hooks only: never sent to the model, shown or recorded.
    """

    content: str
    is_error: bool = False
    summary: str = ""
    display: Mapping[str, Any] = field(default_factory=dict)
    shaped: bool = False
    full_output: str | None = None
    images: tuple[Image, ...] = ()
    details: Mapping[str, Any] = field(default_factory=dict)


ToolKind = Literal["read", "edit", "execute", "write", "network"]
"""What running a tool may change, as the permission policy sees it.

* ``read``: nothing outside the session (reads, searches, the todo list). Runs
  without asking, in plan mode too, and concurrently with other reads.
* ``edit``: files named by its path arguments. Asks, except in accept-edits mode.
* ``execute``: anything; its key argument is a shell command line, judged by the
  hard-deny list and command rules. Asks unless a rule allows the command.
* ``write``: some other lasting change (memory files, an MCP server's tools...). Asks.
* ``network``: changes nothing here, but the request leaves the machine (a URL can
  carry data out). Its key argument is a URL, judged by ``domain:`` rules. Asks,
  in plan mode too (research is what plan mode is for; it is not refused there).
"""


@dataclass(frozen=True, kw_only=True)
class ToolTraits:
    """What the code outside a tool knows about it, declared by the tool itself.

    ``clearable``: old results may be replaced by a marker once the prompt cache
    is cold (observations can be re-run; a tool whose result carries lasting
    state, like the todo list, must say False). ``claude_names``: Claude Code's
    names for the same tool (the first is its own, more are aliases), so its
    permission rules and hook matchers keep working. ``key_argument``: the
    argument a transcript shows (for ``execute``, the command line).
    ``path_arguments``: arguments that hold a path, matched by file rules;
    ``default_path`` is the path a call without one refers to.
    ``claude_arguments``: (ours, Claude Code's) pairs where an argument is named
    differently there; rules read either spelling. ``exits_plan``: calling the
    tool asks the user to approve a plan and leave plan mode (the policy makes
    the call that question; ``exit_plan_mode``). ``explores``: what a call of
    a read tool that only looks around touches (``file``, ``pattern``,
    ``directory``, ``resource``); the REPL folds a run of such calls into one
    line ("Read 3 files, searched for 2 patterns"). None for the others.
    """

    kind: ToolKind
    clearable: bool
    claude_names: tuple[str, ...] = ()
    key_argument: str | None = None
    path_arguments: tuple[str, ...] = ()
    default_path: str | None = None
    claude_arguments: tuple[tuple[str, str], ...] = ()
    exits_plan: bool = False
    explores: Literal["file", "pattern", "directory", "resource"] | None = None

    def __post_init__(self) -> None:
        if self.explores is not None and self.kind != "read":
            raise ValueError("only a read tool explores (a run of explore calls is folded in the transcript)")
        if self.kind not in get_args(ToolKind):
            raise ValueError(f"unknown tool kind {self.kind!r}: choose one of {', '.join(get_args(ToolKind))}")
        if self.kind == "network" and self.key_argument is None:
            raise ValueError("a network tool must name the argument holding its URL (key_argument)")
        if self.kind == "execute" and self.key_argument is None:
            raise ValueError("an execute tool must name the argument holding its command line (key_argument)")
        if self.kind == "edit" and not self.path_arguments:
            raise ValueError("an edit tool must name its path arguments, or file rules could not judge it")

    @property
    def read_only(self) -> bool:
        return self.kind == "read"

    def claude_name(self, ours: str) -> str:
        """The name Claude Code gives this tool (its first Claude Code name), else ours."""
        return self.claude_names[0] if self.claude_names else ours

    def to_claude(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """``args`` under Claude Code's argument names (what its hook scripts and SDK callers read)."""
        theirs = dict(self.claude_arguments)
        return {theirs.get(key, key): value for key, value in args.items()}

    def from_claude(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """Claude Code's argument names back to ours (an SDK's ``updatedInput``); unknown keys pass unchanged."""
        ours = {theirs: mine for mine, theirs in self.claude_arguments}
        return {ours.get(key, key): value for key, value in args.items()}

    def argument_names(self) -> tuple[str, ...]:
        """Every argument of ours the declaration names (each must exist in the tool's schema)."""
        named = (self.key_argument, *self.path_arguments, *(ours for ours, _ in self.claude_arguments))
        return tuple(dict.fromkeys(name for name in named if name is not None))


class Tool(Protocol):
    """A capability the model can call; ``traits`` is everything else the code knows about it."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    traits: ToolTraits

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput: ...


def spec_of(tool: Tool) -> ToolSpec:
    """The model-facing description of ``tool``."""
    return ToolSpec(name=tool.name, description=tool.description, input_schema=tool.input_schema)
