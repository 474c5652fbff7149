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
`tag` / `classify` helpers use it too. Each backend's version lives with
that backend's kernels (`compile_function` in `zoo.kernels.torch_backend`,
`jax_backend` and `tensorflow_backend`, of which only the active
backend's is loaded), so this module stays backend-neutral; another
backend gets `function` as it is.
"""

import keras

from zoo import validation as v
from zoo import walk
from zoo.kernels import dispatch
from zoo.layers.token_embedding import TokenEmbedding


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
    return dispatch.active().compile_function(
        model, function, jit_compile=jit_compile
    )


def id_checks(model):
    """The token-id inputs of `model` that can be range-checked before a
    compiled call: a list of `(input index, argument name, vocabulary
    size)`.

    A `zoo.Seq2Seq` checks its source and target ids; a model with one
    `zoo.layers.TokenEmbedding` (every zoo backbone, tagger and
    classifier with token inputs) checks its first input, when that input
    holds integers. Other models (several embeddings of a user's own
    graph) get no check here: their `TokenEmbedding`s still check each
    eager call.
    """
    sizes = [
        getattr(model, "source_vocabulary_size", None),
        getattr(model, "target_vocabulary_size", None),
    ]
    if all(isinstance(size, int) for size in sizes):
        return [(0, "source_ids", sizes[0]), (1, "target_ids", sizes[1])]
    embeddings = [
        layer
        for layer in walk.iter_layers(model)
        if isinstance(layer, TokenEmbedding)
    ]
    inputs = getattr(model, "inputs", None) or []
    if len(embeddings) != 1 or not inputs:
        return []
    if "int" not in str(inputs[0].dtype):
        return []
    return [(0, "inputs", embeddings[0].accepted_ids)]


def check_ids(checks, inputs):
    """Raises a `ValueError` if `inputs` (one array or a list, as the
    model takes them) holds a token id out of range (`id_checks`)."""
    several = isinstance(inputs, (list, tuple))
    for index, name, size in checks:
        if several and index >= len(inputs):
            continue
        if not several and index > 0:
            continue
        ids = inputs[index] if several else inputs
        v.check_ids(name, ids, size, what=f"token ids (vocabulary_size={size})")


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
        array, or a list of arrays for a model with several inputs). It
        checks token ids before the compiled call (`id_checks`): an id
        outside `[0, vocabulary_size)` is a `ValueError` naming it, not
        NaN rows (JAX) or a backend's index error.

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
    checks = id_checks(model)

    def run(inputs):
        if isinstance(inputs, tuple):
            inputs = list(inputs)
        check_ids(checks, inputs)
        outputs = compiled(inputs)
        if not numpy:
            return outputs
        return keras.tree.map_structure(keras.ops.convert_to_numpy, outputs)

    return run
