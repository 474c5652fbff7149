"""`Kernels`: what a backend offers a stack, and the default answer, none.

Keras's `LSTM.inner_loop` asks its backend for a fused kernel
(`backend.lstm(...)`) and, when the backend raises
`NotImplementedError`, runs its own loop. `zoo.layers.StackedRNN` asks
its backend's `Kernels` object the same way for a whole run of layers
(`call_run`), and calls the layers one by one when the plan
(`zoo.kernels.dispatch.plan`, which reads the class's answers below)
leaves a run out or the kernel raises `NotImplementedError`.

Each framework's module subclasses it (`zoo.kernels.torch_backend`,
`jax_backend`, `tensorflow_backend`) and keeps whatever state it needs
on its instance, not in module globals; this class is what a backend
without a module gets.
"""

from keras import ops

from zoo import cells
from zoo.kernels import planning
from zoo.walk import directions

# How many times a watched variable was assigned (`weights_probe`).
_ASSIGNMENTS = [0]


def _count_assignments(variable):
    """Makes `variable.assign` (the one method that Keras's other writes
    of a variable go through) bump `_ASSIGNMENTS`, once per variable. An
    attribute of the instance: Keras's class and other variables are
    untouched."""
    assign = variable.assign
    if getattr(assign, "counts_assignments", False):
        return

    def counted(value):
        result = assign(value)
        _ASSIGNMENTS[0] += 1  # after: a reader never caches half of it
        return result

    counted.counts_assignments = True
    variable.assign = counted


class Kernels:
    """A backend's multi-layer kernels: none here.

    Attributes:
        name: the Keras backend's name (None: none of the zoo's).
        takes_masks: the kernels take a right-padded mask (its lengths).
        takes_states: they take initial states and return final ones.
    """

    name = None
    takes_masks = False
    takes_states = False

    def supports(self, cell, length, bidirectional):
        """Whether this backend (on this machine) has a kernel for a run
        of `length` layers of `cell` (a `zoo.cells` name); the cell's
        `multi_layer_backends` say where one exists."""
        return self.name in cells.get(cell).multi_layer_backends

    def dtype_ok(self, dtype):
        """Whether this machine's device runs `dtype` fused (`zoo.cells`)."""
        return False

    def padded_lengths(self, mask):
        """Each row's length if `mask` is right-padded, else None."""
        return planning.right_padded_lengths(mask)

    def call_run(
        self, entries, x, lengths=None, training=None, initial_state=None,
        return_state=False,
    ):  # fmt: skip
        """Runs a fused run of stack entries on `x`; returns the top
        output (and, with `return_state`, the run's final states).

        Raises `NotImplementedError`, before anything is drawn or run,
        where this backend has no kernel for the call: the stack then
        calls the layers one by one.

        Args:
            entries: the run's recurrent layers (each
                `StackLayer.recurrent`: LSTM / GRU layers or
                `Bidirectional` wrappers of them), as planned by `plan`.
            x: `(batch, timesteps, features)` input.
            lengths: per-row lengths of a right-padded mask, or None.
            training: the call's training flag (input dropout of the first
                layer, drawn from that layer's own seed generator).
            initial_state: the run's layers' initial states, a flat list in
                `StackedRNN`'s `return_state` order.
            return_state: also return the run's final states, in that
                order: `(output, states)`.
        """
        planning.check_inputs(x)
        if (initial_state is not None or return_state) and not (
            self.takes_states
        ):
            raise NotImplementedError(
                f"no fused call with states on {self.name}"
            )
        if lengths is not None and not self.takes_masks:
            raise NotImplementedError(
                f"no fused call with a mask on {self.name}"
            )
        first = directions(entries[0])[0]
        if training and first.cell.dropout > 0:
            # Keras's own mask, one per sequence, on the run's input (as
            # Keras's cuDNN path applies it).
            mask = first.cell.get_dropout_mask(x[:, 0, :])
            first.cell.reset_dropout_mask()
            x = x * ops.expand_dims(mask, 1)
        return self.run(entries, x, lengths, initial_state, return_state)

    def run(self, entries, x, lengths, initial_state, return_state):
        """The kernel call itself, after `call_run`'s checks and input
        dropout."""
        raise NotImplementedError(f"no fused kernel on {self.name}")

    def compile_function(self, model, function, jit_compile=False):
        """`function`, which reads `model`'s variables, compiled for the
        backend (`zoo.inference.compile_function`); as it is here."""
        return function

    # What a serving snapshot asks of a backend (`zoo.tasks` runners).
    def weights_probe(self, model):
        """A function `() -> token` whose token changes whenever any of
        `model`'s weights may have changed since it was made: what tells
        a NumPy snapshot of the weights (`zoo.engine`) that it is stale.

        Here (TensorFlow, and backends without a module) the backend
        cannot say cheaply: reading every variable costs more than a
        batch-1 call of the engine, and a variable keeps one identity
        through its updates. So the token counts what Keras does: each
        variable's `assign` (which `set_weights`, `load_weights`,
        `assign_add` / `assign_sub` and a user's assignment call) bumps a
        count, and the model's optimizer's `iterations` counts the steps
        of `fit` and of a training loop that applies it (they update the
        variables inside a compiled graph, past `assign`). A variable
        updated by another model's optimizer, inside that model's graph,
        is not seen: call the task model's `refresh()`.
        """
        variables = list(model.weights)
        for variable in variables:
            _count_assignments(variable)

        def probe():
            optimizer = getattr(model, "optimizer", None)
            steps = None
            if optimizer is not None and optimizer.built:
                steps = int(ops.convert_to_numpy(optimizer.iterations))
            return _ASSIGNMENTS[0], steps

        return probe

    # What `zoo.optimizers.Adam` asks of a backend.
    fuses_adam = False

    def adam_step(
        self, variable, gradient, slots, iterations, learning_rate, adam,
        start=0,
    ):  # fmt: skip
        """One Adam step on `variable` in place by a fused kernel, with
        `slots` (its momentum, velocity and, with `amsgrad`, velocity
        maximum), after `iterations` steps (the optimizer's variable), the
        bias correction counted from step `start` (no update before it),
        `adam` holding the betas and epsilon; True if done, False where
        the backend has no such kernel (the optimizer then updates with
        Keras ops)."""
        return False

    # What `zoo.validation` asks of a backend (`register_backend`).
    def compiling(self):
        """Whether a compiler is tracing this call (values unreadable)."""
        return False

    def check_traced_ids(self, name, ids, size, what, mask, fail):
        """`ids` checked inside a traced step, where the backend can:
        `fail(name, values, size, what, mask)` raises the eager check's
        error. Returns the ids the step must use."""
        return ids
