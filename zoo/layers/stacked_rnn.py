"""`StackedRNN`: a whole stack of recurrent layers as one Keras layer,
and `StackLayer`, the record of one of its layers."""

import dataclasses

import keras

from zoo import cells
from zoo import options
from zoo import spec as spec_lib
from zoo._package import PACKAGE
from zoo.kernels import dispatch
from zoo.kernels import planning
from zoo.layers import shapes
from zoo.layers.highway_wrapper import HighwayWrapper
from zoo.layers.residual_wrapper import ResidualWrapper
from zoo.layers.variational_dropout import VariationalDropout
from zoo.layers.weight_drop import weight_dropped
from zoo.walk import directions

# Where an option is kept under another attribute name: `Layer.output` and
# `Layer.activity_regularizer` are Keras's own (the stack's option acts on
# each recurrent layer's output, not on the stack's).
_ATTRIBUTES = {
    "output": "output_mode",
    "activity_regularizer": "layer_activity_regularizer",
}
# Keras's recurrent-layer arguments, taken by name from `**kwargs`.
_KERAS_RNN_NAMES = tuple(o.name for o in options.KERAS_RNN_OPTIONS)


@dataclasses.dataclass(frozen=True, eq=False)
class StackLayer:
    """One layer of a `zoo.layers.StackedRNN`, with the Keras layers that
    make it: what `StackedRNN.stack_layers` holds, bottom to top.

    Code that needs a stack's layers reads these records by name
    (`layer.block`, `layer.after`) rather than lining up parallel lists.

    Attributes:
        index: position in the stack, 0 at the bottom.
        spec: the layer's resolved plan, a `zoo.spec.LayerSpec`.
        recurrent: the `keras.layers.LSTM` / `GRU` / `SimpleRNN` (or a
            `zoo.layers.WeightDrop*` one), or the `keras.layers.Bidirectional`
            that holds it.
        block: what the stack calls: `recurrent`, or the
            `zoo.layers.ResidualWrapper` / `HighwayWrapper` around it.
        after: the layers applied to the block's output before the next
            layer (`LayerNormalization`, then `zoo.layers.VariationalDropout`),
            a tuple, often empty.

    Example:
    ```python
    stack = zoo.layers.StackedRNN("lstm", 8, 3, residual=True)
    [(layer.index, layer.wrapped) for layer in stack.stack_layers]
    # [(0, False), (1, True), (2, True)]
    ```
    """

    index: int
    spec: spec_lib.LayerSpec
    recurrent: keras.layers.Layer
    block: keras.layers.Layer
    after: tuple = ()

    @property
    def directions(self):
        """The recurrent layers that read the sequence: `(recurrent,)`, or
        `(forward, backward)` for a bidirectional layer."""
        return tuple(directions(self.recurrent))

    @property
    def wrapped(self):
        """Whether the block is a residual / highway wrapper."""
        return self.block is not self.recurrent

    @property
    def cell(self):
        """The layer's cell, a `zoo.cells.Cell` record."""
        return cells.get(self.spec.cell)


_NO_GO_BACKWARDS = (
    "zoo.layers.StackedRNN cannot be wrapped in keras.layers.Bidirectional "
    "(or built with go_backwards=True): pass bidirectional=True to make "
    "every layer read both ways (or a per-layer list such as [True, "
    "False]), with merge_mode for how the directions combine."
)


@keras.saving.register_keras_serializable(package=PACKAGE)
class StackedRNN(keras.layers.Layer):
    """A whole stack of recurrent layers as one Keras layer.

    Layer `l` reads layer `l-1`'s output sequence at the same timestep:
    `h_t[0] = x_t`, `h_t[l] = cell_l(h_{t-1}[l], h_t[l-1])`, and every
    layer has its own weights and state. Every layer below the top returns
    its full sequence; the top one returns its sequence or its last output
    (`return_sequences`). Each recurrent layer is a plain
    `keras.layers.LSTM` / `GRU` / `SimpleRNN` (optionally inside
    `keras.layers.Bidirectional`), so LSTM and GRU keep Keras's fused cuDNN
    kernel on GPU; residual, highway, layer norm and dropout between layers
    all sit outside the recurrent kernel.

    The mask is threaded explicitly: each layer receives the input mask,
    so right-padded and unpadded sequences give the same outputs at real
    timesteps and the same final states.

    Args:
        cell: `"lstm"`, `"gru"` or `"simple_rnn"`, or one per layer.
        units: hidden size of each layer (one direction), or one per layer.
        num_layers: depth. Inferred from the per-layer lists when omitted
            (2 without any list); a list of another length is an error.
        bidirectional: bool, or one per layer.
        merge_mode: how bidirectional directions combine: `"concat"`
            (width `2 * units`), `"sum"`, `"ave"` or `"mul"` (width
            `units`); scalar or per layer.
        dropout: input dropout inside each recurrent layer, one mask per
            sequence (scalar or per layer). Stays on the fused path.
        recurrent_dropout: hidden-to-hidden dropout (Gal & Ghahramani),
            scalar or per layer. Any value > 0 takes LSTM/GRU OFF the fused
            cuDNN kernel (and halves CPU speed): prefer
            `inter_layer_dropout` and `weight_drop`, which do not.
        inter_layer_dropout: time-locked dropout between layers (one mask
            per sequence shared by all timesteps; identity at inference).
            A scalar acts between layers; a per-layer list is explicit
            (entry `l` after layer `l`, the top included).
        weight_drop: DropConnect on each recurrent kernel, one mask per
            batch (AWD-LSTM), scalar or per layer. Keeps the fused kernel.
        residual: `False`, `True` (add each layer's input to its output
            from the second layer up), `"auto"` (True when `num_layers >= 3`)
            or a per-layer list of bools. Where widths differ, a learned
            linear projection maps the input; a layer is never skipped.
            When the top layer returns its last output, the skip adds the
            last real input step (for a bidirectional top layer, whose
            backward half ends at the first step, too).
        highway: like `residual` but gated (`zoo.layers.HighwayWrapper`);
            a layer takes one of the two.
        layer_norm: `LayerNormalization` on each layer's output before the
            next layer (not after the top layer); a per-layer list is
            explicit, as for `inter_layer_dropout`.
        return_sequences: whether the top layer returns its whole sequence
            (`(batch, timesteps, width)`) or its last output
            (`(batch, width)`). Defaults to False, as for `keras.layers.LSTM`.
        return_state: also return the final states of every layer, bottom
            to top; for each layer `[h]` (GRU, SimpleRNN) or `[h, c]`
            (LSTM), forward direction then backward for bidirectional ones.
        output: `"top"` (the top layer's output) or `"all"` (a list with
            every layer's output sequence, before layer norm and dropout,
            for `zoo.layers.ScalarMix`); `"all"` needs
            `return_sequences=True`.
        stateful: keep each layer's final state as the next batch's
            initial state (needs a fixed batch size); reset with
            `zoo.reset_states(model)`.
        seed: optional integer seed for all dropout masks.
        **kwargs: Keras's own recurrent-layer arguments, passed to every
            recurrent layer (scalar) or one per layer (a list), as
            `keras.layers.LSTM` / `GRU` / `SimpleRNN` name them:
            `activation`, `recurrent_activation` (GRU, LSTM), `use_bias`,
            `kernel_initializer`, `recurrent_initializer`,
            `bias_initializer`, `unit_forget_bias` (LSTM),
            `kernel_regularizer`, `recurrent_regularizer`,
            `bias_regularizer`, `activity_regularizer` (on each recurrent
            layer's output), `kernel_constraint`, `recurrent_constraint`,
            `bias_constraint`, `reset_after` (GRU) and `unroll`
            (`zoo.options.KERAS_RNN_OPTIONS`). Keras objects may be names,
            config dicts or instances; the config keeps names and dicts.
            A non-tanh `activation`, a non-sigmoid `recurrent_activation`,
            `use_bias=False`, `unroll=True` or `reset_after=False` leaves
            the fused kernel; `zoo.fast_path_report` says so. Any other
            keyword goes to `keras.layers.Layer` (`name`, `dtype`, ...).

    Every argument is declared in `zoo.options.LAYER_OPTIONS` (default,
    allowed values, whether it may be given per layer) and kept as an
    attribute of the same name (`output` as `output_mode`).

    Attributes:
        stack_layers: the stack's layers, bottom to top, a tuple of
            `zoo.layers.StackLayer` records: each layer's index, plan
            (`spec`), recurrent layer, block (the recurrent layer or its
            residual / highway wrapper) and the layers `after` it (layer
            norm, dropout). Read a layer's parts from its record.
        layer_specs, recurrent_layers, blocks, between_layers: read-only
            lists taken from `stack_layers`, one entry a layer: each
            record's `spec`, `recurrent`, `block` and `after` (as a list).
        sublayers: every layer of the stack as called, bottom to top:
            each block, then the layers after it (what `zoo.reset_states`
            and `zoo.fast_path_report` walk).

    Call arguments:
        sequences: a `(batch, timesteps, features)` tensor with at least
            one timestep (an empty time axis is a `ValueError` naming
            `inputs`).
        initial_state: optional flat list of initial states, in the
            `return_state` order.
        mask: optional `(batch, timesteps)` boolean mask (another shape
            is a `ValueError` naming `mask` and both shapes).
        training: whether dropout is active.

    Returns:
        The top output (or the list of layer outputs with `output="all"`);
        with `return_state=True`, `[output, *states]`.

    Example:
    ```python
    x = keras.Input((None, 16))
    y = zoo.layers.StackedRNN("lstm", units=64, num_layers=3,
                              residual=True, return_sequences=True)(x)
    ```
    """

    # How `zoo.engine` serves it (`zoo.tasks.Task.set_runner`): in NumPy.
    serving_form = "numpy"

    def __init__(
        self,
        cell="lstm",
        units=128,
        num_layers=None,
        *,
        bidirectional=False,
        merge_mode="concat",
        dropout=0.0,
        recurrent_dropout=0.0,
        inter_layer_dropout=0.0,
        weight_drop=0.0,
        residual=False,
        highway=False,
        layer_norm=False,
        return_sequences=False,
        return_state=False,
        output="top",
        stateful=False,
        seed=None,
        **kwargs,
    ):
        if kwargs.pop("go_backwards", False):
            raise ValueError(_NO_GO_BACKWARDS)
        keras_options = {
            name: kwargs.pop(name, options.get(name).default)
            for name in _KERAS_RNN_NAMES
        }
        super().__init__(**kwargs)
        given = dict(
            cell=cell,
            units=units,
            num_layers=num_layers,
            bidirectional=bidirectional,
            merge_mode=merge_mode,
            dropout=dropout,
            recurrent_dropout=recurrent_dropout,
            inter_layer_dropout=inter_layer_dropout,
            weight_drop=weight_drop,
            residual=residual,
            highway=highway,
            layer_norm=layer_norm,
            return_sequences=return_sequences,
            return_state=return_state,
            output=output,
            stateful=stateful,
            seed=seed,
            **keras_options,
        )
        specs = spec_lib.resolve(
            **{name: given[name] for name in spec_lib.ARGUMENTS}
        )
        for name, value in given.items():
            if name not in spec_lib.ARGUMENTS:
                options.validate(name, value)
        if output == "all" and not return_sequences:
            raise ValueError(
                "output='all' returns every layer's sequence, so it needs "
                "return_sequences=True; received output='all', "
                "return_sequences=False."
            )
        # One attribute per option, as given (lists stay lists; a Keras
        # object in its serialised form, for `get_config`).
        for name, value in given.items():
            if name in _KERAS_RNN_NAMES:
                value = options.validate(name, value)
            setattr(self, _ATTRIBUTES.get(name, name), value)
        self.num_layers = len(specs)
        self.supports_masking = True

        # The originals of the bidirectional layers' copies: see
        # `_keep_alive`. Untracked (no weights), but a list attribute that
        # Keras's saving walks: its name is part of the file format.
        object.__setattr__(self, "_bidirectional_sources", [])
        records = []
        for spec in specs:
            rnn = self._recurrent_layer(spec)
            records.append(
                StackLayer(
                    index=spec.index,
                    spec=spec,
                    recurrent=rnn,
                    block=self._skip_block(spec, rnn),
                    after=tuple(self._between(spec)),
                )
            )
        self._stack_layers = tuple(records)
        # Keras tracks (builds, counts, saves the weights of) the layers
        # assigned in a list: each layer's recurrent layer, block and the
        # layers after it, bottom to top, which is the order of `weights`.
        self._tracked_layers = [
            part
            for record in records
            for part in (record.recurrent, record.block, *record.after)
        ]

    def _name(self, index, part):
        return f"{self.name}_layer{index}_{part}"

    def _seed(self, index, offset=0):
        if self.seed is None:
            return None
        return self.seed + 1000 * index + offset

    def _recurrent_layer(self, spec):
        top = spec.index == self.num_layers - 1
        kwargs = dict(
            return_sequences=self.return_sequences or not top,
            return_state=self.return_state,
            stateful=self.stateful,
            dropout=spec.dropout,
            recurrent_dropout=spec.recurrent_dropout,
            seed=self._seed(spec.index),
            name=self._name(spec.index, spec.cell),
            **{
                option.name: getattr(spec, option.name)
                for option in options.KERAS_RNN_OPTIONS
                if spec.cell in option.cells
            },
        )
        cell = cells.get(spec.cell)
        if spec.weight_drop:
            rnn = cell.weight_drop_class(
                spec.units,
                weight_drop=spec.weight_drop,
                weight_drop_seed=self._seed(spec.index, 1),
                **kwargs,
            )
        else:
            rnn = cell.keras_class(spec.units, **kwargs)
        if spec.bidirectional:
            self._keep_alive(rnn)
            rnn = keras.layers.Bidirectional(
                rnn,
                merge_mode=spec.merge_mode,
                name=self._name(spec.index, "bidirectional"),
            )
        return rnn

    def _keep_alive(self, layer):
        """Keeps `layer`, the layer a `keras.layers.Bidirectional` was
        given, alive as long as the stack: a workaround for Keras.

        `Bidirectional` serialises the layer it is given twice (for its
        forward and its backward copy) and keeps only the copies. While a
        model loads (`keras.saving.load_model`), Keras's object-sharing
        scope maps `id(obj)` of every object it serialises to its config,
        and of every object it deserialises again: once the original is
        freed, a later layer allocated at the same address has the same
        `id`, and Keras hands back the earlier layer's copy as this one's
        forward and backward layers ("Forward layer and backward layer
        should have different `go_backwards` value"). Keeping the
        originals alive keeps their ids unique. Found upstream in Keras
        3.15.1 (no issue filed there that we know of):
        `ObjectSharingScope` and `record_object_after_serialization` in
        https://github.com/keras-team/keras/blob/v3.15.1/keras/src/saving/serialization_lib.py
        and `Bidirectional.__init__` in
        https://github.com/keras-team/keras/blob/v3.15.1/keras/src/layers/rnn/bidirectional.py.
        `tests/test_stacked_rnn.py` shows the failure without it.
        """
        self._bidirectional_sources.append(layer)

    def _skip_block(self, spec, rnn):
        if spec.residual:
            return ResidualWrapper(rnn, name=self._name(spec.index, "residual"))
        if spec.highway:
            return HighwayWrapper(rnn, name=self._name(spec.index, "highway"))
        return rnn

    def _between(self, spec):
        layers = []
        if spec.layer_norm:
            layers.append(
                keras.layers.LayerNormalization(
                    name=self._name(spec.index, "layer_norm")
                )
            )
        if spec.inter_layer_dropout:
            layers.append(
                VariationalDropout(
                    spec.inter_layer_dropout,
                    seed=self._seed(spec.index, 2),
                    name=self._name(spec.index, "dropout"),
                )
            )
        return layers

    @property
    def stack_layers(self):
        """The stack's layers, bottom to top: a tuple of
        `zoo.layers.StackLayer` records."""
        return self._stack_layers

    # The views below are what the stack exposed before its records, as
    # lists. Keras's saving walks a layer's public attributes by name, so
    # these names (and their order of layers) also set where each weight
    # lies in a `.keras` file: keep them as they are.
    @property
    def layer_specs(self):
        """The resolved plan, one `zoo.spec.LayerSpec` a layer."""
        return [layer.spec for layer in self._stack_layers]

    @property
    def recurrent_layers(self):
        """Each layer's LSTM / GRU / SimpleRNN (or its `Bidirectional`)."""
        return [layer.recurrent for layer in self._stack_layers]

    @property
    def blocks(self):
        """Each layer as called: the recurrent layer, or its residual /
        highway wrapper."""
        return [layer.block for layer in self._stack_layers]

    @property
    def between_layers(self):
        """For each layer, a list of the layers after it (layer norm,
        dropout)."""
        return [list(layer.after) for layer in self._stack_layers]

    @property
    def sublayers(self):
        """Every layer of the stack, bottom to top: each layer's block (the
        recurrent layer, in its skip wrapper if any), then the layers after
        it (layer norm, dropout). `zoo.reset_states` and
        `zoo.fast_path_report` walk a model through it."""
        return [
            part
            for layer in self._stack_layers
            for part in (layer.block, *layer.after)
        ]

    def fused_runs(self):
        """The `(start, stop)` runs of layers (stop exclusive) that a
        multi-layer kernel could compute in one call, whatever the backend
        (`zoo.kernels.planning.candidate_runs`)."""
        return planning.candidate_runs(self)

    def build(self, sequences_shape, initial_state_shape=None):
        shapes.check_rank_3("StackedRNN", sequences_shape)
        shape = tuple(sequences_shape)
        for layer in self._stack_layers:
            layer.block.build(shape)
            shape = layer.block.compute_output_shape(shape)
            if self.return_state:
                shape = shape[0]
            shape = tuple(shape)
            for after in layer.after:
                after.build(shape)
        self.built = True

    def _split_initial_state(self, initial_state):
        if initial_state is None:
            return None
        counts = [layer.spec.num_states for layer in self._stack_layers]
        initial_state = list(initial_state)
        if len(initial_state) != sum(counts):
            raise ValueError(
                f"`initial_state` must hold {sum(counts)} tensors for this "
                f"stack ({counts} per layer, in the return_state order); "
                f"received {len(initial_state)}."
            )
        per_layer, start = [], 0
        for count in counts:
            per_layer.append(initial_state[start : start + count])
            start += count
        return per_layer

    def call(self, sequences, initial_state=None, mask=None, training=None):
        planning.check_inputs(sequences, mask)
        initial_states = self._split_initial_state(initial_state)
        runs, lengths = dispatch.plan(
            self, mask, initial_states, training, self.compute_dtype
        )
        x, outputs, states = sequences, [], []
        index = 0
        while index < self.num_layers:
            # A planned run of layers as one kernel call, where the
            # backend's kernels take it; else its bottom layer on its own
            # (Keras's call), and the rest of the run after it.
            called = None
            if index in runs:
                run = self._stack_layers[index : runs[index]]
                called = self._call_fused(
                    run, x, mask, lengths, training, initial_states
                )
            if called is None:
                run = self._stack_layers[index : index + 1]
                called = self._call_layer(
                    run[0], x, mask, training, initial_states
                )
            y, run_states = called
            states.extend(run_states)
            outputs.append(y)
            for after in run[-1].after:
                y = after(y, training=training)
            x = y
            index += len(run)
        result = outputs if self.output_mode == "all" else outputs[-1]
        if self.return_state:
            return [result, *states]
        return result

    def _call_layer(self, layer, x, mask, training, initial_states):
        """Stack layer `layer`'s block called on `x`, as Keras calls it:
        `(output, states)`, states empty unless `return_state`."""
        kwargs = {"mask": mask, "training": training}
        if initial_states is not None:
            kwargs["initial_state"] = initial_states[layer.index]
        # The swap is a no-op unless a layer has weight_drop > 0; it is
        # done here so that Bidirectional's fused path sees it too.
        with weight_dropped(layer.directions, training):
            y = layer.block(x, **kwargs)
        if self.return_state:
            return y[0], list(y[1:])
        return y, []

    def _call_fused(self, run, x, mask, lengths, training, initial_states):
        """Stack layers `run` (planned by `zoo.kernels.dispatch.plan`) as
        one call of the backend's kernels: `(output of the top layer,
        states)`, or None where the kernels raise `NotImplementedError`,
        as `keras.layers.LSTM` falls back on its own loop when
        `backend.lstm` does."""
        run_state = None
        if initial_states is not None:
            run_state = [
                state for layer in run for state in initial_states[layer.index]
            ]
        swapped = [d for layer in run for d in layer.directions]
        try:
            with weight_dropped(swapped, training):
                y = dispatch.active().call_run(
                    [layer.recurrent for layer in run],
                    x,
                    lengths,
                    training,
                    initial_state=run_state,
                    return_state=self.return_state,
                )
        except NotImplementedError:
            return None
        run_states = []
        if self.return_state:
            y, run_states = y
        if run[0].wrapped:  # a wrapped layer is a run of one
            y = run[0].block.merge(x, y, mask)
        return y, list(run_states)

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        batch, steps = sequences_shape[0], sequences_shape[1]
        outputs, states = [], []
        for spec in self.layer_specs:
            top = spec.index == self.num_layers - 1
            if top and not self.return_sequences:
                outputs.append((batch, spec.output_width))
            else:
                outputs.append((batch, steps, spec.output_width))
            states.extend([(batch, spec.units)] * spec.num_states)
        result = outputs if self.output_mode == "all" else outputs[-1]
        if self.return_state:
            return [result, *states]
        return result

    def compute_mask(self, inputs, mask=None):
        if self.output_mode == "all":
            output_mask = [mask] * self.num_layers
        else:
            output_mask = mask if self.return_sequences else None
        if self.return_state:
            count = sum(spec.num_states for spec in self.layer_specs)
            return [output_mask] + [None] * count
        return output_mask

    def reset_states(self):
        """Resets the state of every layer (for `stateful=True`)."""
        for layer in self._stack_layers:
            layer.recurrent.reset_states()

    @classmethod
    def from_config(cls, config):
        if config.get("go_backwards"):
            # What `keras.layers.Bidirectional(stack)` asks for its copy
            # that reads backwards; raised here, because Keras buries an
            # error from `__init__` in its own "could not be deserialized".
            raise ValueError(_NO_GO_BACKWARDS)
        return super().from_config(config)

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                option.name: getattr(
                    self, _ATTRIBUTES.get(option.name, option.name)
                )
                for option in options.LAYER_OPTIONS
            }
        )
        return config
