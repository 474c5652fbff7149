"""What `python -m recipes.NAME --help` says is what the recipe does: no
flag it refuses, one default per flag (none when empty), `--quick` told
from the recipe's own values, argparse `choices` where a setting takes a
fixed set (refused on one line, exit 2). Nothing is trained."""

import re

import pytest

import harness
from harness import flags
from recipes import classification
from recipes import cli
from recipes import encoder_decoder
from recipes import g2p
from recipes import settings
from recipes import tagging

pytestmark = pytest.mark.tf_tier  # parsers only: any backend will do

RECIPES = {
    "tagging": tagging,
    "classification": classification,
    "g2p": g2p,
}


def parser_of(recipe):
    return recipe.cli.parser()


def helps(parser):
    """Each flag's help as `--help` prints it (`%%` and `%(default)s`
    expanded), by its first option string."""
    formatter = parser._get_formatter()  # argparse's own expansion
    return {
        action.option_strings[0]: formatter._expand_help(action)
        for action in parser._actions  # argparse has no public list
        if action.option_strings and action.help
    }


def test_g2p_lists_no_flag_it_refuses():
    text = parser_of(g2p).format_help()
    # (`predict --model NAME_OR_RUN` is another command, named in the
    # epilog.)
    assert "--model MODEL" not in text and "--init-from" not in text
    # The other recipes take them (one option list, skipped by g2p).
    for recipe in (tagging, classification):
        text = parser_of(recipe).format_help()
        assert "--model MODEL" in text and "--init-from INIT_FROM" in text


def test_g2p_refuses_them_on_one_line(tmp_path, capsys):
    argv = ["--init-from", "x.keras", "--output", str(tmp_path)]
    with pytest.raises(SystemExit) as info:
        harness.run_cli(g2p.main, argv)
    assert info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "unrecognized arguments: --init-from x.keras" in err


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_one_default_per_flag_and_none_when_empty(name):
    for flag, text in helps(parser_of(RECIPES[name])).items():
        assert "(default: )" not in text, flag
        assert "(default: None)" not in text, flag
        assert text.lower().count("default") <= 1, (flag, text)


def test_help_tells_a_default_once():
    assert flags.with_default("width", 8) == "width (default: 8)"
    assert flags.with_default("a file", "") == "a file"
    assert flags.with_default("a regularizer", None) == "a regularizer"
    told = "keep them (default: stripped)"
    assert flags.with_default(told, False) == told
    assert flags.with_default("a share", "10%") == "a share (default: 10%%)"
    stress = helps(parser_of(g2p))["--stress"]
    assert stress.count("(default:") == 0 and "default: stripped" in stress


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_quick_help_tells_the_recipes_own_epochs(name):
    recipe = RECIPES[name]
    epochs = recipe.Config.QUICK.get("epochs", settings.QUICK_EPOCHS)
    text = " ".join(helps(parser_of(recipe))["--quick"].split())
    assert f"at most {epochs} epochs" in text, text
    for key, value in recipe.Config.QUICK.items():
        if key != "epochs":
            assert f"{flags.flag_of(key)} {value}" in text, (key, text)


def test_g2p_quick_is_eight_epochs_not_two():
    text = " ".join(helps(parser_of(g2p))["--quick"].split())
    assert "at most 8 epochs" in text and "2 epochs" not in text
    assert "12000 train, 300 dev and 300 test words" in text


@pytest.mark.parametrize(
    "name, flag, choices",
    [
        ("g2p", "--attention", encoder_decoder.ATTENTIONS),
        ("g2p", "--bridge", encoder_decoder.BRIDGES),
        ("tagging", "--head", tagging.HEADS),
        ("tagging", "--tagset", tagging.TAGSETS),
        ("classification", "--pooling", classification.POOLINGS),
        ("tagging", "--lr-schedule", settings.LR_SCHEDULES),
        ("tagging", "--distribute", ("none", "mirrored", "multi-worker")),
        ("tagging", "--cell", ("simple_rnn", "gru", "lstm")),
    ],
)
def test_fixed_sets_are_argparse_choices(name, flag, choices):
    parser = parser_of(RECIPES[name])
    action = next(a for a in parser._actions if flag in a.option_strings)
    assert tuple(action.choices) == tuple(choices)
    usage = " ".join(parser.format_usage().split())
    assert f"[{flag} {{{','.join(choices)}}}]" in usage


@pytest.mark.parametrize(
    "name, argv, message",
    [
        ("g2p", ["--attention", "luong"], "--attention must be one of"),
        ("tagging", ["--tagset", "ptb"], "--tagset must be one of"),
        ("tagging", ["--cell", "lstn"], "--cell must be one of 'simple_rnn'"),
        ("tagging", ["--mixed-precision", "int8"], "--mixed-precision must"),
    ],
)
def test_a_value_outside_the_choices_stops_the_parse(name, argv, message):
    # Refused by the parser itself, before any data or model.
    with pytest.raises(harness.UsageError, match=re.escape(message)):
        parser_of(RECIPES[name]).parse_args(argv)


def test_the_description_is_the_first_paragraph_without_backticks():
    doc = "`zoo` does\na thing, `well`.\n\n    python -m x\n"
    assert flags.describe(doc) == "zoo does a thing, well."
    for recipe in RECIPES.values():
        description = parser_of(recipe).description
        assert "`" not in description and description.endswith(".")


@pytest.mark.parametrize("package", cli.HELP_PACKAGES)
def test_the_stored_help_is_what_the_parser_prints(package):
    """`--help` prints a stored text (it needs no Keras); it must be the
    live parser's. When this fails, run
    `python -c "from recipes import cli; cli.write_help_files()"`."""
    folder = cli.help_folder(package)
    for name, text in cli.help_texts(package).items():
        assert (folder / name).read_text(encoding="utf-8") == text, name


@pytest.mark.parametrize("argv", [["--help"], ["predict", "--help"]])
def test_help_imports_no_keras(tmp_path, argv):
    import os
    import subprocess
    import sys

    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text(
        "import sys\nsys.modules['keras'] = None\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "recipes.tagging", *argv],
        env={**os.environ, "PYTHONPATH": str(hide)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    name = "help.txt" if len(argv) == 1 else "help-predict.txt"
    assert (
        done.stdout == (cli.help_folder("recipes.tagging") / name).read_text()
    )
