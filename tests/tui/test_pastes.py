"""The paste store: folding, numbering, unfolding, deleting, folding back."""

from __future__ import annotations

from pseudoclaude.tui.pastes import FOLD_CHARS, PasteStore, should_fold

FORTY = "\n".join(f"line {i}" for i in range(1, 41))


def test_a_long_paste_folds_to_a_numbered_placeholder_and_a_short_one_stays_text() -> None:
    store = PasteStore()
    assert store.insertion(FORTY) == "[Pasted text #1 +40 lines]"
    assert store.insertion("one\ntwo\nthree") == "one\ntwo\nthree"
    assert store.insertion("x" * (FOLD_CHARS + 1)) == "[Pasted text #2 +1 line]"
    assert store.insertion("a\nb\nc\nd") == "[Pasted text #3 +4 lines]"


def test_the_threshold_is_more_than_three_lines_or_more_than_800_characters() -> None:
    assert not should_fold("a\nb\nc")
    assert should_fold("a\nb\nc\nd")
    assert not should_fold("x" * 800)
    assert should_fold("x" * 801)


def test_pasted_carriage_returns_become_newlines() -> None:
    store = PasteStore()
    placeholder = store.insertion("a\r\nb\rc\rd")
    assert store.expand(placeholder) == "a\nb\nc\nd"


def test_expand_replaces_each_kept_placeholder_with_its_text_exactly() -> None:
    store = PasteStore()
    first, second = store.add(FORTY), store.add("p\nq\nr\ns\n")
    assert store.expand(f"look at {first} and\n{second}!") == f"look at {FORTY} and\np\nq\nr\ns\n!"


def test_a_placeholder_that_names_no_kept_paste_stays_the_users_words() -> None:
    store = PasteStore()
    store.add(FORTY)
    typed = "[Pasted text #7 +3 lines] and [Pasted text #1 +2 lines]"  # unknown number; known number, wrong count
    assert store.expand(typed) == typed


def test_a_paste_holding_a_placeholder_is_not_expanded_twice() -> None:
    store = PasteStore()
    inner = store.add(FORTY)
    outer = store.add(f"quoting {inner}\n2\n3\n4")
    assert store.expand(outer) == f"quoting {inner}\n2\n3\n4"


def test_backspace_after_a_placeholder_deletes_it_whole_and_the_paste_is_not_sent() -> None:
    store = PasteStore()
    text = f"see {store.add(FORTY)} end"
    cursor = text.index(" end")
    assert store.delete_before(text, cursor) == ("see  end", 4)
    assert store.delete_before(text, cursor - 1) is None  # inside it: an ordinary backspace
    assert store.delete_before(text, len(text)) is None
    remaining, _ = store.delete_before(text, cursor) or ("", 0)
    assert store.expand(remaining) == "see  end"
    assert store.pastes_in(remaining) == []


def test_unfold_at_the_cursor_or_the_last_placeholder() -> None:
    store = PasteStore()
    first, second = store.add(FORTY), store.add("a\nb\nc\nd")
    text = f"{first} {second}"
    assert store.expand_at(text, 0) == (f"{FORTY} {second}", len(FORTY))
    assert store.expand_at(text, len(text)) == (f"{first} a\nb\nc\nd", len(text) - len(second) + 7)
    assert store.expand_at("no pastes here", 3) is None


def test_fold_known_turns_pasted_text_back_into_its_placeholder() -> None:
    store = PasteStore()
    placeholder = store.add(FORTY)
    assert store.fold_known(f"before {FORTY} after") == f"before {placeholder} after"
    assert store.fold_known("typed by hand") == "typed by hand"


def test_numbers_count_up_and_pastes_in_lists_them_in_order() -> None:
    store = PasteStore()
    first, second = store.add(FORTY), store.add(FORTY + "\nmore")
    assert [p.number for p in store.pastes_in(f"{second} {first}")] == [2, 1]
