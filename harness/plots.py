"""Plots as PNG files, on matplotlib's headless backend.

Every plot of the recipes, the search, the diagnostics tools and the
benchmarks starts from `pyplot()`, which selects the "Agg" backend before
pyplot is first imported: none of them needs a screen, and a machine
without one (CI, a server) must not fail. matplotlib is an optional
dependency (the `recipes` and `tuning` extras).
"""

# A title may take this share of the figure's width (a margin each side).
TITLE_ROOM = 0.96


def pyplot():
    """`matplotlib.pyplot`, on the non-interactive "Agg" backend."""
    import matplotlib  # an optional dependency, imported where it is used

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def integer_ticks(axis):
    """Ticks at whole numbers only on `axis` (an epoch or depth axis),
    also when its view holds a single whole number (one epoch)."""
    import matplotlib.ticker  # pyplot() has set the backend

    # MaxNLocator(integer=True) keeps to whole numbers only when it finds
    # min_n_ticks (2 by default) of them in the view; a one-point axis
    # (0.945 .. 1.055) has one, and got fractional ticks.
    axis.set_major_locator(
        matplotlib.ticker.MaxNLocator(integer=True, min_n_ticks=1)
    )


def fit_title(fig, title, fontsize=10, min_fontsize=7):
    """Sets `title` as `fig`'s suptitle, wrapped to the figure's width so
    that no part of it is cut off; returns the `Text`.

    Lines break at spaces only (a non-breaking space, "\\u00a0", keeps two
    words together, e.g. "(2\\u00a0trials)"), and at the title's own
    newlines. When a single word is wider than the figure, the font
    shrinks (to `min_fontsize`), and then the word is split. The widths are
    measured with the figure's renderer, not estimated. Call it before
    `fig.tight_layout()`, which then makes room for every line.
    """
    text = fig.suptitle(title, fontsize=fontsize)
    if not title:
        return text
    renderer = fig.canvas.get_renderer()
    room = TITLE_ROOM * fig.bbox.width

    def width(line):
        w, _, _ = renderer.get_text_width_height_descent(
            line, text.get_fontproperties(), ismath=False
        )
        return w

    size = fontsize
    while True:
        text.set_fontsize(size)
        lines = _wrap(title, width, room, split_words=size <= min_fontsize)
        if max(map(width, lines)) <= room or size <= min_fontsize:
            break
        size = max(min_fontsize, size - 0.5)
    text.set_text("\n".join(lines))
    return text


def _wrap(title, width, room, split_words=False):
    """`title`'s lines, each broken at spaces into lines of at most `room`
    (`width(line)`); a longer word is split only with `split_words`."""
    lines = []
    for paragraph in title.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}" if line else word
            if not line or width(candidate) <= room:
                line = candidate
                continue
            lines.append(line)
            line = word
        lines.append(line)
    if not split_words:
        return lines
    pieces = []
    for line in lines:
        while width(line) > room and len(line) > 1:
            cut = len(line) - 1
            while cut > 1 and width(line[:cut]) > room:
                cut -= 1
            pieces.append(line[:cut])
            line = line[cut:]
        pieces.append(line)
    return pieces


def plot_history(history, path, metric="accuracy", title=""):
    """Learning curves (loss and `metric`, train and validation, per epoch
    from a Keras `History.history`-like dict) as a PNG at `path`."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
    for ax, name in zip(axes, ("loss", metric)):
        integer_ticks(ax.xaxis)
        longest = 0
        for prefix, style in (("", "-o"), ("val_", "--o")):
            values = history.get(prefix + name)
            if values:
                epochs = range(1, len(values) + 1)
                ax.plot(epochs, values, style, label=prefix + name)
                longest = max(longest, len(values))
        if longest:
            # Epochs 1..n with a margin of less than one epoch each side:
            # no tick at epoch 0 or n + 1, and one epoch is tick 1 alone.
            margin = min(0.9, max(0.5, 0.05 * (longest - 1)))
            ax.set_xlim(1 - margin, longest + margin)
        ax.set_xlabel("epoch")
        ax.set_title(name)
        if ax.get_legend_handles_labels()[0]:
            ax.legend()
    fit_title(fig, title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_attention(source, target, weights, path, title=""):
    """An attention heat map as a PNG at `path`: `weights[i, j]`, how much
    output token `target[i]` looked at input token `source[j]` (rows
    sum to 1), the tokens as tick labels."""
    plt = pyplot()
    rows, columns = len(target), len(source)
    width = min(max(4.0, 0.28 * columns + 2.0), 24.0)
    height = min(max(3.0, 0.28 * rows + 1.6), 24.0)
    fig, ax = plt.subplots(figsize=(width, height))
    image = ax.imshow(
        weights[:rows, :columns], cmap="viridis", vmin=0.0, aspect="auto"
    )
    ax.set_xticks(range(columns), source, rotation=90, fontsize=7)
    ax.set_yticks(range(rows), target, fontsize=7)
    ax.set_xlabel("source")
    ax.set_ylabel("output")
    fig.colorbar(image, ax=ax, fraction=0.03)
    fit_title(fig, title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
