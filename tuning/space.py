"""The search space: what a trial may vary, each name declared once.

Two tables. `STACK` holds the stack options a trial may vary: their type,
choices, bounds and help are `zoo.options`' (a new option there becomes
searchable by one row here); a row adds only the range searched unless
`ranges=` says otherwise. `TRAINING` holds the training settings a trial
may vary: Adam's learning rate, the batch size and the seed of the
initial weights and dropout masks (searched, it makes replicates).

No baseline value is declared here: a trial's value of every name that
is not searched is its task's (`recipes.settings` and the recipe's
`Config`), so the untuned baseline is the model the recipe trains.

    | name | kind | default range |
    |---|---|---|
    | `cell` | Choice | `lstm`, `gru` |
    | `num_layers` | Int | 1 .. 4 |
    | `units` (`units_1` .. with `per_layer_units`) | Int, step 32 | 32 .. 256 |
    | `bidirectional`, `residual`, `highway`, `layer_norm` | Boolean | |
    | `merge_mode` | Choice | `concat`, `sum`, `ave`, `mul` |
    | `dropout`, `inter_layer_dropout` | Float, step 0.05 | 0 .. 0.5 |
    | `recurrent_dropout`, `weight_drop` | Float, step 0.05 | 0 .. 0.5 |
    | `embedding_dropout` | Float, step 0.05 | 0 .. 0.5 |
    | `embedding_dim` | Int, step 32 | 32 .. 256 |
    | `char_embedding_dim`, `char_units` (tagging) | Int, step 16 | 16 .. 64 |
    | `char_kind` (tagging) | Choice | `rnn`, `cnn`, `both` |
    | `learning_rate` | Float, log | 1e-4 .. 1e-2 |
    | `batch_size` | Choice | 16, 32, 64, 128 |
    | `seed` | Int | 0 .. 2 |
    | `pretrained_mix` (`--pretrained`) | Choice | learned, average, top |
    | `pretrained_trainable` (`--pretrained`) | Boolean | |
"""

import dataclasses
import math

import zoo
from zoo import validation

# Rates step by 0.05, so the recipes' defaults (0.25, 0.2, 0.1, ...) are
# on the grid and the baseline trial is exactly the recipe's model.
RATE = (0.0, 0.5, 0.05)
# The stack options a trial may vary, with the range each searches by
# default: an interval `(min, max[, step])` or the choices themselves.
STACK_RANGES = {
    "cell": ("lstm", "gru"),
    "num_layers": (1, 4),
    "units": (32, 256, 32),
    "bidirectional": (False, True),
    "merge_mode": zoo.options.MERGE_MODES,
    "residual": (False, True),
    "highway": (False, True),
    "layer_norm": (False, True),
    "dropout": RATE,
    "recurrent_dropout": RATE,
    "inter_layer_dropout": RATE,
    "weight_drop": RATE,
    "embedding_dim": (32, 256, 32),
    "embedding_dropout": RATE,
    "char_embedding_dim": (16, 64, 16),
    "char_units": (16, 64, 16),
    "char_kind": ("rnn", "cnn", "both"),
}


class Values(tuple):
    """A range given as the values themselves (a keras-tuner `Choice`):
    what a list in `ranges` becomes, e.g. `ranges={"num_layers": [1, 2, 4,
    8]}`; a tuple is an interval `(min, max[, step])`."""


@dataclasses.dataclass(frozen=True)
class Dimension:
    """One name a trial may vary.

    Attributes:
        name: the hyperparameter's name, a config field of the recipes.
        kind: `"bool"`, `"choice"`, `"int"`, `"float"` or `"log"` (a
            float sampled on a log scale).
        default_range: the interval `(min, max[, step])` or the choices
            searched unless `ranges=` gives others.
        low, high, low_inclusive, high_inclusive: the bounds of a value.
        check_entry: `(name, value) -> value` checking one value (a stack
            option's is `zoo.options`').
        help: one line.
    """

    name: str
    kind: str
    default_range: tuple
    low: float | None = None
    high: float | None = None
    low_inclusive: bool = True
    high_inclusive: bool = True
    check_entry: object = None
    help: str = ""

    def interval(self):
        """The bounds as text: `"[0, 1)"`, `"[1, inf)"`."""
        return validation.interval(
            self.low, self.high, self.low_inclusive, self.high_inclusive
        )

    def check_range(self, value, where):
        """`value` (of `ranges[name]`) checked: a list is the values
        themselves (`Values`), a tuple an interval (or the choices of a
        choice). Raises `ValueError` naming `where`."""
        if isinstance(value, list) and self.kind != "choice":
            return Values(self._check_values(value, where))
        value = tuple(value)
        if not value:
            raise ValueError(f"{where} is empty.")
        if self.kind in ("choice", "bool"):
            for entry in value:
                try:
                    self.check_entry(self.name, entry)
                except ValueError as error:
                    raise ValueError(
                        f"{where} has a bad entry: {error}"
                    ) from None
            return value
        if len(value) not in (2, 3):
            raise ValueError(
                f"{where} must be (min, max) or (min, max, step); "
                f"received {value!r}."
            )
        low, high = value[:2]
        if low > high:
            raise ValueError(f"{where} is empty: min {low} > max {high}.")
        for bound in (low, high):
            try:
                self.check_entry(self.name, bound)
            except ValueError:
                raise ValueError(
                    f"{where} must lie in {self.interval()}; received "
                    f"{value!r}."
                ) from None
        if len(value) == 3 and value[2] <= 0:
            raise ValueError(f"{where} step must be > 0; received {value!r}.")
        return value

    def _check_values(self, values, where):
        if not values or len(set(values)) != len(values):
            raise ValueError(
                f"{where} as a list must name distinct values; received "
                f"{values!r}."
            )
        kinds = {type(x) for x in values}
        if len(kinds) != 1 or not kinds <= {int, float}:
            raise ValueError(
                f"{where} as a list must hold numbers of one type; received "
                f"{values!r}."
            )
        if self.kind == "int" and not all(isinstance(x, int) for x in values):
            raise ValueError(
                f"{where} entries must be integers; received {values!r}."
            )
        for value in values:
            try:
                self.check_entry(self.name, value)
            except ValueError:
                raise ValueError(
                    f"{where} entries must lie in {self.interval()}; "
                    f"received {values!r}."
                ) from None
        return values

    def declare(self, hp, value_range, default):
        """The trial's value: `value_range` (checked by `check_range`)
        declared in `hp` with `default` (the baseline; the first choice
        when it is not one, snapped or clipped into an interval)."""
        if self.kind == "bool":
            return hp.Boolean(self.name, default=bool(default))
        if isinstance(value_range, Values) or self.kind == "choice":
            choices = list(value_range)
            default = default if default in choices else choices[0]
            return hp.Choice(self.name, choices, default=default)
        low, high = value_range[:2]
        if self.kind == "log":
            return hp.Float(
                self.name,
                low,
                high,
                sampling="log",
                default=_clip(default, low, high),
            )
        if len(value_range) == 2 and self.kind == "int":
            return hp.Int(
                self.name, low, high, default=_clip(default, low, high)
            )
        step = (
            value_range[2]
            if len(value_range) == 3
            else (1 if self.kind == "int" else 0.1)
        )
        declare = hp.Int if self.kind == "int" else hp.Float
        return declare(
            self.name,
            low,
            high,
            step=step,
            default=_snap(default, low, high, step),
        )


def _from_option(name, default_range):
    """The row of stack option `name`: its kind, bounds and checks from
    `zoo.options`."""
    option = zoo.options.get(name)
    if option.type is bool:
        kind = "bool"
    elif option.choices is not None:
        kind = "choice"
    else:
        kind = "int" if option.type is int else "float"
    return Dimension(
        name,
        kind,
        tuple(default_range),
        low=option.low,
        high=option.high,
        low_inclusive=option.low_inclusive,
        high_inclusive=option.high_inclusive,
        check_entry=option.check_entry,
        help=option.help,
    )


def _positive_int(name, value):
    return validation.check_positive_int(name, value)


def _seed(name, value):
    # Every backend's generator takes a 32-bit unsigned seed.
    return validation.check_number(name, value, int, low=0, high=2**32 - 1)


def _learning_rate(name, value):
    return validation.check_number(
        name,
        value,
        float,
        low=0,
        low_inclusive=False,
        allowed="a finite number > 0",
    )


STACK = tuple(_from_option(n, r) for n, r in STACK_RANGES.items())
TRAINING = (
    Dimension(
        "learning_rate",
        "log",
        (1e-4, 1e-2),
        low=0,
        low_inclusive=False,
        check_entry=_learning_rate,
        help="Adam's learning rate",
    ),
    Dimension(
        "batch_size",
        "choice",
        (16, 32, 64, 128),
        low=1,
        check_entry=_positive_int,
        help="sequences per batch",
    ),
    Dimension(
        "seed",
        "int",
        (0, 2),
        low=0,
        check_entry=_seed,
        help="seed of the initial weights and dropout masks (replicates)",
    ),
)
# With `--pretrained` (a biLM, `recipes.language_model`): how its layers
# mix, and whether it is fine-tuned (the tagger's and classifier's).
PRETRAINED = (
    Dimension(
        "pretrained_mix",
        "choice",
        zoo.layers.contextual_embedding.MIXES,
        check_entry=lambda name, value: validation.check_choice(
            name, value, zoo.layers.contextual_embedding.MIXES
        ),
        help="how the pretrained biLM's layers combine (learned, average, top)",
    ),
    Dimension(
        "pretrained_trainable",
        "bool",
        (False, True),
        check_entry=lambda name, value: validation.check_bool(name, value),
        help="fine-tune the pretrained biLM (else frozen)",
    ),
)
DIMENSIONS = {d.name: d for d in (*STACK, *TRAINING, *PRETRAINED)}
NAMES = tuple(DIMENSIONS)
# What a search varies unless told otherwise. `recurrent_dropout` is left
# out: it is the one option that takes LSTM and GRU layers off the fused
# kernels (and halves CPU speed); `seed` is no hyperparameter to tune,
# only to repeat a trial with; the others keep the recipe's value.
DEFAULT_SEARCH = (
    "cell",
    "num_layers",
    "units",
    "bidirectional",
    "residual",
    "inter_layer_dropout",
    "dropout",
    "learning_rate",
    "batch_size",
)


def get(name):
    """The `Dimension` called `name`; `ValueError` for an unknown one."""
    validation.check_choice("name", name, NAMES)
    return DIMENSIONS[name]


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
