"""`StackedRNNHyperModel`: a recipe's task as a keras-tuner search space."""

import contextlib
import dataclasses
import time

import keras
import keras_tuner as kt
import numpy as np

import zoo
from recipes import classification
from recipes import g2p
from recipes import settings
from recipes import tagging
from recipes import translation
from recipes.task import Recipe
from tuning import space
from zoo import validation

# The recipes whose tasks a hypermodel searches, by name.
RECIPES = {
    "tagging": tagging,
    "classification": classification,
    "seq2seq": g2p,
    "translation": translation,
}
TASKS = tuple(RECIPES)
SEARCHABLE = space.NAMES
DEFAULT_SEARCH = space.DEFAULT_SEARCH
DEFAULT_RANGES = {name: d.default_range for name, d in space.DIMENSIONS.items()}
Values = space.Values
# Per-trial facts added to each trial's metrics (and its History).
FACTS = ("params", "stack_params", "width", "train_seconds")
# The stack options counted by a parameter budget besides the cell, depth
# and width (those that can change the stack's count).
_COUNTED = tuple(
    name
    for name in settings.STACK_FIELDS
    if zoo.options.get(name).adds_params
    and name not in ("cell", "num_layers", "units", "embedding_dim")
)


def defaults(task="tagging"):
    """`{name: value}`: the baseline of every name a search of `task` (a
    recipe name or a `recipes.task.Recipe`) may vary, its `Config`'s
    defaults: what `build(keras_tuner.HyperParameters())` trains."""
    config = _task(task).Config()
    return {n: getattr(config, n) for n in _searchable(type(config))}


class StackedRNNHyperModel(kt.HyperModel):
    """A recipe's model whose depth, width, cell and regularisation are
    tuned.

    Every trial is the model a recipe trains (`recipes.task.Recipe`): its
    `model_for` the problem's facts (arrays), or its `build` from the
    recipe's prepared data (`state`, what `python -m tuning.search`
    passes), compiled with the task's own loss, metrics and optimizer
    (`Task.compile`). This class declares the space and turns a trial's
    values into the task's config; it builds no head of its own.

    The space is `tuning.space` (every name, its kind and default range:
    `tuning.space.NAMES`); the names that apply are the task's config
    fields. `build(HyperParameters())` builds the untuned baseline: every
    name's default is the task's `Config` default (or `config`'s, or the
    value given in `defaults`), so the baseline is what the recipe trains
    (for tagging: a 2-layer bidirectional residual LSTM of 128 units,
    inter-layer dropout 0.25, Adam at 0.002, batch 32).

    A range given as a list (`ranges={"num_layers": [1, 2, 4, 8]}`) is
    searched as those values (a `Choice`), so a grid (`keras_tuner.
    GridSearch`) tries exactly them; `seed` in `search` repeats every
    configuration with other initial weights and dropout masks (the data
    order stays the one of the recipe's `--seed`).

    With `per_layer_units=True`, layer `i` (1-based) has its own width
    `units_i`, declared in `hp.conditional_scope("num_layers", [i, ...])`:
    a 2-layer trial has `units_1` and `units_2` active and no `units_3`.
    With `budget_params`, no width is searched: each trial's width is
    `zoo.width_for_budget` for its cell, depth and the options that add
    parameters, so every trial's recurrent stack has about `budget_params`
    parameters (the embedding and the output layer are not counted; they
    do not change with depth); for `"seq2seq"` and `"translation"` (an
    encoder-decoder, `Task.encoder_decoder`) the budget counts the
    encoder's and the decoder's stacks together (`decoder=True`).
    `recurrent_dropout` is searched only when named in `search`; every
    other option keeps LSTM and GRU on the fused kernel.

    Each trial's History (and so its keras-tuner metrics) also records
    `params` (the whole model), `stack_params` (the recurrent stack, what
    the budget counts), `width` (mean units per layer) and
    `train_seconds`.

    Args:
        task: `"tagging"` (a softmax per timestep), `"classification"` (a
            softmax over the pooled sequence, trained on one-hot classes),
            `"seq2seq"` (`zoo.build_seq2seq` with teacher forcing: x is
            `(source ids, decoder input ids)`), `"translation"` (the same
            over subword pieces), or a `recipes.task.Recipe`.
        num_outputs: number of tags, classes or target ids (not with
            `state`).
        vocabulary_size: size of the token vocabulary (id 0 is padding);
            or give `input_dim` for float features (not for seq2seq).
        input_dim: feature width of float inputs.
        embedding_dim: the embedding width (default: the task's).
        config: the task's `Config` that trials start from (default: its
            defaults); every name not searched keeps its value.
        state: what `task.prepare(config)` returned (a recipe's data,
            vocabulary and labels): trials are then `task.build(config,
            state)`, exactly the recipe's model; no `num_outputs`,
            `vocabulary_size` or `input_dim` then.
        search: names of the hyperparameters to search (the others keep
            their default).
        ranges: per-name overrides of the ranges: `(min, max)` or `(min,
            max, step)` for numbers, a tuple of choices for choices, a
            list for the values themselves.
        defaults: per-name overrides of the defaults (the baseline).
        per_layer_units: one width per layer instead of one for all.
        budget_params: a parameter budget for the recurrent stack; the
            width follows from it (and is not searched).
        stack_options: further fixed stack options of `zoo.options` for
            every trial (`merge_mode`, `highway`, `layer_norm`,
            `weight_drop`, `embedding_dropout`, ...), set on `config`.
        build_model: optional `callable(choices) -> compiled keras.Model`
            replacing the task's model; `choices` is `self.choices(hp)`.
        data: optional `callable(batch_size) -> (train, validation)`, used
            by `fit` instead of the data passed to `search`, so that a
            searched batch size also applies to `tf.data` pipelines.
        epochs: the epochs each trial trains, for a learning-rate schedule
            over the trial (`--lr-schedule cosine` needs `data`; default:
            the config's `epochs`).
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
        embedding_dim=None,
        config=None,
        state=None,
        search=DEFAULT_SEARCH,
        ranges=None,
        defaults=None,
        per_layer_units=False,
        budget_params=None,
        stack_options=None,
        build_model=None,
        data=None,
        epochs=None,
        name=None,
        tunable=True,
    ):
        super().__init__(name=name, tunable=tunable)
        self.task = _task(task)
        config = self.task.Config() if config is None else config
        if not isinstance(config, self.task.Config):
            raise ValueError(
                f"`config` must be a {self.task.Config.__qualname__} of the "
                f"{self.task.name} task; received a "
                f"{type(config).__qualname__}."
            )
        self.state = state
        if state is None and build_model is None:
            self._check_facts(num_outputs, vocabulary_size, input_dim)
        elif state is not None and (
            num_outputs or vocabulary_size or input_dim
        ):
            raise ValueError(
                "With `state` the data give the problem's facts: leave "
                "`num_outputs`, `vocabulary_size` and `input_dim` out; "
                f"received num_outputs={num_outputs!r}, vocabulary_size="
                f"{vocabulary_size!r}, input_dim={input_dim!r}."
            )
        self.num_outputs = num_outputs
        self.vocabulary_size = vocabulary_size
        self.input_dim = input_dim
        self.searchable = _searchable(type(config))
        self.search = _check_search(search, self.searchable)
        fixed = _check_stack_options(stack_options or {}, config, self.search)
        if embedding_dim is not None:
            fixed["embedding_dim"] = validation.check_positive_int(
                "embedding_dim", embedding_dim
            )
        baseline = _check_defaults(defaults or {}, self.searchable)
        self.config = dataclasses.replace(config, **fixed, **baseline)
        self.defaults = {n: getattr(self.config, n) for n in self.searchable}
        if self.defaults["num_layers"] is None:  # inferred from the lists
            units = self.defaults["units"]
            self.defaults["num_layers"] = (
                len(units)
                if isinstance(units, list)
                else type(config)().num_layers
            )
        self.ranges = _check_ranges({**DEFAULT_RANGES, **(ranges or {})})
        self.per_layer_units = bool(per_layer_units)
        self.build_model = build_model
        self.data = data
        self.epochs = epochs
        self.budget_params = None
        if budget_params is not None:
            self.budget_params = validation.check_positive_int(
                "budget_params", budget_params
            )
            if per_layer_units:
                raise ValueError(
                    "`budget_params` derives one width per trial; it cannot "
                    "be combined with per_layer_units=True."
                )
            self._check_budget()

    def _check_facts(self, num_outputs, vocabulary_size, input_dim):
        validation.check_positive_int("num_outputs", num_outputs)
        if (vocabulary_size is None) == (input_dim is None):
            raise ValueError(
                "Pass exactly one of `vocabulary_size` (token ids) or "
                f"`input_dim` (float features); received vocabulary_size="
                f"{vocabulary_size!r}, input_dim={input_dim!r}."
            )
        if self.task.encoder_decoder and vocabulary_size is None:
            raise ValueError(
                f"task={self.task.name!r} reads token ids: pass "
                f"`vocabulary_size`; received input_dim={input_dim!r}."
            )

    # The space ---------------------------------------------------------

    def input_width(self, config=None):
        """The feature width entering the first recurrent layer."""
        if self.input_dim is not None:
            return self.input_dim
        config = self.config if config is None else config
        return self.task.stack_input_width(config, self.state)

    def _value(self, hp, name):
        """The trial's value of `name`: searched, or its default."""
        if name not in self.search:
            return self.defaults[name]
        return space.get(name).declare(
            hp, self.ranges[name], self.defaults[name]
        )

    def choices(self, hp):
        """The trial's values: one dict with every name the task may vary
        (`units` is a list with per-layer widths)."""
        values = {
            name: self._value(hp, name)
            for name in self.searchable
            if name != "units"
        }
        if self.budget_params is not None:
            trial = self.config_for(values)
            values["units"] = zoo.width_for_budget(
                trial.cell,
                self.input_width(trial),
                trial.num_layers,
                self.budget_params,
                decoder=self.task.encoder_decoder,
                **self._counted(trial),
            )
        elif self.per_layer_units and "units" in self.search:
            values["units"] = self._per_layer_units(hp, values["num_layers"])
        else:
            values["units"] = self._value(hp, "units")
        return values

    def _per_layer_units(self, hp, num_layers):
        """`units_1` .. `units_L` (L the deepest depth searched), each in
        a conditional scope of the depths that have that layer."""
        dimension = space.get("units")
        widths_range = self.ranges["units"]
        maximum = self._max_layers()
        widths = []
        for i in range(1, maximum + 1):
            with contextlib.ExitStack() as scope:
                if "num_layers" in self.search:  # units_i iff layer i is
                    scope.enter_context(
                        hp.conditional_scope(
                            "num_layers", list(range(i, maximum + 1))
                        )
                    )
                width = dataclasses.replace(
                    dimension, name=f"units_{i}"
                ).declare(hp, widths_range, self.defaults["units"])
            if i <= num_layers:
                widths.append(width)
        return widths

    def config_for(self, choices):
        """The task's config of a trial: `config` with `choices`."""
        return dataclasses.replace(
            self.config,
            **{k: v for k, v in choices.items() if k in self.searchable},
        )

    def _max_layers(self):
        if "num_layers" in self.search:
            depths = self.ranges["num_layers"]
            return int(max(depths) if isinstance(depths, Values) else depths[1])
        return int(self.defaults["num_layers"])

    def _counted(self, config):
        """The options of `config` that a parameter count reads."""
        return {
            name: getattr(config, name)
            for name in _COUNTED
            if getattr(config, name) is not None
        }

    def _check_budget(self):
        """Every cell and depth of the space must fit the budget."""
        cells = (
            self.ranges["cell"]
            if "cell" in self.search
            else (self.defaults["cell"],)
        )
        widest = {
            name: True
            for name in ("bidirectional", "residual")
            if name in self.search
        }
        trial = dataclasses.replace(
            self.config, num_layers=self._max_layers(), **widest
        )
        for cell in cells:
            trial = dataclasses.replace(trial, cell=cell)
            smallest = self._stack_count(trial, 1)
            if smallest > self.budget_params:
                raise ValueError(
                    f"`budget_params`={self.budget_params} is too small for "
                    f"the space: a {trial.num_layers}-layer "
                    f"{'bidirectional ' if trial.bidirectional else ''}{cell}"
                    f" stack on input width {self.input_width(trial)} has "
                    f"{smallest} parameters at units=1; raise the budget or "
                    "lower the largest num_layers."
                )

    def stack_params(self, choices):
        """Parameters of the recurrent stack (what the budget counts)."""
        return self._stack_count(self.config_for(choices), choices["units"])

    def _stack_count(self, config, units):
        """What the budget counts: the stack, and for seq2seq the decoder's
        stack too (as `zoo.width_for_budget(decoder=True)` does)."""
        options = self._counted(config)
        width = self.input_width(config)
        total = zoo.count_params(
            config.cell, width, units, num_layers=config.num_layers, **options
        )
        if self.task.encoder_decoder:
            options.pop("bidirectional", None)
            options.pop("merge_mode", None)
            total += zoo.count_params(
                config.cell,
                width,
                units,
                num_layers=config.num_layers,
                **options,
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
        config = self.config_for(choices)
        if self.state is not None:
            model = self.task.build(config, self.state)
        else:
            model = self.task.model_for(
                config,
                self.num_outputs,
                vocabulary_size=self.vocabulary_size,
                input_dim=self.input_dim,
            )
        return self.task.compile(model, config, steps=self._steps(config))

    def _steps(self, config):
        """The trial's optimizer steps, for a schedule over the trial (0
        when the batches are not known here, or with a constant learning
        rate, which needs none: the data are then first read by `fit`)."""
        if self.data is None or config.lr_schedule == "constant":
            return 0
        epochs = self.epochs or config.epochs
        return epochs * len(self.data(config.batch_size)[0])

    def fit(self, hp, model, *args, **kwargs):
        """`model.fit` with the trial's batch size; records the facts."""
        choices = self.choices(hp)
        if self.data is not None:
            if args or "x" in kwargs:
                raise ValueError(
                    "This hypermodel reads its data from `data`; call "
                    "search() without x, y and validation_data."
                )
            train, validation_data = self.data(choices["batch_size"])
            args = (train,)
            kwargs["validation_data"] = validation_data
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


def _task(task):
    """A `recipes.task.Recipe`: `task` itself, or the recipe's by name."""
    if isinstance(task, Recipe):
        return task
    validation.check_choice("task", task, TASKS)
    return RECIPES[task].TASK


def _searchable(config_cls):
    """The names of `tuning.space` that are fields of `config_cls`."""
    fields = {f.name for f in dataclasses.fields(config_cls)}
    return tuple(name for name in space.NAMES if name in fields)


def _is_array(x):
    return isinstance(x, (np.ndarray, list, tuple, dict)) or hasattr(
        x, "__array__"
    )


def _check_search(search, searchable):
    if isinstance(search, str):
        search = [s for s in search.split(",") if s]
    search = tuple(search)
    unknown = sorted(set(search) - set(searchable))
    if unknown:
        raise ValueError(
            f"`search` has unknown name(s) {unknown}; allowed: "
            f"{list(searchable)}."
        )
    return search


def _check_defaults(defaults, searchable):
    """The baseline's values: stack options checked by
    `zoo.options.validate` (a per-layer list too), the training settings
    by `tuning.space`."""
    unknown = sorted(set(defaults) - set(searchable))
    if unknown:
        raise ValueError(
            f"`defaults` has unknown name(s) {unknown}; allowed: "
            f"{list(searchable)}."
        )
    checked = {}
    for name, value in defaults.items():
        if name in space.STACK_RANGES:
            try:
                checked[name] = zoo.options.validate(name, value)
            except ValueError as error:
                raise ValueError(f"`defaults`: {error}") from None
        else:
            checked[name] = space.get(name).check_entry(
                f"defaults['{name}']", value
            )
    return checked


def _check_stack_options(stack_options, config, search):
    """The fixed options: fields of the task's config that are not
    searched, each checked by `zoo.options.validate`."""
    fields = {f.name for f in dataclasses.fields(config)}
    clash = sorted(set(stack_options) & set(search))
    if clash:
        raise ValueError(
            f"`stack_options` sets {clash}, which are searched: give their "
            "values in `defaults` instead (the baseline of the search)."
        )
    checked = {}
    for name, value in stack_options.items():
        try:
            checked[name] = zoo.options.validate(name, value)
        except ValueError as error:
            raise ValueError(f"`stack_options`: {error}") from None
    own = sorted(set(checked) - fields)
    if own:
        raise ValueError(
            f"`stack_options` sets {own}, which the hypermodel sets itself "
            "(from its arguments and its task)."
        )
    return checked


def _check_ranges(ranges):
    unknown = sorted(set(ranges) - set(DEFAULT_RANGES))
    if unknown:
        raise ValueError(
            f"`ranges` has unknown name(s) {unknown}; allowed: "
            f"{sorted(DEFAULT_RANGES)}."
        )
    return {
        name: space.get(name).check_range(value, f"`ranges[{name!r}]`")
        for name, value in ranges.items()
    }
