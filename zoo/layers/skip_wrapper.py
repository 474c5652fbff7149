"""The base class of `ResidualWrapper` and `HighwayWrapper`.

Both wrap a sequence layer `f` (usually a recurrent layer, possibly
`Bidirectional`) and combine `f(x)` with the layer's input `x`. They differ
only in `_combine`, so everything else (mask threading, `return_state`,
`go_backwards` inside `keras.layers.Bidirectional`, the learned projection
when widths differ) lives here once.
"""

import copy
import inspect

import keras
from keras import ops

from zoo import validation as v

PROJECTIONS = ("auto", "always", None)


def first_step(inputs, mask=None):
    """The input at each sequence's first unmasked step, `(batch, features)`.

    This is the step whose output a backwards recurrent layer returns when
    `return_sequences=False`.
    """
    if mask is None:
        return inputs[:, 0]
    index = ops.argmax(ops.cast(mask, "int32"), axis=1)
    index = ops.reshape(ops.cast(index, "int32"), (-1, 1, 1))
    return ops.take_along_axis(inputs, index, axis=1)[:, 0]


def last_step(inputs, mask=None):
    """The input at each sequence's last unmasked step, `(batch, features)`.

    This is the step whose output a recurrent layer returns when
    `return_sequences=False`: masked steps keep the previous state.
    """
    if mask is None:
        return inputs[:, -1]
    steps = ops.shape(inputs)[1]
    reversed_mask = ops.flip(ops.cast(mask, "int32"), axis=1)
    index = steps - 1 - ops.argmax(reversed_mask, axis=1)
    index = ops.reshape(ops.cast(index, "int32"), (-1, 1, 1))
    return ops.take_along_axis(inputs, index, axis=1)[:, 0]


def _of_the_layer(name, default):
    """A read-only attribute of a wrapper that is its wrapped layer's
    (`default` where that layer has none)."""
    return property(lambda self: getattr(self.layer, name, default))


class SkipWrapper(keras.layers.Wrapper):
    """Shared machinery for wrappers that add a skip path around a layer.

    Args:
        layer: the wrapped `keras.layers.Layer`, mapping
            `(batch, timesteps, in_width)` to `(batch, timesteps, out_width)`
            (or `(batch, out_width)` with `return_sequences=False`).
        projection: `"auto"` (identity when the widths match, a learned
            linear map without bias when they differ), `"always"` (always a
            learned linear map) or `None` (identity; a width mismatch is a
            `ValueError`, never a silent skip).
    """

    # How `zoo.engine` serves it (`zoo.tasks.Task.set_runner`): in NumPy.
    serving_form = "numpy"

    def __init__(self, layer, projection="auto", go_backwards=None, **kwargs):
        super().__init__(layer, **kwargs)
        self.projection = v.check_choice("projection", projection, PROJECTIONS)
        self.supports_masking = True
        # `keras.layers.Bidirectional` rebuilds its backward copy from our
        # config with `go_backwards=True` set at the top level.
        if go_backwards is not None:
            self.layer.go_backwards = go_backwards
        arguments = inspect.signature(self.layer.call).parameters
        self._layer_call_args = frozenset(arguments)
        self.projection_layer = None

    # Recurrent-layer attributes that `keras.layers.Bidirectional` reads
    # and sets on the layer it wraps; they live on the wrapped layer.
    @property
    def go_backwards(self):
        return getattr(self.layer, "go_backwards", False)

    @go_backwards.setter
    def go_backwards(self, value):
        self.layer.go_backwards = value

    return_sequences = _of_the_layer("return_sequences", True)
    return_state = _of_the_layer("return_state", False)
    stateful = _of_the_layer("stateful", False)

    @property
    def zero_output_for_mask(self):
        return getattr(self.layer, "zero_output_for_mask", None)

    @zero_output_for_mask.setter
    def zero_output_for_mask(self, value):
        if hasattr(self.layer, "zero_output_for_mask"):
            self.layer.zero_output_for_mask = value

    def reset_states(self):
        self.layer.reset_states()

    def reset_state(self):
        self.layer.reset_states()

    def _output_shape(self, input_shape):
        shape = self.layer.compute_output_shape(input_shape)
        if self.return_state:
            shape = shape[0]
        return tuple(shape)

    def build(self, sequences_shape, initial_state_shape=None):
        if not self.layer.built:
            self.layer.build(sequences_shape)
        in_width = sequences_shape[-1]
        out_width = self._output_shape(sequences_shape)[-1]
        if self.projection == "always" or (
            self.projection == "auto" and in_width != out_width
        ):
            self.projection_layer = keras.layers.Dense(
                out_width, use_bias=False, name="projection"
            )
            self.projection_layer.build((None, in_width))
        elif in_width != out_width:
            raise ValueError(
                f"{type(self).__name__} got input width {in_width} but the "
                f"wrapped layer '{self.layer.name}' outputs width "
                f"{out_width}, and projection=None forbids a learned "
                "projection. Make the widths equal or pass "
                "projection='auto'."
            )
        self._build_skip(in_width, out_width)
        self.built = True

    def _build_skip(self, in_width, out_width):
        """Creates the subclass's extra weights (e.g. a gate)."""

    def _combine(self, outputs, skip_inputs, skip):
        """Merges the layer's `outputs` with the (projected) `skip`."""
        raise NotImplementedError

    def call(self, sequences, initial_state=None, mask=None, training=None):
        kwargs = {}
        if "mask" in self._layer_call_args:
            kwargs["mask"] = mask
        if "training" in self._layer_call_args:
            kwargs["training"] = training
        if initial_state is not None:
            kwargs["initial_state"] = initial_state
        outputs = self.layer(sequences, **kwargs)
        states = []
        if self.return_state:
            outputs, states = outputs[0], list(outputs[1:])
        outputs = self.merge(sequences, outputs, mask)
        if self.return_state:
            return [outputs, *states]
        return outputs

    def merge(self, sequences, outputs, mask=None):
        """Combines the wrapped layer's `outputs` with its input `sequences`.

        What `call` does after calling the layer; `zoo.layers.StackedRNN`
        calls it after computing the layer's outputs with a fused kernel.
        """
        if not self.return_sequences:
            # The output belongs to the last step read: the first unmasked
            # one for a layer reading backwards, the last one otherwise.
            read_last = first_step if self.go_backwards else last_step
            skip_inputs = read_last(sequences, mask)
        elif self.go_backwards:
            # A backwards layer returns its outputs in reversed time order.
            skip_inputs = ops.flip(sequences, axis=1)
        else:
            skip_inputs = sequences
        skip = skip_inputs
        if self.projection_layer is not None:
            skip = self.projection_layer(skip_inputs)
        return self._combine(outputs, skip_inputs, skip)

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        return self.layer.compute_output_shape(sequences_shape)

    def compute_mask(self, inputs, mask=None):
        return self.layer.compute_mask(inputs, mask)

    def get_config(self):
        config = super().get_config()
        config["projection"] = self.projection
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        # `Wrapper.from_config` pops from the dict it is given; work on a
        # copy so that callers (such as `Bidirectional`) keep theirs.
        return super().from_config(copy.deepcopy(config), custom_objects)
