"""Text from outside made safe to show: on a terminal, and as a file name in a tool's output.

Everything the model writes, a tool prints, a file holds or a hook answers is
untrusted, and a terminal obeys the control sequences in what it is sent: an
``ESC ] 52 ; c ; <base64> BEL`` writes the user's clipboard, ``ESC ] 0 ; ...``
retitles the window, a cursor move can overdraw what the user reads. So every
such text is shown through ``for_terminal``, which spells each control
character out the way ``cat -v`` does (ESC as ``^[``, BEL as ``^G``, DEL as
``^?``, the C1 controls U+0080-U+009F, which some terminals take as 8-bit CSI
or OSC, as ``M-^[`` and so on); tab and newline stay, ``\\r\\n`` becomes
``\\n``. The bidirectional embedding, override and isolate characters, which
reorder what is displayed ("Trojan Source"), are shown as ``<U+202E>``. The
only escape sequences that reach the terminal are those the renderer generates
itself (its colours and the live view's cursor moves).

A file name is a different case: the model must be able to address the file
again. ``quote_name`` leaves a plain name as it is and writes any other as a
JSON string literal (``"bad\\nname.txt"``, ``"\\u001b[31m.txt"``), which is
exactly what the model puts in a tool call's JSON arguments to name that file.
A name that itself starts with ``"`` is quoted too, so a quoted form is never
ambiguous.
"""

from __future__ import annotations

import re

__all__ = ["for_terminal", "is_plain", "quote_name", "NAME_QUOTING_NOTE"]

_BIDI = "\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_TERMINAL_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f" + _BIDI + "]")
_NAME_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f" + _BIDI + "]")


def _caret(code: int) -> str:
    if code == 0x7F:
        return "^?"
    if code >= 0x80:
        return "M-" + _caret(code - 0x80)
    return "^" + chr(code + 64)


_TERMINAL_TABLE: dict[int, str] = {
    **{code: _caret(code) for code in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]},
    **{ord(c): f"<U+{ord(c):04X}>" for c in _BIDI},
}
_JSON_TABLE: dict[int, str] = {
    **{code: f"\\u{code:04x}" for code in [*range(0x00, 0x20), *range(0x7F, 0xA0)]},
    **{ord(c): f"\\u{ord(c):04x}" for c in _BIDI},
    ord("\n"): "\\n",
    ord("\t"): "\\t",
    ord("\r"): "\\r",
    ord('"'): '\\"',
    ord("\\"): "\\\\",
}

NAME_QUOTING_NOTE = (
    "a name shown in double quotes contains control characters and is written as a JSON string; pass it exactly so in a tool call to address that file"
)


def for_terminal(text: str) -> str:
    """``text`` with every control character a terminal could act on spelled out (``^[``, ``M-^[``, ``<U+202E>``)."""
    if _TERMINAL_UNSAFE.search(text) is None:
        return text
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    return text.translate(_TERMINAL_TABLE)


def is_plain(name: str) -> bool:
    """Whether ``name`` can be shown as it is (no control or bidi characters, no leading quote)."""
    return _NAME_UNSAFE.search(name) is None and not name.startswith('"')


def quote_name(name: str) -> str:
    """``name`` unchanged when plain, else as a JSON string literal the model can pass back to name the file."""
    if is_plain(name):
        return name
    return '"' + name.translate(_JSON_TABLE) + '"'
