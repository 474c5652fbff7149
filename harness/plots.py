"""Plots as PNG files, on matplotlib's headless backend.

Every plot of the recipes, the search, the diagnostics tools and the
benchmarks starts from `pyplot()`, which selects the "Agg" backend before
pyplot is first imported: none of them needs a screen, and a machine
without one (CI, a server) must not fail. matplotlib is an optional
dependency (the `recipes` and `tuning` extras).
"""


def pyplot():
    """`matplotlib.pyplot`, on the non-interactive "Agg" backend."""
    import matplotlib  # an optional dependency, imported where it is used

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def integer_ticks(axis):
    """Ticks at whole numbers only on `axis` (an epoch or depth axis)."""
    import matplotlib.ticker  # pyplot() has set the backend

    axis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))


def plot_history(history, path, metric="accuracy", title=""):
    """Learning curves (loss and `metric`, train and validation, per epoch
    from a Keras `History.history`-like dict) as a PNG at `path`."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
    for ax, name in zip(axes, ("loss", metric)):
        integer_ticks(ax.xaxis)
        for prefix, style in (("", "-o"), ("val_", "--o")):
            values = history.get(prefix + name)
            if values:
                epochs = range(1, len(values) + 1)
                ax.plot(epochs, values, style, label=prefix + name)
        ax.set_xlabel("epoch")
        ax.set_title(name)
        ax.legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
