"""Training speed of the zoo's biLM beside the same model in plain
PyTorch, side by side in one process (round robin, medians).

    python benchmarks/bilm_speed.py                    # TensorFlow
    KERAS_BACKEND=jax python benchmarks/bilm_speed.py
    KERAS_BACKEND=torch python benchmarks/bilm_speed.py
    python benchmarks/bilm_speed.py --quick            # a smoke run
    KERAS_BACKEND=torch python benchmarks/bilm_speed.py --keras-adam

The zoo model is `zoo.tasks.BiLM.create` (`zoo.language_model.bilm_graph`) as
`recipes.language_model` builds it by default (a character CNN and a
projection, a forward and a backward 2-layer residual LSTM stack of 256,
a sampled softmax of 512 negatives over 30,000 words), trained with
`train_on_batch` under `zoo.optimizers.Adam` (the recipe's; with
`--keras-adam`, the same model under `keras.optimizers.Adam` is timed
beside it, as `zoo_keras_adam`). The PyTorch model is the same
computation written directly: `nn.Embedding`, `nn.Conv1d` and a
max-pool, `nn.Linear`, one `nn.LSTM` per layer and direction (residual
additions between them), the same log-uniform sampled softmax,
`torch.optim.Adam` (its default on a CPU, as `pytorch`, and with
`fused=True`, as `pytorch_fused`: the kernel `zoo.optimizers.Adam` runs
on PyTorch). The plain model scores each direction with its own softmax
call and its own draw of negatives, as ELMo does; the zoo scores both
in one call (one gather of the softmax's rows, one draw), and
`pytorch_fused_one_softmax` is the plain model written that way too.
Both train on the same
batch (64 sentences of 24 words of up to 12 characters, no padding).

Prints words per second (both directions count a word once) and the
ratio zoo / PyTorch; writes `benchmarks/results/bilm_speed_cpu_BACKEND.json`.
"""

import argparse
import math
import pathlib
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import keras  # noqa: E402
import numpy as np  # noqa: E402

import zoo  # noqa: E402
from benchmarks import _common  # noqa: E402
from diagnostics import timing  # noqa: E402

torch = _common.torch

SHAPE = dict(
    batch=64, words=24, chars=12, units=256, layers=2, vocabulary=30000
)
CHAR_SET = list(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
)


def data(shape, seed=0):
    rng = np.random.default_rng(seed)
    # Zipf-like word ids (the sampler's assumption), none padding.
    ranks = rng.zipf(1.2, size=(shape["batch"], shape["words"]))
    words = (np.minimum(ranks, shape["vocabulary"] - 3) + 2).astype("int32")
    chars = rng.integers(
        2,
        len(CHAR_SET) + 2,
        size=(shape["batch"], shape["words"], shape["chars"]),
    ).astype("int32")
    return words, chars


def zoo_model(shape, optimizer=None):
    tokens = ["<s>", "</s>"] + [f"w{i}" for i in range(shape["vocabulary"] - 4)]
    model = zoo.tasks.BiLM.create(
        zoo.layers.TokenVocabulary(tokens, name="vocabulary"),
        zoo.layers.CharacterVocabulary(CHAR_SET, name="characters"),
        units=shape["units"],
        num_layers=shape["layers"],
        num_sampled=512,
        dropout=0.1,
        seed=0,
    )
    return zoo.language_model.compile_model(
        model, optimizer or zoo.optimizers.Adam(1e-3)
    )


class TorchBiLM(torch.nn.Module if torch else object):
    """The zoo's biLM written in plain PyTorch (no padding handled)."""

    def __init__(
        self, shape, chars, char_dim=16, filters=128, sampled=512, one=False
    ):
        super().__init__()
        self.one = one  # both directions in one softmax call, as the zoo
        units, layers = shape["units"], shape["layers"]
        self.vocabulary = shape["vocabulary"]
        self.sampled = sampled
        self.embedding = torch.nn.Embedding(chars, char_dim)
        self.conv = torch.nn.Conv1d(char_dim, filters, 3, padding=1)
        self.projection = torch.nn.Linear(filters, units)
        self.forward_layers = torch.nn.ModuleList(
            torch.nn.LSTM(units, units, batch_first=True) for _ in range(layers)
        )
        self.backward_layers = torch.nn.ModuleList(
            torch.nn.LSTM(units, units, batch_first=True) for _ in range(layers)
        )
        self.dropout = torch.nn.Dropout(0.1)
        self.kernel = torch.nn.Parameter(
            torch.randn(self.vocabulary, units) * 0.01
        )
        self.bias = torch.nn.Parameter(torch.zeros(self.vocabulary))

    def stack(self, layers, x):
        for index, lstm in enumerate(layers):
            y = lstm(x)[0]
            x = y + x if index > 0 else y
            if index < len(layers) - 1:
                x = self.dropout(x)
        return x

    def nll(self, hidden, targets):
        hidden = hidden.reshape(-1, hidden.shape[-1])
        targets = targets.reshape(-1)
        log_v = math.log(self.vocabulary + 1.0)
        u = torch.rand(self.sampled)
        sampled = (torch.floor(torch.exp(u * log_v)) - 1).clamp(
            0, self.vocabulary - 1
        )
        sampled = sampled.long()

        def log_expected(ids):
            ids = ids.float()
            return torch.log(
                torch.log((ids + 2) / (ids + 1)) / log_v * self.sampled
            )

        true = (
            (hidden * self.kernel[targets]).sum(1)
            + self.bias[targets]
            - log_expected(targets)
        )
        logits = (
            hidden @ self.kernel[sampled].T
            + self.bias[sampled]
            - log_expected(sampled)
        )
        logits = logits - 1e9 * (targets[:, None] == sampled[None, :]).float()
        every = torch.cat([true[:, None], logits], 1)
        return torch.logsumexp(every, 1) - true

    def forward(self, words, chars):
        b, t, c = chars.shape
        x = self.embedding(chars.reshape(b * t, c)).transpose(1, 2)
        x = torch.tanh(self.conv(x)).max(dim=2).values.reshape(b, t, -1)
        x = self.dropout(self.projection(x))
        forward = self.dropout(self.stack(self.forward_layers, x))
        backward = self.stack(self.backward_layers, x.flip(1)).flip(1)
        backward = self.dropout(backward)
        pad = torch.full_like(words[:, :1], 3)  # </s>
        following = torch.cat([words[:, 1:], pad], 1)
        preceding = torch.cat(
            [torch.full_like(words[:, :1], 2), words[:, :-1]], 1
        )
        if self.one:  # one gather and one draw of negatives for both
            hidden = torch.stack([forward, backward], 2)
            targets = torch.stack([following, preceding], 2)
            return self.nll(hidden, targets).mean()
        return 0.5 * (
            self.nll(forward, following).mean()
            + self.nll(backward, preceding).mean()
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument(
        "--keras-adam",
        action="store_true",
        help="also time the zoo model under keras.optimizers.Adam",
    )
    args = parser.parse_args(argv)
    if torch is None:
        raise SystemExit("error: PyTorch is not installed (pip install torch)")
    shape = dict(SHAPE)
    if args.quick:
        shape.update(units=32, vocabulary=2000, batch=16)
        args.repeats, args.steps = 2, 2
    words, chars = data(shape)
    mask = np.ones(words.shape, "float32")
    model = zoo_model(shape)
    x = (keras.ops.convert_to_tensor(words), keras.ops.convert_to_tensor(chars))
    y = keras.ops.convert_to_tensor(mask)

    def zoo_step():
        model.train_on_batch(x, y, sample_weight=y)

    blocks = {"zoo": [(zoo_step, args.steps)]}
    if args.keras_adam:
        other = zoo_model(shape, keras.optimizers.Adam(1e-3))
        blocks["zoo_keras_adam"] = [
            (lambda: other.train_on_batch(x, y, sample_weight=y), args.steps)
        ]

    tw, tc = torch.from_numpy(words).long(), torch.from_numpy(chars).long()

    def torch_step(one=False, **options):
        model = TorchBiLM(shape, len(CHAR_SET) + 2, one=one)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, **options)

        def step():
            optimizer.zero_grad(set_to_none=True)
            loss = model(tw, tc)
            loss.backward()
            optimizer.step()
            loss.item()

        return model, step

    # PyTorch's Adam as a user writes it (its default on a CPU, a loop
    # over the weights), and fused as `zoo.optimizers.Adam` runs it.
    reference, plain = torch_step()
    _, fused = torch_step(fused=True)
    blocks["pytorch"] = [(plain, args.steps)]
    blocks["pytorch_fused"] = [(fused, args.steps)]
    # And with the zoo's one softmax call for both directions too.
    _, one = torch_step(one=True, fused=True)
    blocks["pytorch_fused_one_softmax"] = [(one, args.steps)]
    for (step, _), *_ in blocks.values():  # compile and warm up
        step()
        step()
    samples = timing.round_robin(blocks, args.repeats)
    tokens = shape["batch"] * shape["words"]
    seconds = {k: statistics.median(v[0]) for k, v in samples.items()}
    rate = {k: tokens / s for k, s in seconds.items()}
    backend = keras.backend.backend()
    result = {
        "command": _common.command_line(argv),
        "backend": backend,
        "shape": shape,
        "median_step_seconds": seconds,
        "words_per_second": rate,
        "ratio_zoo_to_pytorch": rate["zoo"] / rate["pytorch"],
        "ratio_zoo_to_pytorch_fused_adam": rate["zoo"] / rate["pytorch_fused"],
        "ratio_zoo_to_pytorch_fused_adam_one_softmax": (
            rate["zoo"] / rate["pytorch_fused_one_softmax"]
        ),
        "params": {
            "zoo": model.count_params(),
            "pytorch": sum(p.numel() for p in reference.parameters()),
        },
        "versions": timing.versions(),
        "threads": torch.get_num_threads(),
    }
    print(result["command"])
    print("| model | words/s | median step (s) |")
    print("|---|---|---|")
    labels = {
        "zoo": f"zoo biLM ({backend})",
        "zoo_keras_adam": f"zoo biLM ({backend}), keras.optimizers.Adam",
        "pytorch": "plain PyTorch",
        "pytorch_fused": "plain PyTorch, Adam(fused=True)",
        "pytorch_fused_one_softmax": (
            "plain PyTorch, Adam(fused=True), one softmax call"
        ),
    }
    for key in rate:
        print(f"| {labels[key]} | {rate[key]:,.0f} | {seconds[key]:.3f} |")
    print(
        f"ratio zoo / PyTorch: {result['ratio_zoo_to_pytorch']:.3f}; "
        "to PyTorch with Adam(fused=True): "
        f"{result['ratio_zoo_to_pytorch_fused_adam']:.3f}; to it with "
        "one softmax call for both directions: "
        f"{result['ratio_zoo_to_pytorch_fused_adam_one_softmax']:.3f}"
    )
    path = _common.default_output("bilm_speed", args.quick, device="cpu")
    return _common.save_json(path, result)


if __name__ == "__main__":
    main()
