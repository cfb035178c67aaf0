"""The prompt between turns: prompt-toolkit with our keys, history and completion.

Keys: Enter sends; Alt+Enter, or a trailing backslash, inserts a newline
(pasted text arrives as one bracketed paste and stays one message; a long one
folds to ``[Pasted text #N +L lines]``, see ``pastes``: Ctrl+T unfolds it in
place, Backspace after it deletes it whole, and it is sent unfolded); Ctrl-R
searches the history (prompt-toolkit's emacs binding); Ctrl-G edits the input
in ``$EDITOR`` (pastes unfolded there, folded again when unchanged); Ctrl+V
pastes a copied image (``clipboard``: saved and mentioned as ``@"path"``, or a
one-line hint above the status line saying why not); Shift+Tab cycles the
permission mode; Esc Esc on an empty line opens ``/rewind``; Ctrl-O prints the
last tool block in full (again: folded back) and Ctrl-\\ opens the transcript
(``block_keys``); Ctrl-C clears the
line, or on an empty line raises ``KeyboardInterrupt``; Ctrl-D on an empty line
raises ``EOFError``. History is one file per workspace under the home folder.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

from prompt_toolkit import PromptSession
from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import (
    CompleteEvent,
    Completer,
    Completion,
    PathCompleter,
)
from prompt_toolkit.document import Document
from prompt_toolkit.filters import is_searching
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import FileHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.key_binding.bindings import named_commands
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.keys import Keys
from prompt_toolkit.styles import Style

from pseudoclaude.tui.pastes import PasteStore, shared_pastes

if TYPE_CHECKING:
    from pseudoclaude.tui.block_keys import BlockKeys
    from pseudoclaude.tui.clipboard import ImagePaste

PROMPT = "❯ "
STYLE = Style.from_dict(
    {
        "prompt": "bold ansicyan",
        "bottom-toolbar": "noreverse bg:default #888888",
        "bottom-toolbar.text": "",
        "hint": "ansiyellow",
    }
)


Choices = Sequence[str] | Callable[[], Sequence[str]]
"""A command's arguments Tab offers: fixed, or asked for at each completion (``/model``'s ids, from the endpoint)."""
INPUT_MARGIN = 5
"""Rows kept free below a tall input: the status toolbar (two lines, a third for a hint) and a spare."""
MAX_PATH_COMPLETIONS = 200  # completion runs on each keystroke: a 25,000-entry folder must not stall typing


def history_path(home: Path, workspace: Path) -> Path:
    from pseudoclaude.session import workspace_key

    return home / "history" / workspace_key(workspace)


class ReplCompleter(Completer):
    """Slash commands at the start of the line, then their arguments; ``@path`` file mentions anywhere."""

    def __init__(self, commands: Sequence[tuple[str, str]], workspace: Path, arguments: Mapping[str, Choices] | None = None) -> None:
        self.commands = commands
        self.arguments = arguments or {}
        self.paths = PathCompleter(get_paths=lambda: [str(workspace)], expanduser=False)

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        if text.startswith("/") and " " not in text:
            for name, help_text in self.commands:
                if name.startswith(text):
                    yield Completion(name, start_position=-len(text), display_meta=help_text)
            return
        name, _, argument = text.partition(" ")
        if name in self.arguments and " " not in argument:
            choices = self.arguments[name]
            for choice in choices() if callable(choices) else choices:
                if choice.startswith(argument):
                    yield Completion(choice, start_position=-len(argument))
            return
        word = document.get_word_before_cursor(WORD=True)
        if word.startswith("@"):
            inner = Document(word[1:], len(word) - 1)
            for completion in itertools.islice(self.paths.get_completions(inner, complete_event), MAX_PATH_COMPLETIONS):
                yield _with_slash(completion)


def _with_slash(completion: Completion) -> Completion:
    """A folder's completion ends with its slash (prompt-toolkit shows it but does not insert it): ``@src`` Tab gives ``@src/``."""
    if not completion.display_text.endswith("/") or completion.text.endswith("/"):
        return completion
    return Completion(completion.text + "/", start_position=completion.start_position, display=completion.display, display_meta=completion.display_meta)


class BufferTarget:
    """The prompt's buffer as the place a Ctrl+V'd image is mentioned in."""

    def __init__(self, buffer: Buffer, app: Application[object]) -> None:
        self.buffer = buffer
        self.app = app

    def text_and_cursor(self) -> tuple[str, int]:
        return self.buffer.text, self.buffer.cursor_position

    def set_text(self, text: str, cursor: int) -> None:
        self.buffer.document = Document(text, cursor)

    def submit(self) -> None:
        self.buffer.validate_and_handle()

    def redraw(self) -> None:
        self.app.invalidate()


def key_bindings(
    on_cycle_mode: Callable[[], None], paste: ImagePaste | None = None, pastes: PasteStore | None = None, blocks: BlockKeys | None = None
) -> KeyBindings:
    bindings = KeyBindings()
    store = pastes if pastes is not None else shared_pastes()
    if blocks is not None:
        from pseudoclaude.tui.block_keys import add_block_keys

        add_block_keys(bindings, blocks)

    @bindings.add(Keys.BracketedPaste, filter=~is_searching)
    def _paste_text(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text(store.insertion(event.data))

    @bindings.add("c-t", filter=~is_searching)
    def _unfold(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        unfolded = store.expand_at(buffer.text, buffer.cursor_position)
        if unfolded is not None:
            buffer.document = Document(*unfolded)

    @bindings.add("backspace", filter=~is_searching)
    def _backspace(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        deleted = store.delete_before(buffer.text, buffer.cursor_position) if buffer.selection_state is None else None
        if deleted is not None:
            buffer.document = Document(*deleted)
        else:
            named_commands.get_by_name("backward-delete-char").call(event)

    @bindings.add("enter", filter=~is_searching)
    def _send(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        state = buffer.complete_state
        if state is not None and state.current_completion is not None:
            buffer.apply_completion(state.current_completion)
        elif paste is not None and paste.hold_enter():
            event.app.invalidate()
        elif buffer.document.text_before_cursor.endswith("\\") and buffer.document.is_cursor_at_the_end:
            buffer.delete_before_cursor(1)
            buffer.insert_text("\n")
        else:
            folded = store.fold_known(buffer.text)  # the scrollback keeps the message as one line per paste
            if folded != buffer.text:
                buffer.document = Document(folded)
            buffer.validate_and_handle()

    @bindings.add("escape", "enter", filter=~is_searching)
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    @bindings.add("escape", "escape", filter=~is_searching)
    def _rewind(event: KeyPressEvent) -> None:
        if not event.current_buffer.text:
            event.app.exit(result="/rewind")

    @bindings.add("c-g", filter=~is_searching)
    def _editor(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        shown = buffer.document
        buffer.document = Document(store.expand(shown.text))  # the file the editor opens is written now, before any redraw
        task = buffer.open_in_editor(validate_and_handle=False)
        buffer.document = shown
        task.add_done_callback(lambda _: setattr(buffer, "document", Document(store.fold_known(buffer.text))))

    if paste is not None:
        image_paste = paste

        @bindings.add("c-v", filter=~is_searching)
        def _paste_image(event: KeyPressEvent) -> None:
            image_paste.start(BufferTarget(event.current_buffer, event.app))

    @bindings.add("s-tab")
    def _cycle(event: KeyPressEvent) -> None:
        on_cycle_mode()
        event.app.invalidate()

    @bindings.add("c-c", filter=~is_searching)
    def _clear_or_quit(event: KeyPressEvent) -> None:
        if event.current_buffer.text:
            event.current_buffer.reset()
        else:
            event.app.exit(exception=KeyboardInterrupt())

    return bindings


def _columns() -> int:
    from prompt_toolkit.application import get_app

    return get_app().output.get_size().columns


class PasteHistory(FileHistory):
    """The history file keeps pastes unfolded (a later process has not got them); this process recalls them folded."""

    def __init__(self, filename: str, pastes: PasteStore) -> None:
        super().__init__(filename)
        self.pastes = pastes

    def store_string(self, string: str) -> None:
        super().store_string(self.pastes.expand(string))


class FoldingPromptSession(PromptSession[str]):
    """The prompt, answering with the pastes unfolded: what it returns is the message as it is sent (and saved)."""

    def __init__(self, pastes: PasteStore, **options: Any) -> None:
        super().__init__(**options)
        self.pastes = pastes

    async def prompt_async(self, *args: Any, **options: Any) -> str:
        if isinstance(options.get("default"), str):
            options["default"] = self.pastes.fold_known(options["default"])
        text = await super().prompt_async(*args, **options)
        if self._too_tall(text):
            from prompt_toolkit import print_formatted_text

            lines = text.split("\n")
            fragments = [("class:prompt", PROMPT), ("", lines[0])]
            for line in lines[1:]:
                fragments += [("", "\n"), ("class:prompt", "… "), ("", line)]
            print_formatted_text(FormattedText(fragments), style=STYLE)
        return self.pastes.expand(text)

    def _too_tall(self, text: str) -> bool:
        """Whether ``text`` is taller than the window: its last drawing would keep only its tail, so it is printed whole instead."""
        from prompt_toolkit.application import get_app_or_none

        app = get_app_or_none()
        rows = (app.output if app is not None else self.app.output).get_size().rows
        return text.count("\n") + 1 > rows - 1

    def _get_default_buffer_control_height(self) -> Dimension:
        """At most the window less the status lines.

        An input taller than the terminal pushes the status toolbar off and back
        on, and each push leaves a stale copy of it in the scrollback.
        """
        from prompt_toolkit.application import get_app

        height = super()._get_default_buffer_control_height()
        app = get_app()
        if app.is_done:
            return Dimension.exact(0) if self._too_tall(self.default_buffer.text) else height
        limit = max(1, app.output.get_size().rows - INPUT_MARGIN)
        preferred = min(height.preferred, limit) if height.preferred_specified else None  # else the text's own height
        return Dimension(min=min(height.min, limit) if height.min_specified else None, max=limit, preferred=preferred)


def make_prompt_session(
    *,
    home: Path,
    workspace: Path,
    commands: Sequence[tuple[str, str]],
    arguments: Mapping[str, Choices] | None = None,
    status: Callable[[int], list[tuple[str, str]]],
    on_cycle_mode: Callable[[], None],
    pastes: PasteStore | None = None,
    blocks: BlockKeys | None = None,
) -> PromptSession[str]:
    """The prompt; ``status(columns)`` gives the bottom toolbar's fragments fitted to the terminal's width.

    ``pastes`` holds the folded pastes (the process's store unless given), shared with the keys of a turn
    so a draft typed during one comes back folded.
    """
    path = history_path(home, workspace)
    path.parent.mkdir(parents=True, exist_ok=True)
    from pseudoclaude.tui.clipboard import ImagePaste

    paste = ImagePaste(home)
    store = pastes if pastes is not None else shared_pastes()
    session = FoldingPromptSession(
        store,
        message=FormattedText([("class:prompt", PROMPT)]),
        multiline=True,
        prompt_continuation=lambda width, line, wrapped: " " * (width - 2) + "… ",
        history=PasteHistory(str(path), store),
        completer=ReplCompleter(commands, workspace, arguments),
        complete_while_typing=True,
        key_bindings=key_bindings(on_cycle_mode, paste, store, blocks),
        bottom_toolbar=lambda: FormattedText(paste.fragments() + status(_columns())),
        style=STYLE,
        enable_open_in_editor=False,
        reserve_space_for_menu=4,
    )
    session.default_buffer.on_text_changed += paste.clear_hint
    return session
