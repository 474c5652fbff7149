"""The recipes' settings come from `zoo.options`: one flag (with help and
choices) per stack option, `--config` values type-checked, the library's
ranges (every backend; nothing is trained)."""

import argparse
import dataclasses
import json

import pytest

import harness
import zoo
from harness import flags
from recipes import arguments
from recipes import classification
from recipes import cli
from recipes import g2p
from recipes import models
from recipes import settings
from recipes import tagging
from tests.helpers import usage_error

pytestmark = pytest.mark.every_backend

RECIPES = {
    "tagging": tagging,
    "classification": classification,
    "g2p": g2p,
}


def parser_of(recipe):
    return cli.parser_for(recipe.TASK, "recipe", "doc", recipe.HELP)


def actions_by_dest(parser):
    """The first flag of each setting (`--residual`, not `--no-residual`)."""
    actions = {}
    for action in parser._actions:  # argparse has no public list
        if action.option_strings and action.dest != "help":
            assert action.help, action.option_strings
            actions.setdefault(action.dest, action)
    return actions


def test_every_stack_option_not_set_by_the_recipes_is_a_setting():
    exposed = {
        option.name
        for option in zoo.options.STACK_OPTIONS
        if option.name not in settings.SET_BY_RECIPES
    }
    assert set(settings.STACK_FIELDS) == exposed
    fields = {f.name: f for f in dataclasses.fields(settings.StackOptions)}
    for name in settings.STACK_FIELDS:
        option = zoo.options.get(name)
        default = settings.RECIPE_DEFAULTS.get(name, option.default)
        assert fields[name].default == default, name
        if option.keras_object:  # a name, or a dict in a config file
            assert fields[name].type == str | dict | None, name
        else:
            assert fields[name].type is option.type, name
    # The recipes' own defaults, which differ from the library's.
    config = settings.StackOptions()
    assert (config.bidirectional, config.residual) == (True, True)
    assert config.inter_layer_dropout == 0.25 and config.num_layers == 2
    assert classification.Config().units == 64


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_every_flag_has_help_and_stack_flags_are_zoos(name):
    recipe = RECIPES[name]
    actions = actions_by_dest(parser_of(recipe))
    for dest, action in actions.items():
        assert action.help and not action.help.startswith("("), dest
    for field in settings.STACK_FIELDS:
        action = actions[field]
        assert flags.flag_of(field) in action.option_strings
        own = recipe.HELP.get(field) or settings.STACK_HELP[field]
        assert action.help.startswith(own), (field, action.help)
    # The stack's help is zoo's line (num_layers: a recipe gives no None).
    assert settings.STACK_HELP["dropout"] == zoo.options.get("dropout").help


def test_choices_are_listed_in_help_and_a_typo_fails_when_parsed():
    text = parser_of(tagging).format_help()
    assert "--cell {" + ",".join(zoo.options.CELLS) + "}" in text
    assert "--merge-mode {" + ",".join(zoo.options.MERGE_MODES) + "}" in text
    parser = parser_of(tagging)
    with pytest.raises(harness.UsageError, match=r"--cell must be one of"):
        parser.parse_args(["--cell", "lstn"])
    with pytest.raises(harness.UsageError, match=r"--merge-mode must be"):
        parser.parse_args(["--merge-mode", "max"])


# Bad flags on the command line: tests/recipes/test_tagging.py
# (test_cli_errors_exit_2_with_one_line).


def _config_error(path, tmp_path, capsys):
    """The one stderr line of the tagger run with `--config path`, which
    must exit 2."""
    argv = ["--config", str(path), "--output", str(tmp_path / "out")]
    return usage_error(tagging.main, argv, capsys)


@pytest.mark.parametrize(
    "suffix, text, message",
    [
        (".yaml", "learning_rate: '1e-3'\n", "`learning_rate` must be a float"),
        (".yaml", "dropout: .nan\n", "`dropout` must be finite: a float"),
        (".json", '{"dropout": NaN}', "`dropout` must be finite: a float"),
        (
            ".json",
            '{"learning_rate": Infinity}',
            "`learning_rate` must be a finite",
        ),
        (".json", '{"epochs": "3"}', "`epochs` must be an integer"),
        (".json", '{"units": "abc"}', "`units` must be an integer >= 1"),
        (".json", '{"units": null}', "`units` must be an integer; received"),
        (".json", '{"num_layers": 2.5}', "`num_layers` must be an integer"),
        (".yaml", "bidirectional: 'no'\n", "`bidirectional` must be True"),
        (".json", '{"units": [64, 0]}', "`units[1]` must be an integer >= 1"),
        (".json", '{"num_layers": [2, 3]}', "`num_layers` must be an int"),
        (".json", '{"dropout": 1.0}', "`dropout` must be a float in [0, 1)"),
        (".json", '{"tensorboard": 1}', "`tensorboard` must be True or"),
        (".json", '{"dataset": 3}', "`dataset` must be a string"),
    ],
)
def test_config_file_type_errors_exit_2_naming_the_key(
    suffix, text, message, tmp_path, capsys
):
    path = tmp_path / f"config{suffix}"
    path.write_text(text)
    err = _config_error(path, tmp_path, capsys)
    assert err.startswith(f"error: --config {path}: ") and message in err
    if "'1e-3'" in text:
        assert "a number in quotes is a string" in err


@pytest.mark.parametrize(
    "name, data, message",
    [
        (
            "bad.yaml",
            b"units: [1, 2\nepochs: 3\n",
            "cannot parse (line 2, column 7: while parsing a flow sequence "
            "expected ',' or ']'",
        ),
        ("bad.json", b'{"units": 3,}', "cannot parse (Expecting property"),
        (
            "latin.yaml",
            b"units: 3\n# caf\xe9\n",
            "not UTF-8 text (byte 0xe9 at offset 14); save it as UTF-8",
        ),
        (
            "twice.yaml",
            b"units: 3\nepochs: 1\nunits: 4\n",
            "the key 'units' is given twice (line 3); give each setting once",
        ),
        (
            "twice.json",
            b'{"units": 3, "units": 4}',
            "the key 'units' is given twice; give each setting once",
        ),
    ],
)
def test_a_config_file_that_does_not_parse_is_one_line(
    name, data, message, tmp_path, capsys
):
    path = tmp_path / name
    path.write_bytes(data)
    err = _config_error(path, tmp_path, capsys)
    assert err == f"error: --config {path}: {message}" or (
        err.startswith(f"error: --config {path}: {message}")
    ), err


@pytest.mark.parametrize("name", sorted(RECIPES))
@pytest.mark.parametrize(
    "argv, text",
    [
        (["--unroll"], None),
        ([], "activation: relu\nunroll: true\n"),
        ([], "unroll: [false, true]\nnum_layers: 2\n"),
    ],
)
def test_unroll_is_refused_before_any_data_is_read(
    name, argv, text, tmp_path, capsys, monkeypatch
):
    # Keras unrolls a fixed number of timesteps; the recipes' batches each
    # have their own length.
    monkeypatch.setattr(
        "recipes.training.train_and_evaluate",
        lambda *a, **k: pytest.fail("reached training"),
    )
    if text:
        path = tmp_path / "config.yaml"
        path.write_text(text)
        argv = [*argv, "--config", str(path)]
    with pytest.raises(SystemExit) as info:
        harness.run_cli(RECIPES[name].main, [*argv, "--output", str(tmp_path)])
    assert info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith("error: --unroll: received ")
    assert "Keras unrolls only a fixed number of timesteps" in err


@pytest.mark.parametrize(
    "text, value",
    [("1e-3", 1e-3), ("-2E+2", -200.0), ("3", 3), ("1.5e-4", 1.5e-4)],
)
def test_yaml_reads_exponents_as_numbers(text, value, tmp_path):
    # YAML 1.2's floats: PyYAML's YAML 1.1 reads `1e-3` (no dot) as a string.
    path = tmp_path / "config.yaml"
    path.write_text(f"learning_rate: {text}\n")
    read = flags.read_config_file(path)["learning_rate"]
    assert read == pytest.approx(value) and not isinstance(read, str)


def resolve(tmp_path, values, *argv, recipe=tagging):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(values))
    parser = argparse.ArgumentParser()
    arguments.add_config_arguments(parser, recipe.Config, recipe.HELP)
    args = parser.parse_args(["--config", str(path), *argv])
    return arguments.resolve_config(recipe.Config, args)


def test_per_layer_lists_are_allowed_where_the_option_is_per_layer(tmp_path):
    config = resolve(
        tmp_path,
        {
            "units": [16, 8],
            "bidirectional": [True, False],
            "cell": ["gru", "lstm"],
            "dropout": [0, 0.2],
            "learning_rate": 1,
        },
    )
    assert config.units == [16, 8] and config.cell == ["gru", "lstm"]
    assert config.dropout == [0.0, 0.2] and config.learning_rate == 1.0
    arguments.check_training(config)
    stack = models.backbone(
        dataclasses.replace(config, embedding_dim=8), vocabulary_size=20
    )
    widths = [
        spec.units
        for layer in stack.layers
        if isinstance(layer, zoo.StackedRNN)
        for spec in layer.layer_specs
    ]
    assert widths == [16, 8]


def test_the_library_range_is_the_rule():
    config = tagging.Config(dropout=0.97, weight_drop=0.99)
    arguments.check_training(config)  # [0, 1), as zoo.StackedRNN takes
    for name in ("dropout", "recurrent_dropout", "embedding_dropout"):
        with pytest.raises(harness.UsageError) as info:
            arguments.check_training(dataclasses.replace(config, **{name: 1.0}))
        flag = flags.flag_of(name)
        message = str(info.value)
        assert message.startswith(f"{flag} must be a float in [0, 1)")
        assert message.endswith("; received 1.0")
    with pytest.raises(harness.UsageError, match=r"^--units\[1\] must be"):
        arguments.check_training(dataclasses.replace(config, units=[8, -1]))
    parser = parser_of(tagging)
    assert parser.parse_args(["--dropout", "0.97"]).dropout == 0.97


def test_residual_takes_auto_and_flags_win_over_the_file(tmp_path):
    parser = parser_of(tagging)
    for argv, value in (
        (["--residual"], True),
        (["--residual", "auto"], "auto"),
        (["--no-residual"], False),
        ([], None),
    ):
        assert parser.parse_args(argv).residual == value, argv
    config = resolve(tmp_path, {"residual": "auto", "units": 8}, "--units", "4")
    assert (config.residual, config.units) == ("auto", 4)
    arguments.check_training(config)


def test_a_model_leaves_the_stack_options_not_given_to_the_variant(tmp_path):
    config = resolve(tmp_path, {"dropout": 0.1}, "--model", "lstm_tiny")
    given = {"dropout": 0.1}
    for name in settings.STACK_FIELDS:
        assert getattr(config, name) == given.get(name), name
    arguments.check_training(config)
    assert settings.stack_options(config) == {"dropout": 0.1, "seed": 0}


def test_keras_options_are_flags_and_config_entries(tmp_path):
    parser = parser_of(RECIPES["tagging"])
    args = parser.parse_args(
        ["--activation", "relu", "--kernel-regularizer", "l2", "--no-use-bias"]
    )
    assert (args.activation, args.kernel_regularizer) == ("relu", "l2")
    assert args.use_bias is False
    with pytest.raises(
        harness.UsageError, match=r"^--activation must be a Keras"
    ):
        parser.parse_args(["--activation", "nope"])
    regularizer = {"class_name": "L2", "config": {"l2": 0.001}}
    assert arguments.check_setting("kernel_regularizer", regularizer, dict) == (
        regularizer
    )
    with pytest.raises(ValueError, match=r"`kernel_initializer\[1\]` must"):
        arguments.check_setting("kernel_initializer", ["ones", "nope"], str)


def test_train_and_eval_examples_cut_each_split_to_a_seeded_sample(tmp_path):
    from tests.recipes.test_tagging import tiny_config

    full = tagging.TASK.load_data(tiny_config(tmp_path / "a"))
    config = tiny_config(tmp_path / "b", train_examples=50, eval_examples=10)
    cut = tagging.TASK.load_data(config)
    assert (len(cut.train), len(cut.dev), len(cut.test)) == (50, 10, 10)
    assert all(sentence in full.train for sentence in cut.train)
    assert tagging.TASK.load_data(config).train == cut.train  # seeded
    # --sample-seed draws another sample of the same size; dev and test
    # stay as they were (one held-out sample for every training sample).
    other = tagging.TASK.load_data(dataclasses.replace(config, sample_seed=1))
    assert len(other.train) == 50 and other.train != cut.train
    assert all(sentence in full.train for sentence in other.train)
    assert (other.dev, other.test) == (cut.dev, cut.test)
    # With --quick the smaller size wins; 0 leaves a split whole.
    both = dataclasses.replace(config, quick=True, eval_examples=0)
    data = tagging.TASK.load_data(both)
    assert len(data.train) == 50
    assert len(data.dev) == min(len(full.dev), tagging.QUICK_SENTENCES[1])
    _, parts = g2p.load_data(g2p.Config(train_examples=100, eval_examples=20))
    assert [len(part) for part in parts] == [100, 20, 20]


def test_a_training_sample_holds_every_tag_that_dev_and_test_hold():
    """`--train-examples N` on a corpus with rare tags: the seeded sample,
    mended so that each held-out tag occurs (the recipe refuses a tag it
    cannot learn), still N items; unchanged where nothing is missing."""
    from recipes.data import splits

    common = [([f"w{i}"], ["O"]) for i in range(200)]
    rare = [(["Ann"], ["B-person"]), (["New", "York"], ["B-loc", "I-loc"])]
    items = common[:120] + rare[:1] + common[120:] + rare[1:]

    def tags(item):
        return item[1]

    needed = {"O", "B-person", "B-loc", "I-loc"}
    plain = splits.quick_subset(items, 10)
    assert not any(item in plain for item in rare)  # seed 0 misses both
    mended = splits.covering_subset(items, 10, tags, needed)
    assert len(mended) == 10
    assert {t for item in mended for t in tags(item)} == needed
    assert set(map(str, mended)) - set(map(str, rare)) <= set(map(str, plain))
    assert mended == splits.covering_subset(items, 10, tags, needed)
    # Nothing missing: the plain sample; a tag no item has is let be.
    assert splits.covering_subset(items, 10, tags, {"O"}) == plain
    assert splits.covering_subset(items, 10, tags, {"O", "B-x"}) == plain
    # Too small to hold them all: the size wins.
    assert len(splits.covering_subset(items, 1, tags, needed)) == 1


def test_pretrained_auto_is_the_shipped_bilm_where_it_was_measured_to_win(
    tmp_path,
):
    """`--pretrained auto` (the default) is resolved when the config is
    made, so that `config.json` names the biLM; 'none' is none."""
    assert tagging.Config().pretrained == tagging.AUTO_PRETRAINED
    assert zoo.presets.metadata(tagging.AUTO_PRETRAINED)["kind"] == (
        "language_model"
    )
    for values, expected in (
        ({}, "en_bilm_v2"),
        ({"dataset": "wnut16"}, "en_bilm_v2"),
        ({"tagset": "brown"}, ""),  # not measured with the full tagset
        ({"dataset": "turkish-ud"}, ""),  # an English biLM
        ({"corpus_dir": "mine"}, ""),  # a user's corpus
        ({"init_from": "m.keras"}, ""),  # keeps the biLM it has
        ({"pretrained": "none"}, ""),
        ({"pretrained": "None"}, ""),
        ({"pretrained": ""}, ""),
        ({"pretrained": "runs/bilm"}, "runs/bilm"),
    ):
        assert tagging.Config(**values).pretrained == expected, values
    # BBC was level with and without it: the classifier's auto is none.
    assert classification.Config().pretrained == ""
    assert classification.Config(dataset="sentiment").pretrained == ""
    # Through the command line and a config file, flags winning.
    config = resolve(tmp_path, {"pretrained": "none"}, "--dataset", "wnut16")
    assert config.pretrained == ""
    config = resolve(tmp_path, {"pretrained": "auto"}, "--dataset", "wnut16")
    assert config.pretrained == "en_bilm_v2"
    config = resolve(tmp_path, {}, "--pretrained", "none")
    assert config.pretrained == ""
    help_text = " ".join(
        actions_by_dest(parser_of(tagging))["pretrained"].help.split()
    )
    assert "'auto'" in help_text and "wnut16" in help_text
    # A preset's retraining command names the biLM only where `auto`
    # would not give it, and no biLM as `none`.
    from recipes import presets

    for values, flag in (
        ({}, None),
        ({"pretrained": "none"}, "--pretrained none"),
        ({"dataset": "turkish-ud"}, None),
        (
            {"dataset": "turkish-ud", "pretrained": "en_bilm"},
            "--pretrained en_bilm",
        ),
    ):
        line = presets.command_line(
            "recipes.tagging", tagging.Config(output="x", **values)
        )
        assert (flag in line) if flag else "--pretrained" not in line, line
