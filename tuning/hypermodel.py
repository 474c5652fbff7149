"""`StackedRNNHyperModel`: the zoo's stacks as a keras-tuner search space."""

import contextlib
import math
import time

import keras
import keras_tuner as kt
import numpy as np

import zoo

TASKS = ("tagging", "classification", "seq2seq")
CELLS = zoo.options.CELLS

# The stack options searched (`zoo.options`); every other one is fixed for
# all trials (`stack_options`).
SEARCHED_OPTIONS = (
    "cell",
    "num_layers",
    "units",
    "bidirectional",
    "residual",
    "inter_layer_dropout",
    "dropout",
    "recurrent_dropout",
)
# The training settings searched with them: Adam's default learning rate,
# `fit`'s default batch size, and the seed of the initial weights and
# dropout masks (searched, it makes replicates: `seed=0,1,2` in a grid).
TRAINING_DEFAULTS = {"learning_rate": 1e-3, "batch_size": 32, "seed": 0}
# The depth `zoo.StackedRNN` infers for `num_layers=None` (its default)
# when no per-layer list gives one.
INFERRED_DEPTH = 2
# Options the hypermodel sets itself (its inputs and its head's).
SET_BY_HYPERMODEL = (
    "vocabulary_size",
    "embedding_dim",
    "return_sequences",
    "return_state",
    "output",
)


def _zoo_defaults():
    library = zoo.options.defaults()
    values = {name: library[name] for name in SEARCHED_OPTIONS}
    if values["num_layers"] is None:
        values["num_layers"] = INFERRED_DEPTH
    return {**values, **TRAINING_DEFAULTS}


# The untuned baseline: the zoo's defaults (`zoo.options.defaults()`),
# Adam's default learning rate and `fit`'s default batch.
ZOO_DEFAULTS = _zoo_defaults()
SEARCHABLE = tuple(ZOO_DEFAULTS)
# `recurrent_dropout` is left out: it is the one option that takes LSTM and
# GRU layers off the fused cuDNN kernel (and halves CPU speed); `seed` is
# no hyperparameter to tune, only to repeat a trial with.
DEFAULT_SEARCH = tuple(
    n for n in SEARCHABLE if n not in ("recurrent_dropout", "seed")
)
DEFAULT_RANGES = {
    "cell": ("lstm", "gru"),
    "num_layers": (1, 4),
    "units": (32, 256, 32),
    "inter_layer_dropout": (0.0, 0.5, 0.1),
    "dropout": (0.0, 0.5, 0.1),
    "recurrent_dropout": (0.0, 0.5, 0.1),
    "learning_rate": (1e-4, 1e-2),
    "batch_size": (16, 32, 64),
    "seed": (0, 2),
}


class Values(tuple):
    """A range given as the values themselves (a keras-tuner `Choice`):
    what a list in `ranges` becomes, e.g. `ranges={"num_layers": [1, 2, 4,
    8]}`; a tuple is an interval `(min, max[, step])`."""


# Per-trial facts added to each trial's metrics (and its History).
FACTS = ("params", "stack_params", "width", "train_seconds")


class StackedRNNHyperModel(kt.HyperModel):
    """A stacked RNN whose depth, width, cell and regularisation are tuned.

    The model is built by the zoo's builders (`zoo.stacked_rnn`,
    `zoo.build_seq2seq`); this class only declares the search space and
    turns a trial's values into builder arguments. `build(HyperParameters())`
    builds the untuned baseline: every hyperparameter's default is the zoo
    default (or the value given in `defaults`).

    | name | kind | default range | default |
    |---|---|---|---|
    | `cell` | Choice | `lstm`, `gru` | `lstm` |
    | `num_layers` | Int | 1 .. 4 | 2 |
    | `units` | Int, step 32 | 32 .. 256 | 128 |
    | `units_1` .. `units_L` | Int (with `per_layer_units`) | as `units` | 128 |
    | `bidirectional` | Boolean | | False |
    | `residual` | Boolean | | False |
    | `inter_layer_dropout` | Float, step 0.1 | 0 .. 0.5 | 0.0 |
    | `dropout` | Float, step 0.1 | 0 .. 0.5 | 0.0 |
    | `recurrent_dropout` | Float (opt-in) | 0 .. 0.5 | 0.0 |
    | `learning_rate` | Float, log | 1e-4 .. 1e-2 | 1e-3 |
    | `batch_size` | Choice | 16, 32, 64 | 32 |
    | `seed` | Int (opt-in) | 0 .. 2 | 0 |

    A range given as a list (`ranges={"num_layers": [1, 2, 4, 8]}`) is
    searched as those values (a `Choice`), so a grid (`keras_tuner.
    GridSearch`) tries exactly them; `seed` in `search` repeats every
    configuration with other initial weights and dropout masks (the data
    order stays the one of the recipe's `--seed`).

    With `per_layer_units=True`, layer `i` (1-based) has its own width
    `units_i`, declared in `hp.conditional_scope("num_layers", [i, ...])`:
    a 2-layer trial has `units_1` and `units_2` active and no `units_3`.
    With `budget_params`, no width is searched: each trial's width is
    `zoo.width_for_budget` for its cell, depth and bidirectionality, so
    every trial's recurrent stack has about `budget_params` parameters
    (the embedding and the output layer are not counted; they do not
    change with depth); for `"seq2seq"` the budget counts the encoder's
    and the decoder's stacks together (`decoder=True`).
    `recurrent_dropout` is searched only when named in `search`; every
    other option keeps LSTM and GRU on the fused kernel.

    Each trial's History (and so its keras-tuner metrics) also records
    `params` (the whole model), `stack_params` (the recurrent stack, what
    the budget counts), `width` (mean units per layer) and
    `train_seconds`.

    Args:
        task: `"tagging"` (a softmax per timestep), `"classification"` (a
            softmax on the final state) or `"seq2seq"` (`zoo.build_seq2seq`
            with `num_outputs` target ids); ignored when `build_model` is
            given.
        num_outputs: number of tags, classes or target ids.
        vocabulary_size: size of the token vocabulary (id 0 is padding);
            or give `input_dim` for float features (not for seq2seq).
        input_dim: feature width of float inputs.
        embedding_dim: embedding width for token inputs.
        search: names of the hyperparameters to search (see the table);
            the others keep their default.
        ranges: per-name overrides of the ranges: `(min, max)` or `(min,
            max, step)` for numbers, a tuple of choices for `cell` and
            `batch_size`.
        defaults: per-name overrides of the defaults (the baseline).
        per_layer_units: one width per layer instead of one for all.
        budget_params: a parameter budget for the recurrent stack; the
            width follows from it (and is not searched).
        stack_options: further fixed `zoo.stacked_rnn` options for every
            trial (`merge_mode`, `highway`, `layer_norm`, `weight_drop`,
            `embedding_dropout`, `seed`, ...).
        build_model: optional `callable(choices) -> compiled keras.Model`
            replacing the built-in heads; `choices` is `self.choices(hp)`.
        data: optional `callable(batch_size) -> (train, validation)`, used
            by `fit` instead of the data passed to `search`, so that a
            searched batch size also applies to `tf.data` pipelines.
        name, tunable: as for `keras_tuner.HyperModel`.

    Example:
    ```python
    hypermodel = tuning.StackedRNNHyperModel(
        "tagging", vocabulary_size=20_000, num_outputs=13,
        ranges={"num_layers": (1, 6)}, per_layer_units=True)
    tuner = keras_tuner.RandomSearch(
        hypermodel, objective="val_accuracy", max_trials=20)
    tuner.search(x, y, validation_data=(x_val, y_val), epochs=5)
    ```
    """

    def __init__(
        self,
        task="tagging",
        *,
        num_outputs=None,
        vocabulary_size=None,
        input_dim=None,
        embedding_dim=64,
        search=DEFAULT_SEARCH,
        ranges=None,
        defaults=None,
        per_layer_units=False,
        budget_params=None,
        stack_options=None,
        build_model=None,
        data=None,
        name=None,
        tunable=True,
    ):
        super().__init__(name=name, tunable=tunable)
        stack_options = dict(stack_options or {})
        if "seed" in stack_options:  # a fixed seed is the seed's default
            defaults = {"seed": stack_options.pop("seed"), **(defaults or {})}
        if build_model is None:
            _check_choice("task", task, TASKS)
            _check_positive("num_outputs", num_outputs)
            if (vocabulary_size is None) == (input_dim is None):
                raise ValueError(
                    "Pass exactly one of `vocabulary_size` (token ids) or "
                    f"`input_dim` (float features); received vocabulary_size="
                    f"{vocabulary_size!r}, input_dim={input_dim!r}."
                )
            if task == "seq2seq" and vocabulary_size is None:
                raise ValueError(
                    "task='seq2seq' reads token ids: pass `vocabulary_size`; "
                    f"received input_dim={input_dim!r}."
                )
        self.task = task
        self.num_outputs = num_outputs
        self.vocabulary_size = vocabulary_size
        self.input_dim = input_dim
        self.embedding_dim = _check_positive("embedding_dim", embedding_dim)
        self.search = _check_search(search)
        self.ranges = _check_ranges({**DEFAULT_RANGES, **(ranges or {})})
        self.defaults = _check_defaults({**ZOO_DEFAULTS, **(defaults or {})})
        self.per_layer_units = bool(per_layer_units)
        self.stack_options = _check_stack_options(stack_options or {})
        self.build_model = build_model
        self.data = data
        self.budget_params = None
        if budget_params is not None:
            self.budget_params = _check_positive("budget_params", budget_params)
            if per_layer_units:
                raise ValueError(
                    "`budget_params` derives one width per trial; it cannot "
                    "be combined with per_layer_units=True."
                )
            self._check_budget()

    # The space ---------------------------------------------------------

    @property
    def input_width(self):
        """The feature width entering the first recurrent layer."""
        if self.input_dim is not None:
            return self.input_dim
        return self.embedding_dim

    def _value(self, hp, name):
        """The trial's value of `name`: searched, or its default."""
        default = self.defaults[name]
        if name not in self.search:
            return default
        if name in SEARCHED_OPTIONS and zoo.options.get(name).type is bool:
            return hp.Boolean(name, default=bool(default))
        low_high = self.ranges[name]
        if isinstance(low_high, Values):
            choices = list(low_high)
            default = default if default in choices else choices[0]
            return hp.Choice(name, choices, default=default)
        if name in ("cell", "batch_size"):
            # The default (the baseline) when it is a choice, else the first.
            choices = list(low_high)
            default = default if default in choices else choices[0]
            return hp.Choice(name, choices, default=default)
        if name == "learning_rate":
            low, high = low_high[:2]
            return hp.Float(
                name,
                low,
                high,
                sampling="log",
                default=_clip(default, low, high),
            )
        if name in ("num_layers", "seed"):
            low, high = low_high[:2]
            return hp.Int(name, low, high, default=_clip(default, low, high))
        low, high, step = _with_step(name, low_high)
        if name == "units":
            return hp.Int(
                name,
                low,
                high,
                step=step,
                default=_snap(default, low, high, step),
            )
        return hp.Float(
            name, low, high, step=step, default=_snap(default, low, high, step)
        )

    def choices(self, hp):
        """The builder arguments of a trial: one dict with every searchable
        name (`units` is a list with per-layer widths) plus `stack_options`.
        """
        values = {
            name: self._value(hp, name)
            for name in SEARCHABLE
            if name != "units"
        }
        num_layers = values["num_layers"]
        if self.budget_params is not None:
            values["units"] = self._budget_width(
                values["cell"],
                num_layers,
                values["bidirectional"],
                values["residual"],
            )
        elif self.per_layer_units and "units" in self.search:
            widths_range = self.ranges["units"]
            if isinstance(widths_range, Values):
                default = self.defaults["units"]
                default = (
                    default if default in widths_range else widths_range[0]
                )
            else:
                low, high, step = _with_step("units", widths_range)
                default = _snap(self.defaults["units"], low, high, step)
            maximum = self._max_layers()
            widths = []
            searched_depth = "num_layers" in self.search
            for i in range(1, maximum + 1):
                layers = list(range(i, maximum + 1))
                with contextlib.ExitStack() as scope:
                    if searched_depth:  # units_i exists iff layer i does
                        scope.enter_context(
                            hp.conditional_scope("num_layers", layers)
                        )
                    if isinstance(widths_range, Values):
                        width = hp.Choice(
                            f"units_{i}", list(widths_range), default=default
                        )
                    else:
                        width = hp.Int(
                            f"units_{i}", low, high, step=step, default=default
                        )
                if i <= num_layers:
                    widths.append(width)
            values["units"] = widths
        else:
            values["units"] = self._value(hp, "units")
        return {**values, **self.stack_options}

    def _max_layers(self):
        if "num_layers" in self.search:
            depths = self.ranges["num_layers"]
            return int(max(depths) if isinstance(depths, Values) else depths[1])
        return int(self.defaults["num_layers"])

    def _budget_options(self, bidirectional, residual):
        keys = ("merge_mode", "highway", "layer_norm")
        options = {
            k: self.stack_options[k] for k in keys if k in self.stack_options
        }
        return dict(bidirectional=bidirectional, residual=residual, **options)

    def _budget_width(self, cell, num_layers, bidirectional, residual):
        return zoo.width_for_budget(
            cell,
            self.input_width,
            num_layers,
            self.budget_params,
            decoder=self.task == "seq2seq",
            **self._budget_options(bidirectional, residual),
        )

    def _check_budget(self):
        """Every cell and depth of the space must fit the budget."""
        cells = (
            self.ranges["cell"]
            if "cell" in self.search
            else (self.defaults["cell"],)
        )
        depth = self._max_layers()
        bidirectional = (
            "bidirectional" in self.search or self.defaults["bidirectional"]
        )
        residual = "residual" in self.search or self.defaults["residual"]
        for cell in cells:
            smallest = self._stack_count(
                cell, 1, depth, bidirectional, residual
            )
            if smallest > self.budget_params:
                raise ValueError(
                    f"`budget_params`={self.budget_params} is too small for "
                    f"the space: a {depth}-layer "
                    f"{'bidirectional ' if bidirectional else ''}{cell} stack "
                    f"on input width {self.input_width} has {smallest} "
                    "parameters at units=1; raise the budget or lower the "
                    "largest num_layers."
                )

    def stack_params(self, choices):
        """Parameters of the recurrent stack (what the budget counts)."""
        return self._stack_count(
            choices["cell"],
            choices["units"],
            choices["num_layers"],
            choices["bidirectional"],
            choices["residual"],
        )

    def _stack_count(self, cell, units, num_layers, bidirectional, residual):
        """What the budget counts: the stack, and for seq2seq the decoder's
        stack too (as `zoo.width_for_budget(decoder=True)` does)."""
        options = self._budget_options(bidirectional, residual)
        total = zoo.count_params(
            cell, self.input_width, units, num_layers=num_layers, **options
        )
        if self.task == "seq2seq":
            options.pop("bidirectional")
            options.pop("merge_mode", None)
            total += zoo.count_params(
                cell, self.input_width, units, num_layers=num_layers, **options
            )
        return total

    # keras-tuner -------------------------------------------------------

    def build(self, hp):
        choices = self.choices(hp)
        # Every trial starts from its seed: the same configuration and seed
        # build the same initial weights, another seed makes a replicate.
        keras.utils.set_random_seed(int(choices["seed"]))
        if self.build_model is not None:
            return self.build_model(choices)
        return self._build_head(choices)

    def _build_head(self, choices):
        """The zoo's model for the task: `zoo.build_seq2seq`, or a
        `zoo.stacked_rnn` encoder under `zoo.heads.sequence_tagger` /
        `sequence_classifier` (on its final state)."""
        fixed = {
            k: v
            for k, v in self.stack_options.items()
            if k != "embedding_dropout"
        }
        stack = {
            **{k: choices[k] for k in SEARCHED_OPTIONS if k in choices},
            **fixed,
            "seed": choices["seed"],
        }
        cell = stack.pop("cell")
        num_layers = stack.pop("num_layers")
        units = stack.pop("units")
        if self.task == "seq2seq":
            model = zoo.build_seq2seq(
                self.vocabulary_size,
                self.num_outputs,
                cell,
                num_layers,
                units,
                embedding_dim=self.embedding_dim,
                **stack,
            )
        else:
            inputs = (
                {
                    "vocabulary_size": self.vocabulary_size,
                    "embedding_dim": self.embedding_dim,
                    "embedding_dropout": self.stack_options.get(
                        "embedding_dropout", 0.0
                    ),
                }
                if self.vocabulary_size is not None
                else {"input_dim": self.input_dim}
            )
            encoder = zoo.stacked_rnn(
                cell,
                num_layers,
                units,
                return_sequences=self.task == "tagging",
                name="encoder",
                **inputs,
                **stack,
            )
            if self.task == "tagging":
                model = zoo.heads.sequence_tagger(
                    encoder, self.num_outputs, name="tagging_model"
                )
            else:
                model = zoo.heads.sequence_classifier(
                    encoder,
                    self.num_outputs,
                    pooling="last",
                    name="classification_model",
                )
        model.compile(
            optimizer=keras.optimizers.Adam(choices["learning_rate"]),
            loss="sparse_categorical_crossentropy",
            weighted_metrics=[
                keras.metrics.SparseCategoricalAccuracy(name="accuracy")
            ],
        )
        return model

    def fit(self, hp, model, *args, **kwargs):
        """`model.fit` with the trial's batch size; records the facts."""
        choices = self.choices(hp)
        if self.data is not None:
            if args or "x" in kwargs:
                raise ValueError(
                    "This hypermodel reads its data from `data`; call "
                    "search() without x, y and validation_data."
                )
            train, validation = self.data(choices["batch_size"])
            args = (train,)
            kwargs["validation_data"] = validation
        else:
            x = args[0] if args else kwargs.get("x")
            if _is_array(x):
                kwargs.setdefault("batch_size", choices["batch_size"])
            elif "batch_size" in self.search:
                raise ValueError(
                    "`batch_size` is searched, but search() received "
                    f"{type(x).__name__} data, which carries its own batch "
                    "size: pass arrays, give the hypermodel `data=` (a "
                    "function of the batch size), or leave batch_size out "
                    "of `search`."
                )
        start = time.perf_counter()
        history = model.fit(*args, **kwargs)
        facts = self.facts(choices, model)
        facts["train_seconds"] = round(time.perf_counter() - start, 2)
        for name, value in facts.items():
            history.history[name] = [value] * len(history.epoch)
        return history

    def facts(self, choices, model):
        """`params`, `stack_params` and `width` of a built trial model."""
        units = choices["units"]
        widths = units if isinstance(units, list) else [units]
        facts = {
            "params": int(model.count_params()),
            "width": float(np.mean(widths)),
        }
        try:
            facts["stack_params"] = int(self.stack_params(choices))
        except (ValueError, KeyError):
            pass
        return facts


def _is_array(x):
    return isinstance(x, (np.ndarray, list, tuple, dict)) or hasattr(
        x, "__array__"
    )


def _check_choice(name, value, allowed):
    if value not in allowed:
        raise ValueError(
            f"`{name}` must be one of {list(allowed)}; received {value!r}."
        )
    return value


def _check_positive(name, value):
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, np.integer))
        or value < 1
    ):
        raise ValueError(
            f"`{name}` must be a positive integer; received {value!r}."
        )
    return int(value)


def _check_defaults(defaults):
    """The baseline's values: the stack options checked by
    `zoo.options.validate`, the training settings by range."""
    unknown = sorted(set(defaults) - set(SEARCHABLE))
    if unknown:
        raise ValueError(
            f"`defaults` has unknown name(s) {unknown}; allowed: "
            f"{list(SEARCHABLE)}."
        )
    for name in SEARCHED_OPTIONS:
        try:
            defaults[name] = zoo.options.validate(name, defaults[name])
        except ValueError as error:
            raise ValueError(f"`defaults`: {error}") from None
    if defaults["num_layers"] is None:  # the library's default: inferred
        units = defaults["units"]
        defaults["num_layers"] = (
            len(units) if isinstance(units, list) else INFERRED_DEPTH
        )
    _check_positive("defaults['batch_size']", defaults["batch_size"])
    seed = defaults["seed"]
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(
            f"`defaults['seed']` must be an integer >= 0; received {seed!r}."
        )
    rate = defaults["learning_rate"]
    if (
        isinstance(rate, bool)
        or not isinstance(rate, (int, float))
        or not math.isfinite(rate)
        or rate <= 0
    ):
        raise ValueError(
            "`defaults['learning_rate']` must be a finite number > 0; "
            f"received {rate!r}."
        )
    return defaults


def _check_stack_options(stack_options):
    """The fixed options, each checked by `zoo.options.validate`."""
    stack_options = dict(stack_options)
    clash = sorted(set(stack_options) & set(SEARCHABLE))
    if clash:
        raise ValueError(
            f"`stack_options` sets {clash}, which are hyperparameters: "
            "give their values in `defaults` instead."
        )
    own = sorted(set(stack_options) & set(SET_BY_HYPERMODEL))
    if own:
        raise ValueError(
            f"`stack_options` sets {own}, which the hypermodel sets itself "
            "(from its arguments and its task)."
        )
    for name, value in stack_options.items():
        try:
            stack_options[name] = zoo.options.validate(name, value)
        except ValueError as error:
            raise ValueError(f"`stack_options`: {error}") from None
    return stack_options


def _check_search(search):
    if isinstance(search, str):
        search = [s for s in search.split(",") if s]
    search = tuple(search)
    unknown = sorted(set(search) - set(SEARCHABLE))
    if unknown:
        raise ValueError(
            f"`search` has unknown name(s) {unknown}; allowed: "
            f"{list(SEARCHABLE)}."
        )
    return search


def _check_ranges(ranges):
    unknown = sorted(set(ranges) - set(DEFAULT_RANGES))
    if unknown:
        raise ValueError(
            f"`ranges` has unknown name(s) {unknown}; allowed: "
            f"{sorted(DEFAULT_RANGES)}."
        )
    for name, value in ranges.items():
        if isinstance(value, list) and name not in ("cell", "batch_size"):
            ranges[name] = _check_values(name, value)
            continue
        value = tuple(value)
        ranges[name] = value
        if not value:
            raise ValueError(f"`ranges[{name!r}]` is empty.")
        if name == "cell":
            for cell in value:
                try:
                    zoo.options.get("cell").check_entry("cell", cell)
                except ValueError as error:
                    raise ValueError(
                        f"`ranges['cell']` has a bad entry: {error}"
                    ) from None
            continue
        if name == "batch_size":
            for size in value:
                _check_positive("ranges['batch_size'] entries", size)
            continue
        if len(value) not in (2, 3):
            raise ValueError(
                f"`ranges[{name!r}]` must be (min, max) or (min, max, step); "
                f"received {value!r}."
            )
        low, high = value[:2]
        if low > high:
            raise ValueError(
                f"`ranges[{name!r}]` is empty: min {low} > max {high}."
            )
        if name in SEARCHED_OPTIONS:  # the bounds are the option's
            option = zoo.options.get(name)
            for bound in (low, high):
                try:
                    option.check_entry(name, bound)
                except ValueError:
                    raise ValueError(
                        f"`ranges[{name!r}]` must lie in {_interval(option)}; "
                        f"received {value!r}."
                    ) from None
        if name == "learning_rate" and low <= 0:
            raise ValueError(
                f"`ranges['learning_rate']` must be > 0 (log sampling); "
                f"received {value!r}."
            )
        if len(value) == 3 and value[2] <= 0:
            raise ValueError(
                f"`ranges[{name!r}]` step must be > 0; received {value!r}."
            )
    return ranges


def _check_values(name, values):
    """A range given as its values (a list): each one checked as the
    option's own value (`zoo.options`) or the training setting's."""
    if not values or len(set(values)) != len(values):
        raise ValueError(
            f"`ranges[{name!r}]` as a list must name distinct values; "
            f"received {values!r}."
        )
    kinds = {type(x) for x in values}
    if len(kinds) != 1 or not kinds <= {int, float}:
        raise ValueError(
            f"`ranges[{name!r}]` as a list must hold numbers of one type; "
            f"received {values!r}."
        )
    if name in ("num_layers", "units", "seed") and not all(
        isinstance(x, int) for x in values
    ):
        raise ValueError(
            f"`ranges[{name!r}]` entries must be integers; received {values!r}."
        )
    for value in values:
        if name in SEARCHED_OPTIONS:
            option = zoo.options.get(name)
            try:
                option.check_entry(name, value)
            except ValueError:
                raise ValueError(
                    f"`ranges[{name!r}]` entries must lie in "
                    f"{_interval(option)}; received {values!r}."
                ) from None
        elif name == "seed" and value < 0:
            raise ValueError(
                f"`ranges['seed']` entries must be integers >= 0; received "
                f"{values!r}."
            )
        elif name == "learning_rate" and value <= 0:
            raise ValueError(
                f"`ranges['learning_rate']` entries must be > 0; received "
                f"{values!r}."
            )
    return Values(values)


def _interval(option):
    """`"[0, 1)"`, `"[1, inf)"`: an option's bounds."""
    low = "(-inf" if option.low is None else f"{option.low:g}"
    high = "inf)" if option.high is None else f"{option.high:g}"
    if option.low is not None:
        low = ("[" if option.low_inclusive else "(") + low
    if option.high is not None:
        high += "]" if option.high_inclusive else ")"
    return f"{low}, {high}"


def _with_step(name, value):
    if len(value) == 3:
        return value
    low, high = value
    return low, high, (1 if name == "units" else 0.1)


def _clip(value, low, high):
    return min(max(value, low), high)


def _snap(value, low, high, step):
    """The grid point `low + k * step` (within range) nearest `value`."""
    k = round((_clip(value, low, high) - low) / step)
    k = min(k, math.floor((high - low) / step + 1e-9))
    snapped = low + k * step
    return (
        int(snapped)
        if isinstance(step, int) and isinstance(low, int)
        else round(snapped, 10)
    )
