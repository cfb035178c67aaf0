"""Untrusted text made safe: spelled out for a terminal, quoted as a file name the model can pass back."""

from __future__ import annotations

import json

import pytest

from pseudoclaude.textsafe import for_terminal, is_plain, quote_name


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("plain text, ünïcødé, 日本語\n\tindented", "plain text, ünïcødé, 日本語\n\tindented"),
        ("\x1b]52;c;aGVsbG8=\x07", "^[]52;c;aGVsbG8=^G"),
        ("\x1b]0;pwned\x1b\\", "^[]0;pwned^[\\"),
        ("\x1b[2J\x1b[H", "^[[2J^[[H"),
        ("a\r\nb", "a\nb"),
        ("progress\rdone", "progress^Mdone"),
        ("\x00\x7f", "^@^?"),
        ("\x9b31m\x9d0;t\x9c", "M-^[31mM-^]0;tM-^\\"),
        ("if admin \u202e }⁦ {", "if admin <U+202E> }<U+2066> {"),
    ],
)
def test_for_terminal_spells_out_every_control_character(raw: str, shown: str) -> None:
    assert for_terminal(raw) == shown


def test_nothing_a_terminal_acts_on_survives() -> None:
    everything = "".join(chr(code) for code in range(0x00, 0xA0)) + "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u061c"
    out = for_terminal(everything)
    assert all(c in "\n\t" or c.isprintable() for c in out)
    assert for_terminal(out) == out


@pytest.mark.parametrize("name", ["main.py", "src/a b/ü.txt", "it's", 'mid"quote'])
def test_a_plain_name_is_left_as_it_is(name: str) -> None:
    assert is_plain(name) and quote_name(name) == name


@pytest.mark.parametrize(
    ("name", "quoted"),
    [
        ("evil\nname.txt", '"evil\\nname.txt"'),
        ("\x1b]0;x\x07.txt", '"\\u001b]0;x\\u0007.txt"'),
        ("tab\there", '"tab\\there"'),
        ('"starts-with-quote', '"\\"starts-with-quote"'),
        ("back\\slash\n", '"back\\\\slash\\n"'),
        ("c1\x9bname", '"c1\\u009bname"'),
        ("rtl\u202etxt.exe", '"rtl\\u202etxt.exe"'),
    ],
)
def test_any_other_name_is_a_json_string_the_model_can_pass_back(name: str, quoted: str) -> None:
    assert quote_name(name) == quoted
    assert json.loads(quoted) == name
    assert "\n" not in quoted and for_terminal(quoted) == quoted
