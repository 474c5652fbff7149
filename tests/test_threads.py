"""A model called from several threads at once gives each thread the
outputs of a sequential call, on every backend.

Serving code calls one loaded tagger from a pool of threads. On PyTorch
the zoo's fused `nn.LSTM` / `nn.GRU` call once ran every thread through
one shared parameterless module, into which `torch.func.functional_call`
swaps each call's weights: a thread could run with another thread's
weights and sizes, and get other outputs with no error
(`zoo.kernels.torch_backend.TorchKernels` now keeps a module per
thread). Each round here starts four threads together (a barrier), each
with its own batch lengths, through `model(x, training=False)` and
through `zoo.inference_function(model)`.
"""

import threading

import keras
import numpy as np

import zoo
from tests import helpers

THREADS = 4
ROUNDS = 20
# An eager call runs op by op on TensorFlow and JAX (a tenth of a second
# for these models on a busy 2-core CPU), and the zoo keeps no state of
# its own there: fewer rounds of `model(x)`, all of them of the compiled
# call. PyTorch's eager call is the zoo's fused kernel: every round.
EAGER_ROUNDS = ROUNDS if keras.backend.backend() == "torch" else 5


def _ids(seed, rows, longest, vocabulary=30):
    """A right-padded batch of token ids (0 pads): rows of lengths 1 to
    `longest`, at least one of them `longest` long."""
    rng = np.random.RandomState(seed)
    lengths = rng.randint(1, longest + 1, size=rows)
    lengths[0] = longest
    ids = rng.randint(1, vocabulary, size=(rows, longest)).astype("int32")
    ids[np.arange(longest)[None, :] >= lengths[:, None]] = 0
    return ids


def _randomise(model, seed=0):
    rng = np.random.RandomState(seed)
    for weight in model.weights:
        weight.assign(rng.uniform(-0.5, 0.5, weight.shape).astype("float32"))


def _bidirectional_tagger():
    """A tagger's shape: a masked bidirectional LSTM stack (one fused run
    of two layers on PyTorch), tags per token."""
    backbone = zoo.stacked_lstm(
        2, 8, vocabulary_size=30, embedding_dim=6, bidirectional=True
    )
    return zoo.heads.sequence_tagger(backbone, 5)


def _gru_classifier():
    """A unidirectional GRU stack that returns its last output."""
    backbone = zoo.stacked_gru(2, 8, vocabulary_size=30, embedding_dim=6)
    return zoo.heads.sequence_classifier(backbone, 3)


def _check_concurrent(calls, batches, rounds=ROUNDS):
    """Runs `calls[i]` on `batches[i]` one after another, then `rounds`
    times from one thread per batch at once; each concurrent result must
    equal its sequential one."""
    expected = [helpers.to_numpy(c(x)) for c, x in zip(calls, batches)]
    errors = []

    def work(index, barrier, results):
        try:
            barrier.wait()
            results[index] = helpers.to_numpy(calls[index](batches[index]))
        except Exception as error:  # noqa: BLE001  (reported below)
            errors.append(error)

    for round_ in range(rounds):
        barrier = threading.Barrier(len(batches))
        results = [None] * len(batches)
        threads = [
            threading.Thread(target=work, args=(i, barrier, results))
            for i in range(len(batches))
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors, errors
        for index, (got, want) in enumerate(zip(results, expected)):
            np.testing.assert_allclose(
                got,
                want,
                atol=1e-5,
                err_msg=f"round {round_}, thread {index}",
            )


def _check_models(models):
    """Thread `i` calls `models[i % len(models)]`, each model randomised
    with its own seed."""
    for seed, model in enumerate(models):
        _randomise(model, seed)
    # Each thread its own batch size and lengths (so its own module and
    # padding on PyTorch), short rows among long ones (length groups).
    batches = [
        _ids(seed, rows=2 + seed, longest=3 + 3 * seed)
        for seed in range(THREADS)
    ]
    chosen = [models[i % len(models)] for i in range(THREADS)]
    _check_concurrent(
        [lambda x, m=m: m(x, training=False) for m in chosen],
        batches,
        EAGER_ROUNDS,
    )
    predict = [zoo.inference_function(m) for m in models]
    _check_concurrent(
        [predict[i % len(models)] for i in range(THREADS)], batches
    )


# Two tests, not one parametrized: the core tier (JAX, PyTorch) samples
# parametrized library tests, and each case here is the point.
def test_a_bidirectional_masked_tagger_from_threads():
    _check_models([_bidirectional_tagger()])


def test_two_gru_classifiers_of_one_shape_from_threads():
    """Two models of one architecture (two languages' taggers in one
    server) with different weights share nothing either."""
    _check_models([_gru_classifier(), _gru_classifier()])
