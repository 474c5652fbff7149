"""Fast inference: a model's forward pass compiled for the current backend.

`model.predict` is built for large inputs: it makes a dataset and a
progress loop around every call, tens of milliseconds at batch 1 on
TensorFlow. `model(x)` called eagerly runs op by op. What serving code
wants is the backend's own compiled call, cached:

- TensorFlow: a `tf.function` (`reduce_retracing=True`, so new batch
  sizes and lengths soon stop retracing), with XLA when
  `jit_compile=True` (on GPU, XLA cannot compile the cuDNN LSTM / GRU
  kernels that Keras picks there: keep the default);
- JAX: a `jax.jit` function that takes the model's current variable
  values at each call (through `keras.StatelessScope`), so weights
  trained later are used without recompiling; each new input shape
  compiles once (pad to a few fixed lengths);
- PyTorch: the eager call under `torch.inference_mode()` (no autograd
  graph); the zoo's fused `nn.LSTM` / `nn.GRU` path runs inside it.

Keras has no public API for this (`model.predict_on_batch` still builds
its `predict_function` with a distribution and callbacks in mind), so it
is written here, once: `zoo.seq2seq.compiled_decoder` and the recipes'
`tag` / `classify` helpers use it too. The backend is imported in its own
branch only, so the library stays backend-neutral.
"""

import importlib

import keras

from zoo import validation as v


def compile_function(model, function, *, jit_compile=False):
    """`function(*inputs)`, which reads `model`'s variables, compiled for
    the current backend (see the module's docstring).

    Args:
        model: the `keras.Model` (or layer) whose variables `function`
            reads.
        function: a function of backend tensors or NumPy arrays.
        jit_compile: TensorFlow only: compile the graph with XLA.

    Returns:
        A function with `function`'s arguments and results.
    """
    v.check_bool("jit_compile", jit_compile)
    backend = keras.backend.backend()
    if backend == "tensorflow":
        tf = importlib.import_module("tensorflow")
        return tf.function(
            function, jit_compile=jit_compile, reduce_retracing=True
        )
    if backend == "jax":
        jax = importlib.import_module("jax")
        variables = list(model.variables)

        def stateless(values, *inputs):
            mapping = list(zip(variables, values))
            with keras.StatelessScope(state_mapping=mapping):
                return function(*inputs)

        compiled = jax.jit(stateless)

        def run(*inputs):
            return compiled([x.value for x in variables], *inputs)

        return run
    if backend == "torch":
        torch = importlib.import_module("torch")

        def run(*inputs):
            with torch.inference_mode():
                return function(*inputs)

        return run
    return function


def inference_function(model, *, jit_compile=False, numpy=True):
    """`model(inputs, training=False)`, compiled for the current backend.

    Use it where `model.predict` is too slow: serving one request at a
    time, or a loop over small batches. Dropout is off, as in `predict`.

    Args:
        model: a `keras.Model`.
        jit_compile: TensorFlow only: compile the graph with XLA (faster
            on CPU at batch 1; not on GPU, see the module's docstring).
        numpy: return NumPy arrays (`True`) or the backend's tensors.

    Returns:
        A function `inputs -> outputs`: `inputs` as `model` takes them (an
        array, or a list of arrays for a model with several inputs).

    Example:
    ```python
    predict = zoo.inference_function(model)
    probabilities = predict(token_ids)   # NumPy, (batch, steps, tags)
    ```
    """
    if not isinstance(model, keras.Model):
        raise ValueError(
            "`model` must be a keras.Model; received model="
            f"{model!r} of type {type(model).__name__}."
        )
    v.check_bool("numpy", numpy)

    def call(inputs):
        return model(inputs, training=False)

    compiled = compile_function(model, call, jit_compile=jit_compile)

    def run(inputs):
        if isinstance(inputs, tuple):
            inputs = list(inputs)
        outputs = compiled(inputs)
        if not numpy:
            return outputs
        return keras.tree.map_structure(keras.ops.convert_to_numpy, outputs)

    return run
