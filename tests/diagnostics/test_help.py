"""`python -m diagnostics [TOOL] --help`: a clean description (no
Markdown backticks, not cut mid-sentence) and help on every option."""

import re

import pytest

from diagnostics import __main__ as entry
from diagnostics import activations
from diagnostics import cost
from diagnostics import gradients
from diagnostics import probing
from diagnostics import study

pytestmark = pytest.mark.tf_tier  # parsers only: any backend will do

TOOLS = {
    "activations": activations.parse,
    "gradients": gradients.parse,
    "probe": probing.parse,
    "cost": cost.parse_args,
    "study": study.parse,
}


def help_of(parse, capsys):
    with pytest.raises(SystemExit) as info:
        parse(["--help"])
    assert info.value.code == 0
    return capsys.readouterr().out


def options_without_help(text):
    """The options of an argparse help text that have no help after them
    (on their line, or indented on the next)."""
    lines = text.splitlines()
    bare = []
    for i, line in enumerate(lines):
        if not line.startswith("  -"):
            continue
        if len(re.split(r"\s{2,}", line.strip(), maxsplit=1)) == 2:
            continue  # the help starts on the option's line
        follows = lines[i + 1] if i + 1 < len(lines) else ""
        if not follows.startswith(" " * 8) or follows.strip().startswith("-"):
            bare.append(line.strip())
    return bare


def test_the_tool_list_starts_clean(capsys):
    entry.main(["--help"])
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m diagnostics TOOL")
    assert "`" not in out
    for name in TOOLS:
        assert f"  {name} " in out


def test_probe_tells_the_mix_of_the_stacks_layers(capsys):
    entry.main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "ScalarMix of the stack's layers" in out


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_every_option_has_help_and_the_description_is_whole(tool, capsys):
    text = help_of(TOOLS[tool], capsys)
    assert options_without_help(text) == []
    description = text.split("\n\n")[1]
    assert "`" not in description
    assert description.rstrip().endswith("."), description


def test_the_check_sees_an_option_without_help():
    text = (
        "options:\n  -h, --help   show this help\n  --output OUTPUT\n"
        "  --seed SEED  a seed\n  --train-sentences TRAIN_SENTENCES\n"
        "                        sentences\n"
    )
    assert options_without_help(text) == ["--output OUTPUT"]
