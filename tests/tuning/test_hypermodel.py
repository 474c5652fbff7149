"""`tuning.StackedRNNHyperModel`: defaults (the recipe's), overrides,
conditional widths, the parameter budget, the fast path, trials built by
the recipe's task, and bad input (every backend)."""

import dataclasses

import keras
import keras_tuner as kt
import numpy as np
import pytest

import tuning
import zoo
from recipes import settings
from recipes import tagging
from zoo.walk import iter_layers
from zoo.walk import recurrent_layers

# A light baseline for the tests that train (the recipes' own default is
# bidirectional, residual and regularised): what they test is the search.
LIGHT = {
    "bidirectional": False,
    "residual": False,
    "inter_layer_dropout": 0.0,
    "embedding_dropout": 0.0,
}


def tagger(**kwargs):
    return tuning.StackedRNNHyperModel(
        "tagging", vocabulary_size=40, num_outputs=5, **kwargs
    )


def stack_of(model):
    return next(
        layer
        for layer in iter_layers(model)
        if isinstance(layer, zoo.StackedRNN)
    )


def rnn_layers(model):
    """`(cell, units)` of each recurrent layer, bottom first."""
    return [
        (entry["cell"], layer.units)
        for entry, layer in zip(
            zoo.fast_path_report(model), recurrent_layers(model), strict=True
        )
    ]


def test_empty_hyperparameters_build_the_recipes_default_model():
    hypermodel = tagger()
    hp = kt.HyperParameters()
    model = hypermodel.build(hp)
    assert hypermodel.choices(kt.HyperParameters()) == tuning.defaults()
    # The tagging recipe's default stack: 2 bidirectional residual layers.
    assert rnn_layers(model) == [("lstm", 128)] * 4
    stack = stack_of(model)
    config = stack.get_config()
    assert config["bidirectional"] is True and config["residual"] is True
    assert config["inter_layer_dropout"] == 0.25
    assert float(model.optimizer.learning_rate) == pytest.approx(0.002)
    # The defaults are what keras-tuner recorded, not a range's minimum.
    assert hp.values["learning_rate"] == pytest.approx(0.002)
    assert hp.values["batch_size"] == 32
    assert hp.values["units"] == 128 and hp.values["num_layers"] == 2


def test_a_trial_is_the_recipes_model_loss_and_metrics():
    """Built and compiled by the recipe's task: the same layers, loss and
    metrics as `recipes.tagging` builds for the same config."""
    hp = kt.HyperParameters()
    hp.Fixed("num_layers", 3)
    hypermodel = tagger(
        search=["num_layers"], defaults={"units": 8}, embedding_dim=4
    )
    model = hypermodel.build(hp)
    config = hypermodel.config_for(hypermodel.choices(hp))
    assert (config.num_layers, config.units, config.embedding_dim) == (3, 8, 4)
    recipe = tagging.TASK.compile(
        tagging.TASK.model_for(config, 5, vocabulary_size=40), config
    )
    assert [type(x).__name__ for x in iter_layers(model)] == [
        type(x).__name__ for x in iter_layers(recipe)
    ]
    assert model.count_params() == recipe.count_params()
    assert type(model.loss) is type(tagging.TASK.loss())
    classifier = tuning.StackedRNNHyperModel(
        "classification", vocabulary_size=30, num_outputs=3
    ).build(kt.HyperParameters())
    assert type(classifier.loss) is keras.losses.CategoricalCrossentropy
    assert "macro_f1" in str(classifier.get_compile_config())


def test_defaults_can_be_changed_and_unsearched_names_keep_them():
    hypermodel = tagger(
        search=["num_layers"],
        defaults={"cell": "gru", "units": 48, "bidirectional": False},
    )
    hp = kt.HyperParameters()
    model = hypermodel.build(hp)
    assert set(hp.values) == {"num_layers"}
    assert rnn_layers(model) == [("gru", 48), ("gru", 48)]


def test_fixed_values_override_the_search():
    hp = kt.HyperParameters()
    hp.Fixed("num_layers", 3)
    hp.Fixed("cell", "gru")
    hp.Fixed("units", 64)
    hp.Fixed("bidirectional", True)
    model = tagger().build(hp)
    assert rnn_layers(model) == [("gru", 64)] * 6  # forward and backward
    assert stack_of(model).get_config()["bidirectional"] is True


def _run_trials(tuner, count, score):
    """Creates and ends `count` trials without training (the space only)."""
    trials = []
    for _ in range(count):
        trial = tuner.oracle.create_trial("tester")
        if trial.status != "RUNNING":
            break
        tuner.oracle.update_trial(
            trial.trial_id, {"val_accuracy": score(trial.hyperparameters)}
        )
        trial.status = "COMPLETED"
        tuner.oracle.end_trial(trial)
        trials.append(trial)
    return trials


@pytest.mark.parametrize(
    "tuner_cls", [kt.RandomSearch, kt.BayesianOptimization]
)
def test_per_layer_widths_exist_only_for_existing_layers(tuner_cls, tmp_path):
    hypermodel = tagger(
        per_layer_units=True,
        search=["num_layers", "units"],
        ranges={"num_layers": (1, 4), "units": (8, 64, 8)},
    )
    tuner = tuner_cls(
        hypermodel,
        objective="val_accuracy",
        max_trials=14,
        directory=str(tmp_path),
        seed=3,
    )
    trials = _run_trials(
        tuner,
        14,
        lambda hp: hp.get("num_layers") / 10 + hp.get("units_1") / 1e3,
    )
    assert len(trials) == 14
    depths = set()
    for trial in trials:
        hp = trial.hyperparameters
        depth = hp.get("num_layers")
        depths.add(depth)
        for i in range(1, 5):
            name = f"units_{i}"
            assert hp.is_active(name) == (i <= depth), (name, hp.values)
            assert (name in hp.values) == (i <= depth), (name, hp.values)
        choices = hypermodel.choices(hp.copy())
        assert choices["units"] == [
            hp.get(f"units_{i}") for i in range(1, depth + 1)
        ]
    assert len(depths) > 1


def test_per_layer_widths_build_those_widths():
    hp = kt.HyperParameters()
    hp.Fixed("num_layers", 3)
    hypermodel = tagger(per_layer_units=True, defaults={"bidirectional": False})
    hypermodel.build(hp)  # declares units_1..units_3 (and inactive units_4)
    hp.values.update({"units_1": 32, "units_2": 64, "units_3": 96})
    model = hypermodel.build(hp)
    assert [u for _, u in rnn_layers(model)] == [32, 64, 96]
    assert not hp.is_active("units_4")


@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_budget_trials_have_the_budgeted_size(cell):
    budget = 60_000
    hypermodel = tagger(budget_params=budget, embedding_dim=16)
    widths = {False: [], True: []}
    for bidirectional in (False, True):
        for depth in (1, 2, 3, 4):
            hp = kt.HyperParameters()
            hp.Fixed("cell", cell)
            hp.Fixed("num_layers", depth)
            hp.Fixed("bidirectional", bidirectional)
            choices = hypermodel.choices(hp)
            stack = hypermodel.stack_params(choices)
            assert abs(stack - budget) / budget < 0.03, (depth, stack)
            assert "units" not in hp.values
            widths[bidirectional].append(choices["units"])
            if depth in (1, 4) and bidirectional:
                # The count is the built stack's (zoo.count_params is
                # property-tested against Keras too).
                model = hypermodel.build(hp)
                assert stack_of(model).count_params() == stack
    for row in widths.values():  # deeper stacks are narrower
        assert row == sorted(row, reverse=True) and len(set(row)) == 4


def test_trials_record_parameters_width_and_time(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.integers(1, 40, (48, 6))
    y = rng.integers(0, 5, (48, 6))
    hypermodel = tagger(
        search=["num_layers", "units", "batch_size"],
        ranges={"units": (4, 16, 4), "num_layers": (1, 2)},
        defaults=LIGHT,
        embedding_dim=8,
    )
    tuner = kt.RandomSearch(
        hypermodel,
        objective="val_accuracy",
        max_trials=2,
        directory=str(tmp_path),
        seed=1,
    )
    tuner.search(x, y, validation_data=(x, y), epochs=1, verbose=0)
    trials = list(tuner.oracle.trials.values())
    assert [t.status for t in trials] == ["COMPLETED", "COMPLETED"]
    for trial in trials:
        hp = trial.hyperparameters
        model = hypermodel.build(hp.copy())
        metrics = trial.metrics
        assert metrics.get_last_value("params") == model.count_params()
        assert metrics.get_last_value("width") == hp.get("units")
        assert metrics.get_last_value("stack_params") == (
            stack_of(model).count_params()
        )
        assert metrics.get_last_value("train_seconds") > 0


def test_default_space_stays_on_the_fused_path():
    hypermodel = tagger()
    for depth in (1, 3):
        hp = kt.HyperParameters()
        hp.Fixed("num_layers", depth)
        hp.Fixed("dropout", 0.3)
        hp.Fixed("inter_layer_dropout", 0.3)
        report = zoo.fast_path_report(hypermodel.build(hp))
        assert report and all(
            entry["backends"][b]["fused"]
            for entry in report
            for b in ("tensorflow", "jax")
        )
    assert "recurrent_dropout" not in tuning.DEFAULT_SEARCH
    opted = tagger(search=[*tuning.DEFAULT_SEARCH, "recurrent_dropout"])
    hp = kt.HyperParameters()
    hp.Fixed("recurrent_dropout", 0.2)
    report = zoo.fast_path_report(opted.build(hp))
    assert not any(e["backends"]["tensorflow"]["fused"] for e in report)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"ranges": {"num_layers": (4, 1)}}, "min 4 > max 1"),
        ({"ranges": {"units": (64, 32, 8)}}, "min 64 > max 32"),
        ({"ranges": {"cell": ()}}, "is empty"),
        ({"ranges": {"cell": ("lstm", "tcn")}}, "'tcn'"),
        ({"ranges": {"dropout": (0.0, 1.5)}}, "[0, 1)"),
        ({"ranges": {"depth": (1, 2)}}, "unknown name(s) ['depth']"),
        ({"search": ["cell", "width"]}, "unknown name(s) ['width']"),
        ({"budget_params": 500}, "too small for the space"),
        ({"budget_params": 10**6, "per_layer_units": True}, "per_layer_units"),
        ({"stack_options": {"units": 3}}, "give their values in `defaults`"),
        # Fixed values are checked by zoo.options.
        ({"defaults": {"dropout": 1.0}}, "`dropout` must be a float in [0, 1)"),
        ({"defaults": {"cell": "tcn"}}, "`cell` must be one of"),
        ({"defaults": {"learning_rate": 0}}, "finite number > 0"),
        ({"stack_options": {"merge_mode": "max"}}, "`merge_mode` must be one"),
        ({"stack_options": {"depth": 2}}, "'depth' is not a stack option"),
        ({"stack_options": {"return_sequences": True}}, "sets itself"),
        ({"ranges": {"units": (0, 32)}}, "must lie in [1, inf)"),
    ],
)
def test_bad_spaces_are_rejected_with_the_argument_named(kwargs, message):
    with pytest.raises(ValueError) as info:
        tagger(**kwargs)
    assert message in str(info.value)


@pytest.mark.parametrize(
    "task", ["tagging", "classification", "seq2seq", "translation"]
)
def test_the_defaults_are_the_recipes_config_defaults(task):
    config = tuning.hypermodel.RECIPES[task].Config()
    values = tuning.defaults(task)
    fields = {f.name for f in dataclasses.fields(config)}
    assert set(values) == set(tuning.SEARCHABLE) & fields
    assert values == {name: getattr(config, name) for name in values}
    # One place: the training defaults are the recipes' own.
    assert values["learning_rate"] == config.learning_rate
    assert settings.TrainingOptions().learning_rate == 0.002


def test_the_space_is_zoo_options_plus_a_training_table():
    for dimension in tuning.space.STACK:
        option = zoo.options.get(dimension.name)
        assert dimension.help == option.help
        assert (dimension.low, dimension.high) == (option.low, option.high)
    assert [d.name for d in tuning.space.TRAINING] == [
        "learning_rate",
        "batch_size",
        "seed",
    ]
    assert tuning.SEARCHABLE == tuning.space.NAMES
    # The character encoder's options are the tagger's dimensions only.
    assert "char_units" in tuning.defaults("tagging")
    assert "char_units" not in tuning.defaults("seq2seq")
    hp = kt.HyperParameters()
    hp.Fixed("char_units", 16)
    hp.Fixed("layer_norm", True)
    choices = tagger(search=["char_units", "layer_norm"]).choices(hp)
    assert choices["char_units"] == 16 and choices["layer_norm"] is True


def test_a_per_layer_default_infers_the_depth():
    hypermodel = tagger(
        search=[], defaults={"units": [8, 4], "num_layers": None}
    )
    assert hypermodel.defaults["num_layers"] == 2
    assert hypermodel.choices(kt.HyperParameters())["units"] == [8, 4]


def test_the_heads_are_the_zoos():
    tags = tagger(defaults={"units": 8}).build(kt.HyperParameters())
    assert tags.get_layer("tags").dtype == "float32"
    assert tags.output_shape == (None, None, 5)
    classifier = tuning.StackedRNNHyperModel(
        "classification",
        input_dim=3,
        num_outputs=4,
        defaults={"units": 8},
        stack_options={"merge_mode": "sum", "layer_norm": True},
    ).build(
        kt.HyperParameters(),
    )
    assert classifier.get_layer("classes").output.shape == (None, 4)
    assert stack_of(classifier).get_config()["layer_norm"] is True


def test_a_default_outside_the_choices_falls_back_to_the_first():
    hp = kt.HyperParameters()
    model = tagger(ranges={"cell": ("gru",), "batch_size": (8, 16)}).build(hp)
    assert {cell for cell, _ in rnn_layers(model)} == {"gru"}
    assert hp.values["cell"] == "gru" and hp.values["batch_size"] == 8


def test_per_layer_widths_at_a_fixed_depth():
    hp = kt.HyperParameters()
    hypermodel = tagger(
        per_layer_units=True, search=["units"], defaults={"num_layers": 3}
    )
    hypermodel.build(hp)
    assert sorted(hp.values) == ["units_1", "units_2", "units_3"]


def test_bad_problem_facts_are_rejected():
    with pytest.raises(ValueError, match="exactly one of"):
        tuning.StackedRNNHyperModel("tagging", num_outputs=3)
    with pytest.raises(ValueError, match="`task` must be one of"):
        tuning.StackedRNNHyperModel("ner", vocabulary_size=9, num_outputs=3)
    with pytest.raises(ValueError, match="seed'\\]` must be an integer"):
        tagger(defaults={"seed": -1})


def test_searched_batch_size_needs_arrays_or_a_data_function():
    import tensorflow as tf

    hypermodel = tagger(ranges={"units": (4, 8, 4)}, embedding_dim=4)
    hp = kt.HyperParameters()
    model = hypermodel.build(hp)
    ds = tf.data.Dataset.from_tensor_slices(
        (np.ones((4, 3), "int32"), np.zeros((4, 3), "int32"))
    ).batch(2)
    with pytest.raises(ValueError, match="`batch_size` is searched"):
        hypermodel.fit(hp, model, ds, epochs=1, verbose=0)


def test_classification_and_seq2seq_heads_build_and_train_a_step():
    rng = np.random.default_rng(0)
    x = rng.integers(1, 30, (8, 5))
    classifier = tuning.StackedRNNHyperModel(
        "classification",
        vocabulary_size=30,
        num_outputs=3,
        search=[],
        defaults={"units": 8, **LIGHT},
    )
    model = classifier.build(kt.HyperParameters())
    assert model.output_shape == (None, 3)
    # One-hot classes, as the recipe trains (for its macro F1).
    classes = np.eye(3, dtype="float32")[rng.integers(0, 3, 8)]
    model.fit(x, classes, epochs=1, verbose=0)
    features = tuning.StackedRNNHyperModel(
        "tagging", input_dim=6, num_outputs=4, defaults={"units": 8}
    ).build(kt.HyperParameters())
    assert features.output_shape == (None, None, 4)
    seq2seq = tuning.StackedRNNHyperModel(
        "seq2seq",
        vocabulary_size=30,
        num_outputs=12,
        search=[],
        defaults={"units": 8, "bidirectional": False},
    )
    model = seq2seq.build(kt.HyperParameters())
    targets = rng.integers(1, 12, (8, 4))
    model.fit((x, targets), targets, epochs=1, verbose=0)
    assert isinstance(model, keras.Model)


@pytest.mark.slow  # a whole search; the CLI search test runs in make test
def test_a_list_range_searches_those_values_and_a_grid_tries_each(tmp_path):
    hypermodel = tagger(
        search=["num_layers", "seed"],
        ranges={"num_layers": [1, 3], "seed": [0, 5]},
        defaults={"units": 4, **LIGHT},
        embedding_dim=4,
    )
    hp = kt.HyperParameters()
    hypermodel.choices(hp)
    assert [type(x).__name__ for x in hp.space] == ["Choice", "Choice"]
    assert hp.space[0].values == [1, 3]
    rng = np.random.default_rng(0)
    x, y = rng.integers(1, 40, (16, 5)), rng.integers(0, 5, (16, 5))
    tuner = kt.GridSearch(
        hypermodel, objective="val_accuracy", directory=str(tmp_path)
    )
    tuner.search(x, y, validation_data=(x, y), epochs=1, verbose=0)
    tried = sorted(
        (t.hyperparameters.get("num_layers"), t.hyperparameters.get("seed"))
        for t in tuner.oracle.trials.values()
    )
    assert tried == [(1, 0), (1, 5), (3, 0), (3, 5)]


def test_the_seed_sets_the_initial_weights():
    hypermodel = tagger(
        search=["seed"], ranges={"seed": [0, 1]}, defaults={"units": 4}
    )

    def weights(seed):
        hp = kt.HyperParameters()
        hp.Fixed("seed", seed)
        return hypermodel.build(hp).get_weights()

    first, again, other = weights(0), weights(0), weights(1)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other))
    assert "seed" not in tuning.DEFAULT_SEARCH


@pytest.mark.parametrize("task", ["seq2seq", "translation"])
def test_an_encoder_decoder_budget_counts_both_stacks(task):
    hypermodel = tuning.StackedRNNHyperModel(
        task,
        vocabulary_size=30,
        num_outputs=30,
        embedding_dim=16,
        budget_params=40_000,
        search=["num_layers"],
        ranges={"num_layers": [1, 2]},
    )
    for depth in (1, 2):
        hp = kt.HyperParameters()
        hp.Fixed("num_layers", depth)
        choices = hypermodel.choices(hp)
        assert abs(hypermodel.stack_params(choices) - 40_000) / 40_000 < 0.05
        model = hypermodel.build(hp)
        model((np.ones((1, 4), "int32"), np.ones((1, 3), "int32")))
        stacks = [
            x for x in iter_layers(model) if isinstance(x, zoo.StackedRNN)
        ]
        assert sum(s.count_params() for s in stacks) == (
            hypermodel.stack_params(choices)
        )


@pytest.mark.parametrize(
    "ranges, message",
    [
        ({"num_layers": [0, 2]}, "must lie in [1, inf)"),
        ({"num_layers": [2, 2]}, "distinct values"),
        ({"num_layers": [1.5, 2.0]}, "must be integers"),
        ({"seed": [-1]}, "must lie in [0, inf)"),
        ({"seed": [0.5]}, "must be integers"),
        ({"units": [8, "x"]}, "numbers of one type"),
    ],
)
def test_bad_value_lists_are_rejected(ranges, message):
    with pytest.raises(ValueError) as info:
        tagger(ranges=ranges)
    assert message in str(info.value)
