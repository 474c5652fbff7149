"""`python -m recipes.NAME predict` reads lines as a user wrote them: one
result line per input line, whatever characters a line holds."""

import pytest

from recipes import cli


@pytest.mark.parametrize(
    "inside", ["\f", "\u2028", "\u2029", "\x85", "\x1c", "\x1d", "\x1e", "\v"]
)
def test_lines_end_at_a_newline_only(tmp_path, inside):
    path = tmp_path / "in.txt"
    path.write_text(f"one{inside}two\nthree\r\n\nfour", encoding="utf-8")
    assert cli.read_lines(str(path)) == [f"one{inside}two", "three", "", "four"]


def test_a_final_newline_ends_the_last_line(tmp_path):
    path = tmp_path / "in.txt"
    path.write_text("a\nb\n", encoding="utf-8")
    assert cli.read_lines(str(path)) == ["a", "b"]
    path.write_text("", encoding="utf-8")
    assert cli.read_lines(str(path)) == []
