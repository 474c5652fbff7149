"""Per-layer hidden-state activity of a trained tagger over a sentence.

    python -m diagnostics activations --model runs/tagging/model.keras \\
        --sentence "The keys to the cabinet are on the table ."

Runs the tagger saved by `recipes.tagging` over one sentence and keeps
every layer's output sequence (the stack rebuilt with `output="all"`, same
weights). Writes to `--output`:

- `activations.png`: one heatmap per layer (hidden units x tokens; for a
  bidirectional layer the forward units come first), and below them two
  curves per layer: the mean |h| at each token, and the relative change
  mean |h_t - h_(t-1)| / mean |h| (over the two tokens), how much the
  layer's state moves at each token: a layer whose state moves little
  from word to word responds more slowly. (With residual connections an
  upper layer's output includes the layer below, so its |h| is larger.)
- `activations.csv` / `.json`: per layer and token, `mean_abs` and
  `change`; `summary.json`: the tags the model predicts and, per layer,
  the averages of both numbers over the sentence.

Layer 0 is the word embedding (the stack's input), layers 1..L the stack.
"""

import pathlib

import numpy as np

import harness
from diagnostics import _shared
from harness import files
from harness import plots

EXAMPLE = "The keys to the cabinet are on the table ."
QUICK_TOKENS = 12


def parse(argv):
    parser = _shared.tagger_parser("activations", __doc__)
    parser.add_argument(
        "--sentence",
        default=EXAMPLE,
        help="whitespace-tokenised text (default: %(default)r)",
    )
    parser.add_argument(
        "--output",
        default="runs/diagnostics/activations",
        help="folder for activations.png and the per-layer numbers "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"only the first {QUICK_TOKENS} tokens",
    )
    return parser.parse_args(argv)


def trace(tagger, words):
    """`(states, rows)`: per layer a `(tokens, width)` array, and one row
    per layer and token with `mean_abs` and `change`."""
    states = tagger.states([words])
    rows = []
    for layer, h in enumerate(states):
        # How far the state moves from one token to the next, relative to
        # its size (a residual stack's upper layers carry larger states).
        size = np.abs(h).mean(axis=1)
        moved = np.abs(np.diff(h, axis=0)).mean(axis=1)
        scale = np.maximum((size[1:] + size[:-1]) / 2, 1e-12)
        change = np.r_[np.nan, moved / scale]
        for position, (word, vector) in enumerate(zip(words, h)):
            rows.append(
                {
                    "layer": layer,
                    "position": position,
                    "token": word,
                    "mean_abs": float(np.abs(vector).mean()),
                    "change": None
                    if np.isnan(change[position])
                    else float(change[position]),
                }
            )
    return states, rows


def plot(states, rows, words, tags, path, title):
    plt = plots.pyplot()
    layers = len(states)
    fig, axes = plt.subplots(
        layers + 2,
        1,
        figsize=(max(6.0, 0.55 * len(words) + 2), 2.0 * layers + 4.5),
        gridspec_kw={"height_ratios": [2] * layers + [1.4, 1.4]},
    )
    labels = [f"{w}\n{t}" for w, t in zip(words, tags)]
    for layer, (ax, h) in enumerate(zip(axes, states)):
        limit = max(float(np.abs(h).max()), 1e-6)
        image = ax.imshow(
            h.T,
            aspect="auto",
            cmap="RdBu_r",
            vmin=-limit,
            vmax=limit,
            interpolation="nearest",
        )
        name = "embedding" if layer == 0 else f"layer {layer}"
        ax.set_ylabel(f"{name}\n({h.shape[1]} units)", fontsize=8)
        ax.set_xticks([])
        ax.set_yticks([])
        fig.colorbar(image, ax=ax, pad=0.01, fraction=0.02)
    for ax, key, label in (
        (axes[-2], "mean_abs", "mean |h|"),
        (axes[-1], "change", "relative change"),
    ):
        for layer in range(layers):
            values = [
                r[key] if r[key] is not None else np.nan
                for r in rows
                if r["layer"] == layer
            ]
            name = "embedding" if layer == 0 else f"layer {layer}"
            ax.plot(values, "o-", markersize=3, label=name)
        ax.set_ylabel(label, fontsize=8)
        ax.set_xlim(-0.5, len(words) - 0.5)
        ax.set_xticks(range(len(words)))
        ax.set_xticklabels([])
        ax.grid(alpha=0.3)
    axes[-1].set_xticklabels(labels, fontsize=7)
    axes[-2].legend(fontsize=7, ncol=min(layers, 5))
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None):
    args = parse(argv)
    words = args.sentence.split()
    if not words:
        raise harness.UsageError("--sentence is empty; give some words")
    if args.quick:
        words = words[:QUICK_TOKENS]
    tagger = _shared.Tagger(args.model)
    output = pathlib.Path(args.output)
    lock = _shared.lock_output(output)
    try:
        states, rows = trace(tagger, words)
        tags = tagger.model.predict_tags([words])[0]
        files.write_rows(rows, output, "activations")
        per_layer = []
        for layer in range(len(states)):
            mine = [r for r in rows if r["layer"] == layer]
            moves = [r["change"] for r in mine if r["change"] is not None]
            per_layer.append(
                {
                    "layer": layer,
                    "width": int(states[layer].shape[1]),
                    "mean_abs": float(np.mean([r["mean_abs"] for r in mine])),
                    "mean_change": float(np.mean(moves)) if moves else None,
                }
            )
        summary = {
            "model": args.model,
            "tokens": words,
            "tags": tags,
            "layers": per_layer,
        }
        files.write_json(output / "summary.json", summary)
        plot(
            states,
            rows,
            words,
            tags,
            output / "activations.png",
            f"hidden states per layer, {pathlib.Path(args.model).parent.name}"
            f" ({tagger.num_layers} layers)",
        )
        print("layer  width  mean|h|  mean change per token")
        for entry in per_layer:
            change = entry["mean_change"]
            print(
                f"{entry['layer']:>5}  {entry['width']:>5}  "
                f"{entry['mean_abs']:.4f}   "
                + (f"{change:.4f}" if change is not None else "-")
            )
        print(f"wrote {output}/activations.png, activations.csv, summary.json")
        return summary
    finally:
        lock.release()


if __name__ == "__main__":
    harness.run_cli(main)
