"""/rewind's question: it names the message and the files a restore puts back."""

from __future__ import annotations

from pseudoclaude.agent import FileChange, UserTurn
from pseudoclaude.tui.rewind import choice_items, file_list, restore_question, shortened


def test_the_question_names_the_message_on_one_shortened_line() -> None:
    turn = UserTurn(4, "please refactor\n\nthe parser " + "and the lexer " * 10)
    question = restore_question(turn)
    assert question.startswith('What to restore, rewinding to before "please refactor the parser and the lexer')
    assert "…" in question and "\n" not in question
    assert shortened("x" * 200, 20) == "x" * 19 + "…"


def test_the_file_choices_name_each_file_with_its_line_counts_and_the_conversation_choice_does_not() -> None:
    changes = [FileChange("app.py", 3, 1, ""), FileChange("new.txt", 1, 0, "")]
    assert file_list(changes) == "app.py +3/-1, new.txt +1/-0"
    both, conversation, files = choice_items(changes)
    assert both.detail == files.detail == "app.py +3/-1, new.txt +1/-0"
    assert conversation.detail == ""
    assert file_list([]) == "no file edited since"


def test_a_file_name_with_escapes_is_shown_safely() -> None:
    assert "\x1b" not in file_list([FileChange("evil\x1b[2J.py", 1, 1, "")])
