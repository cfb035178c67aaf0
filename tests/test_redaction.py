"""The redactor: secrets become ``***`` in text, in JSON lines (still valid) and in a stream cut anywhere."""

from __future__ import annotations

import json

import pytest

from pseudoclaude.redaction import MASK, MIN_SECRET_LENGTH, Redactor

KEY = "sk-ant-api03-Zq8xWv2L"
TOKEN = "ghp_0123456789abcdefABCDEF"


def test_every_occurrence_of_every_secret_is_masked() -> None:
    redactor = Redactor.of([KEY, TOKEN])
    assert redactor.text(f"key={KEY} token={TOKEN} again {KEY}") == "key=*** token=*** again ***"


def test_values_shorter_than_a_secret_are_left_alone() -> None:
    redactor = Redactor.of(["1", "true", "x" * (MIN_SECRET_LENGTH - 1), None, ""])
    assert not redactor
    assert redactor.text("true 1 xxxxxxx") == "true 1 xxxxxxx"
    assert Redactor.of(["x" * MIN_SECRET_LENGTH]).text("a xxxxxxxx b") == "a *** b"


def test_a_longer_secret_containing_a_shorter_one_is_masked_whole() -> None:
    assert Redactor.of(["abcdefgh", "abcdefgh-more-of-it"]).text("[abcdefgh-more-of-it]") == "[***]"


def test_the_secrets_never_appear_in_its_repr() -> None:
    redactor = Redactor.of([KEY, TOKEN])
    assert KEY not in repr(redactor) and TOKEN not in repr(redactor) and "2 secrets" in repr(redactor)


def test_nested_values_are_walked() -> None:
    redactor = Redactor.of([KEY])
    value = {"command": f"echo {KEY}", "tail": [KEY, ("x", KEY)], "exit_code": 0, KEY: None}
    assert redactor.value(value) == {"command": "echo ***", "tail": [MASK, ("x", MASK)], "exit_code": 0, MASK: None}


@pytest.mark.parametrize("secret", [KEY, 'pa"ss\\word-1', "pässwört-99", "tab\there-12345"])
def test_a_json_line_stays_valid_json_with_the_secret_masked(secret: str) -> None:
    redactor = Redactor.of([secret])
    for ensure_ascii in (False, True):
        line = (json.dumps({"text": f"before {secret} after", "n": 1}, ensure_ascii=ensure_ascii) + "\n").encode()
        redacted = redactor.json_line(line)
        assert json.loads(redacted) == {"text": "before *** after", "n": 1}
        assert redacted.endswith(b"\n")


def test_a_match_that_would_cut_an_escape_is_redacted_through_the_document() -> None:
    secret = "nabcdefgh-123"
    redactor = Redactor.of([secret])
    line = json.dumps({"text": f"x\n{secret[1:]} and {secret}"}).encode()
    assert json.loads(redactor.json_line(line)) == {"text": f"x\n{secret[1:]} and ***"}


@pytest.mark.parametrize("cut", range(1, len(KEY)))
def test_a_secret_split_between_two_chunks_is_masked(cut: int) -> None:
    stream = Redactor.of([KEY]).stream()
    data = f"start {KEY} end".encode()
    at = len("start ") + cut
    out = stream.feed(data[:at]) + stream.feed(data[at:]) + stream.flush()
    assert out == b"start *** end"


def test_a_secret_fed_one_byte_at_a_time_is_masked() -> None:
    stream = Redactor.of([KEY, TOKEN]).stream()
    data = f"{TOKEN}\n{KEY}{KEY}\n".encode()
    out = b"".join(stream.feed(data[i : i + 1]) for i in range(len(data))) + stream.flush()
    assert out == b"***\n******\n"


def test_only_what_could_start_a_secret_is_held_back() -> None:
    stream = Redactor.of([KEY]).stream()
    assert stream.feed(b"plain output\n") == b"plain output\n"
    assert stream.feed(b"ends with sk-an") == b"ends with "
    assert stream.feed(b"d so on\n") == b"sk-and so on\n"
    assert stream.feed(b"tail sk-ant") == b"tail "
    assert stream.flush() == b"sk-ant"


def test_a_value_with_undecodable_bytes_is_masked_as_a_program_prints_it() -> None:
    raw = b"pass\xffword-123"
    stream = Redactor.of([raw.decode("utf-8", errors="surrogateescape")]).stream()
    assert stream.feed(b"[" + raw + b"]") + stream.flush() == b"[***]"


def test_a_redactor_without_secrets_changes_nothing() -> None:
    stream = Redactor().stream()
    assert stream.feed(b"sk-ant") == b"sk-ant" and stream.flush() == b""
    assert Redactor().json_line(b'{"a":1}\n') == b'{"a":1}\n'
