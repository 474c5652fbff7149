"""PyTorch's CPU LSTM on a packed sequence against the padded batch.

    python benchmarks/packed.py [--repeats 20]

Why `zoo.fused` runs a masked batch on a CPU on its padded rows (in
`zoo.fused.length_groups`) instead of as a packed sequence: times one
bidirectional `torch.nn.LSTM`, forward and backward, on the same batch
given both ways (lengths drawn uniformly from 1 to the width, one row
full), and prints the medians. Shapes: the tagger's character encoder
(words x characters x 32 -> 32) and its word stack (sentences x words x
192 -> 128).
"""

import argparse
import statistics
import time

import torch

SHAPES = ((1024, 24, 32, 32), (1024, 10, 32, 32), (32, 32, 192, 128))


def step_ms(lstm, x, lengths, packed, repeats):
    times = []
    for _ in range(repeats + 3):
        start = time.perf_counter()
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
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times[3:])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    torch.manual_seed(0)
    print(
        "| rows | steps | features | units | packed ms | padded ms "
        "| packed / padded |"
    )
    print("|---|---|---|---|---|---|---|")
    for rows, steps, features, units in SHAPES:
        lstm = torch.nn.LSTM(
            features, units, batch_first=True, bidirectional=True
        )
        x = torch.randn(rows, steps, features, requires_grad=True)
        lengths = torch.randint(1, steps + 1, (rows,))
        lengths[0] = steps
        packed = step_ms(lstm, x, lengths, True, args.repeats)
        padded = step_ms(lstm, x, lengths, False, args.repeats)
        print(
            f"| {rows} | {steps} | {features} | {units} | {packed:.1f} "
            f"| {padded:.1f} | {packed / padded:.2f} |"
        )


if __name__ == "__main__":
    main()
