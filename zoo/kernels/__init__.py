"""Multi-layer kernels for runs of plain LSTM / GRU layers.

`zoo.layers.StackedRNN` looks for runs of consecutive layers that a
multi-layer kernel can compute in one call (PyTorch's `nn.LSTM(num_layers=
L)`, `jax.experimental.rnn.lstm(num_layers=L)`): plain LSTM or GRU layers
(weight-drop variants included), all unidirectional or all bidirectional
with `merge_mode="concat"`, of one width, nothing between them, every one
eligible for the fused kernel (see `zoo.fast_path`). The weights stay in
the layers' own variables and are repacked for each call, so the
`.keras` files are the same with or without it, and the outputs are the
same up to float rounding (tests check this against the per-layer path
and against `zoo.reference`).

The package follows Keras's own split between a layer and its backend
(`keras.layers.LSTM` asks `backend.lstm` for a fused kernel and runs its
own loop on `NotImplementedError`):

- `planning`: what runs where, backend-neutral (which layers form a run,
  which runs this call fuses, the `ZOO_FUSED` / `disabled()` switch);
- `weights`: Keras's weights in PyTorch's and cuDNN's layouts (Keras ops);
- `base.Kernels`: what a backend offers, and its default, nothing;
- `torch_backend`, `jax_backend`, `tensorflow_backend`: one module per
  framework, each importing its framework once, its state on one object;
- `dispatch`: the one place that imports a framework's module, the active
  backend's only.

Where a kernel is used: PyTorch, CPU and GPU, every run (masks if
right-padded, initial and final states too); JAX GPUs, runs of two or
more float32 LSTM layers without a mask or states; TensorFlow never.
Everything else falls back to calling the layers one by one,
automatically. `zoo.fast_path_report` says which layers form a run; set
the environment variable `ZOO_FUSED=0`, or use `with
zoo.fused.disabled():`, to turn the multi-layer path off.
"""

from zoo.kernels import dispatch
from zoo.kernels import planning  # noqa: F401  (before a backend's module)

# The active backend's kernels, loaded now rather than in a first call
# that `torch.compile` may be tracing (their eager versions are made when
# they load; see `zoo.kernels.torch_backend`).
dispatch.active()
