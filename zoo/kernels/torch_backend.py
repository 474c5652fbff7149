"""The PyTorch backend's kernels: runs of LSTM / GRU layers as one
`torch.nn.LSTM` / `torch.nn.GRU(num_layers=L)` call, on CPU and GPU.

A run of one layer is fused too: on this backend Keras itself has no CPU
kernel and runs a Python-level time loop. The kernel is PyTorch's own on
a CPU, cuDNN on a GPU, in float32, bfloat16, or float16 on a GPU. A
right-padded mask (every row's real steps first, at least one) is taken
with Keras's values on padded steps (the last real output, or zeros in a
bidirectional layer): on a CPU the kernel runs on the padded rows in
groups of similar length (`length_groups`; a packed sequence is much
slower there); on a GPU, and wherever states go in or out
(`initial_state`, `return_state`: each row's final states are at its own
last real step), it gets a packed sequence.

The modules are parameterless (on PyTorch's `meta` device) and called
with `torch.func.functional_call`, which swaps the run's weights into the
module for the length of the call (and puts the placeholders back after
it): a module called by two threads at once can run one thread's call
with the other's weights, of another direction or another model of the
same shape. So each thread has its own modules (`TorchKernels._module`);
one shared cache of them made a tagger called from several threads give
other outputs than a sequential run, with no error
(`tests/test_threads.py`).
"""

import math
import threading
import warnings

import torch

from zoo import cells
from zoo.kernels import base
from zoo.kernels import planning
from zoo.kernels import weights
from zoo.walk import directions

_PARAMETERS = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")


def _params(entries, dtype, direction=None):
    """The run's weights under nn.LSTM / nn.GRU parameter names: every
    direction, or one `direction` (0 or 1) as a unidirectional module's."""
    params = {}
    for j, rnn in enumerate(entries):
        layers = directions(rnn)
        chosen = range(len(layers)) if direction is None else [direction]
        for d in chosen:
            reverse = d == 1 and direction is None
            suffix = f"_l{j}" + ("_reverse" if reverse else "")
            values = weights.converted(layers[d], dtype)
            for name, value in zip(_PARAMETERS, values):
                params[name + suffix] = value
    return params


def _torch_states(states, cell, dtype):
    """Keras's flat state list (per layer and direction: `[h, c]` or
    `[h]`) -> nn.LSTM's `(h_0, c_0)` / nn.GRU's `h_0`, `(layers *
    directions, batch, units)` each."""
    states = [weights.tensor(state, dtype) for state in states]
    if cell.states_per_direction == 1:
        return torch.stack(states)
    return torch.stack(states[0::2]), torch.stack(states[1::2])


def _keras_states(final, cell):
    """nn.LSTM's `(h_n, c_n)` / nn.GRU's `h_n` -> Keras's flat list."""
    if cell.states_per_direction == 1:
        return list(final)
    h, c = final
    return [state for pair in zip(h, c) for state in pair]


def length_groups(lengths):
    """Rows grouped by length: `[(rows, steps), ...]`, the rows as an index
    tensor and `steps` the group's longest length.

    One group when at least half the padded steps are real (a batch from
    length buckets); else groups whose longest row is at most twice their
    shortest (lengths 1, 2, 3-4, 5-8, ...).
    """
    longest = int(lengths.max())
    if 2 * int(lengths.sum()) >= longest * len(lengths):
        return [(None, longest)]
    octave = torch.ceil(torch.log2(lengths.double())).long()
    groups = []
    for value in torch.unique(octave).tolist():
        rows = torch.nonzero(octave == value).squeeze(1)
        groups.append((rows, int(lengths[rows].max())))
    return groups


def _reverse_within(x, lengths):
    """Each row's first `length` steps reversed, its padding left in place
    (its own inverse). One `index_select` of rows over `(batch * steps,
    features)`, as `zoo.layers.bilm.reverse_padded` gathers: a `gather`
    with the index expanded to every feature cost about 1.6 times as
    much, forward and back."""
    batch, steps = x.shape[0], x.shape[1]
    positions = torch.arange(steps, device=x.device)[None, :]
    lengths = lengths[:, None]
    index = torch.where(positions < lengths, lengths - 1 - positions, positions)
    rows = torch.arange(batch, device=x.device)[:, None] * steps
    flat = (index + rows).reshape(-1)
    return x.reshape(batch * steps, -1).index_select(0, flat).reshape(x.shape)


def _last_step(y, lengths):
    """Each row's output at its last real step: `(batch, features)`."""
    return y[torch.arange(y.shape[0], device=y.device), lengths - 1]


def _keras_padding(y, lengths, layer):
    """Keras's outputs on padded steps: zeros where the layer sets
    zero_output_for_mask (a Bidirectional sets it on its layers), else the
    last real output carried over. Every row at full length: `y` as it
    is (no `where`, forward or back; the lengths are eager here)."""
    if int(lengths.min()) >= y.shape[1]:
        return y
    real = torch.arange(y.shape[1], device=y.device)[None, :] < lengths[:, None]
    if layer.zero_output_for_mask:
        return torch.where(real[..., None], y, torch.zeros_like(y))
    last = _last_step(y, lengths)
    return torch.where(real[..., None], y, last[:, None, :])


class TorchKernels(base.Kernels):
    """The PyTorch backend's kernels, with their state: each thread's
    modules and the versions of the calls that `torch.compile` runs
    eagerly."""

    name = "torch"
    takes_masks = True
    takes_states = True
    length_groups = staticmethod(length_groups)

    def __init__(self):
        self._threads = threading.local()  # `.modules`: see `_module`
        # What `torch.compile` (Keras's `jit_compile=True` on PyTorch)
        # runs eagerly, made once here, outside any traced frame: dynamo
        # does not honour a `disable` made while it traces.
        self._eager_run = torch.compiler.disable(self._run)
        self._eager_lengths = torch.compiler.disable(
            planning.right_padded_lengths
        )

    def weights_probe(self, model):
        """`base.Kernels.weights_probe` from PyTorch's own count: every
        in-place write of a tensor (Keras's `assign`, its optimizers'
        `foreach` updates, the fused Adam kernel) bumps the tensor's
        version counter (`Tensor._version`, what autograd checks saved
        tensors with), and Keras writes a variable's tensor in place."""
        tensors = [variable.value for variable in model.weights]

        def probe():
            return [tensor._version for tensor in tensors]

        return probe

    # PyTorch's own fused Adam kernel (`torch.optim.Adam(fused=True)`
    # calls it; there is no public entry point), where this PyTorch has it.
    _fused_adam = getattr(torch, "_fused_adam_", None)
    fuses_adam = _fused_adam is not None
    _ADAM_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)

    def adam_step(
        self, variable, gradient, slots, iterations, learning_rate, adam,
        start=0,
    ):  # fmt: skip
        """PyTorch's fused Adam kernel: one vectorised pass over the
        variable and its moments. It puts epsilon inside the bias
        correction (`sqrt(v) / sqrt(1 - b2^t) + eps`), Keras outside it
        (`sqrt(v) + eps`, the step scaled by `sqrt(1 - b2^t)`): passing
        `eps / sqrt(1 - b2^t)` makes the two one update. Declined (False)
        while `torch.compile` traces the step (it reads the step count
        and rate as numbers) and for other dtypes."""
        weight = variable.value
        if (
            self._fused_adam is None
            or torch.compiler.is_compiling()
            or weight.dtype not in self._ADAM_DTYPES
        ):
            return False
        # The optimizer's variable, or with gradient accumulation a tensor.
        step = int(getattr(iterations, "value", iterations)) + 1 - start
        if step < 1:  # not yet live: no update, the moments stay zero
            return True
        correction = math.sqrt(1 - adam.beta_2**step)
        with torch.no_grad():
            self._fused_adam(
                [weight],
                [gradient.to(weight.dtype)],
                [slots[0].value],
                [slots[1].value],
                [slot.value for slot in slots[2:]],
                [torch.tensor(float(step), device=weight.device)],
                lr=float(learning_rate),
                beta1=adam.beta_1,
                beta2=adam.beta_2,
                weight_decay=0.0,
                eps=adam.epsilon / correction,
                amsgrad=len(slots) > 2,
                maximize=False,
            )
        return True

    def compiling(self):
        """Whether `torch.compile` (`jit_compile=True`) traces the call."""
        return torch.compiler.is_compiling()

    def dtype_ok(self, dtype):
        device = "gpu" if torch.cuda.is_available() else "cpu"
        return cells.fused_dtype("torch", dtype, device)

    def padded_lengths(self, mask):
        """`right_padded_lengths`, outside any `torch.compile` graph: it
        reads the mask's values (data-dependent branches and sizes, which
        dynamo would trace into, warn about at length and break the graph
        at anyway)."""
        if torch.compiler.is_compiling():
            return self._eager_lengths(mask)
        return planning.right_padded_lengths(mask)

    def run(self, entries, x, lengths, initial_state, return_state):
        """The run, outside any `torch.compile` graph: the multi-layer
        call is one native PyTorch kernel already."""
        if torch.compiler.is_compiling():
            return self._eager_run(
                entries, x, lengths, initial_state, return_state
            )
        return self._run(entries, x, lengths, initial_state, return_state)

    def compile_function(self, model, function, jit_compile=False):
        """The eager call under `torch.inference_mode()` (no autograd
        graph); the fused calls run inside it."""

        def run(*inputs):
            with torch.inference_mode():
                return function(*inputs)

        return run

    def _module(self, cell, input_size, units, num_layers, bidirectional):
        """A parameterless (meta-device) nn.LSTM / nn.GRU to call
        functionally (`cell`: a `zoo.cells.Cell`), this thread's own:
        `functional_call` swaps each call's weights into it."""
        modules = getattr(self._threads, "modules", None)
        if modules is None:
            modules = self._threads.modules = {}
        key = (cell.name, input_size, units, num_layers, bidirectional)
        if key not in modules:
            kind = getattr(torch.nn, cell.torch_module)
            modules[key] = kind(
                input_size,
                units,
                num_layers=num_layers,
                batch_first=True,
                bidirectional=bidirectional,
                device="meta",
            )
        return modules[key]

    def _call(
        self, cell, units, params, inputs, num_layers, bidirectional, hx=None
    ):
        # `inputs` may be a packed sequence: the width comes from the
        # weights.
        input_size = params["weight_ih_l0"].shape[1]
        module = self._module(
            cell, input_size, units, num_layers, bidirectional
        )
        with warnings.catch_warnings():
            # cuDNN copies weights that are not one contiguous block; that
            # copy is the cost of keeping Keras's per-layer variables.
            warnings.simplefilter("ignore", UserWarning)
            args = (inputs,) if hx is None else (inputs, hx)
            return torch.func.functional_call(module, params, args)

    def _run(self, entries, x, lengths, initial_state=None, return_state=False):
        first = directions(entries[0])[0]
        cell, units = cells.of_layer(first), first.cell.units
        bidirectional = len(directions(entries[0])) == 2
        top = directions(entries[-1])
        has_states = initial_state is not None or return_state
        if lengths is not None and x.device.type == "cpu" and not has_states:
            return self._run_padded(entries, x, lengths.to(x.device).long())
        inputs = x
        if lengths is not None:
            # The packed sequence's final states are each row's, at its
            # last real step, as Keras's (the padded CPU path has none).
            inputs = torch.nn.utils.rnn.pack_padded_sequence(
                x, lengths.cpu(), batch_first=True, enforce_sorted=False
            )
        params = _params(entries, x.dtype)
        hx = None
        if initial_state is not None:
            hx = _torch_states(initial_state, cell, x.dtype)
        y, final = self._call(
            cell, units, params, inputs, len(entries), bidirectional, hx
        )
        if not top[0].return_sequences:
            # The final states: the forward direction's at each row's last
            # real step, the backward direction's after the first step.
            h = final if cell.states_per_direction == 1 else final[0]
            y = torch.cat([h[-2], h[-1]], -1) if bidirectional else h[-1]
        elif lengths is not None:
            y, _ = torch.nn.utils.rnn.pad_packed_sequence(
                y, batch_first=True, total_length=x.shape[1]
            )
            y = _keras_padding(y, lengths.to(y.device).long(), top[0])
        if return_state:
            return y, _keras_states(final, cell)
        return y

    def _run_padded(self, entries, x, lengths):
        """A masked run on a CPU, without a packed sequence.

        PyTorch's CPU kernel (oneDNN) takes no packed sequence: a packed
        one runs a per-step loop whose backward allocates a full-size
        gradient for every step's slice (1.0-2.4x slower than a padded
        call, `benchmarks/packed.py`). Right padding lets the kernel run
        over padded rows instead: a forward direction's real steps never
        read the padding after them, and a backward direction reads each
        row reversed within its length (`_reverse_within`), so its padding
        comes after its real steps too. So that short rows do not pay for
        the longest one (a batch of words' characters: 4 real of 19 steps
        on average in the tagger), rows run in `length_groups`, each cut
        to its own longest row. The padded steps' values are then
        replaced by Keras's.
        """
        first = directions(entries[0])[0]
        cell, units = cells.of_layer(first), first.cell.units
        top = directions(entries[-1])[0]
        bidirectional = len(directions(entries[0])) == 2
        if bidirectional:
            params = [
                [_params([rnn], x.dtype, d) for d in (0, 1)] for rnn in entries
            ]
        else:
            params = _params(entries, x.dtype)
        outputs, order = [], []
        for rows, steps in length_groups(lengths):
            if rows is None:
                part, part_lengths = x[:, :steps], lengths
            else:
                part, part_lengths = x[rows, :steps], lengths[rows]
            if bidirectional:
                y = self._bidirectional_rows(
                    cell, units, params, part, part_lengths, top
                )
            else:
                y, _ = self._call(
                    cell, units, params, part, len(entries), False
                )
                if not top.return_sequences:
                    y = _last_step(y, part_lengths)
            if top.return_sequences:
                pad = x.shape[1] - steps
                y = torch.nn.functional.pad(y, (0, 0, 0, pad))
            outputs.append(y)
            order.append(rows)
        y = outputs[0]
        if order[0] is not None:
            y = torch.cat(outputs)[torch.argsort(torch.cat(order))]
        if not top.return_sequences:
            return y
        return _keras_padding(y, lengths, top)

    def _bidirectional_rows(self, cell, units, params, x, lengths, top):
        """Bidirectional layers on right-padded rows, one direction at a
        time.

        Returns the top layer's outputs per step (if `top` returns
        sequences), else its two final states side by side, each at the
        row's last real step of its own reading order.
        """
        for index, (forward_params, backward_params) in enumerate(params):
            forward, _ = self._call(cell, units, forward_params, x, 1, False)
            backward, _ = self._call(
                cell,
                units,
                backward_params,
                _reverse_within(x, lengths),
                1,
                False,
            )
            if index == len(params) - 1 and not top.return_sequences:
                return torch.cat(
                    [
                        _last_step(forward, lengths),
                        _last_step(backward, lengths),
                    ],
                    -1,
                )
            x = torch.cat([forward, _reverse_within(backward, lengths)], -1)
        return x


KERNELS = TorchKernels()
