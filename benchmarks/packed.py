"""PyTorch's CPU LSTM on a packed sequence against the padded batch.

    python benchmarks/packed.py [--repeats 20]

Why `zoo.fused` runs a masked batch on a CPU on its padded rows (in
`zoo.fused.length_groups`) instead of as a packed sequence: times one
bidirectional `torch.nn.LSTM`, forward and backward, on the same batch
given both ways (lengths drawn uniformly from 1 to the width, one row
full), the two in turns (`diagnostics.timing.round_robin`), and prints the
medians. Shapes: the tagger's character encoder (words x characters x 32
-> 32) and its word stack (sentences x words x 192 -> 128). The padded
call is the kernel's gain, an upper bound for the fused path's (which
makes one call per direction).
"""

import argparse
import functools
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from diagnostics import timing  # noqa: E402

SHAPES = ((1024, 24, 32, 32), (1024, 10, 32, 32), (32, 32, 192, 128))


def step(lstm, x, lengths, packed):
    """One forward and backward pass, packed or on the padded batch."""
    if packed:
        sequence = torch.nn.utils.rnn.pack_padded_sequence(
            x, lengths, batch_first=True, enforce_sorted=False
        )
        y, _ = lstm(sequence)
        y, _ = torch.nn.utils.rnn.pad_packed_sequence(
            y, batch_first=True, total_length=x.shape[1]
        )
    else:
        y, _ = lstm(x)
    y.sum().backward()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    torch.manual_seed(0)
    rows_out = []
    for rows, steps, features, units in SHAPES:
        lstm = torch.nn.LSTM(
            features, units, batch_first=True, bidirectional=True
        )
        x = torch.randn(rows, steps, features, requires_grad=True)
        lengths = torch.randint(1, steps + 1, (rows,))
        lengths[0] = steps
        blocks = {
            kind: [(functools.partial(step, lstm, x, lengths, packed), 1)]
            for kind, packed in (("packed", True), ("padded", False))
        }
        for ((function, _),) in blocks.values():
            function()  # warm-up
        medians = timing.medians(
            timing.round_robin(blocks, args.repeats, label=f"{rows}x{steps}")
        )
        packed, padded = medians["packed"][0], medians["padded"][0]
        rows_out.append((rows, steps, features, units, packed, padded))
    print(f"\npython benchmarks/packed.py --repeats {args.repeats}\n")
    print(
        "| rows | steps | features | units | packed ms | padded ms "
        "| packed / padded |"
    )
    print("|---|---|---|---|---|---|---|")
    for rows, steps, features, units, packed, padded in rows_out:
        print(
            f"| {rows} | {steps} | {features} | {units} | {1000 * packed:.1f} "
            f"| {1000 * padded:.1f} | {packed / padded:.2f} |"
        )


if __name__ == "__main__":
    main()
