"""`harness.plots`: epoch axes with whole epochs only, and titles that
fit inside their figure (wrapped at spaces, not cut at the edges)."""

import contextlib

import pytest

from harness import plots

pytestmark = pytest.mark.backend_free
pytest.importorskip("matplotlib")

QUICK_TITLE = (
    "2-layer bidirectional lstm tagger, Brown corpus, universal tags, "
    "80/10/10 by document (--quick: a smoke run on a subset)"
)


def _visible_ticks(ax):
    low, high = ax.get_xlim()
    return [t for t in ax.get_xticks() if low <= t <= high]


@pytest.mark.parametrize("epochs", [1, 2, 3, 12, 21, 40, 100])
def test_epoch_axes_show_whole_epochs_only(epochs, tmp_path, kept_figures):
    history = {
        "loss": [1.0 / (e + 1) for e in range(epochs)],
        "val_loss": [1.2 / (e + 1) for e in range(epochs)],
        "accuracy": [e / (epochs + 1) for e in range(epochs)],
    }
    plots.plot_history(history, tmp_path / "curves.png", title="t")
    (fig,) = kept_figures
    fig.canvas.draw()
    for ax in fig.axes:
        ticks = _visible_ticks(ax)
        assert ticks and all(float(t).is_integer() for t in ticks), ticks
        assert all(1 <= t <= epochs for t in ticks), ticks
    assert (tmp_path / "curves.png").stat().st_size > 1000


def test_one_epoch_is_tick_1_alone_mid_axis(tmp_path, kept_figures):
    history = {"loss": [0.7], "val_loss": [0.8], "accuracy": [0.5]}
    plots.plot_history(history, tmp_path / "curves.png")
    (fig,) = kept_figures
    fig.canvas.draw()
    for ax in fig.axes:
        assert _visible_ticks(ax) == [1]
        assert ax.get_xlim() == (0.5, 1.5)


def _inside(text, fig):
    """`text`'s drawn box lies within the figure's."""
    fig.canvas.draw()
    box = text.get_window_extent()
    frame = fig.bbox
    return (
        box.x0 >= frame.x0
        and box.x1 <= frame.x1
        and box.y0 >= frame.y0
        and box.y1 <= frame.y1
    )


def test_a_quick_runs_learning_curves_title_fits(tmp_path, kept_figures):
    history = {"loss": [0.7, 0.6], "accuracy": [0.5, 0.6]}
    plots.plot_history(history, tmp_path / "c.png", title=QUICK_TITLE * 2)
    (fig,) = kept_figures
    title = fig.get_suptitle()
    assert title.replace("\n", " ") == QUICK_TITLE * 2
    assert _inside(fig._suptitle, fig)
    # And above the plots, not over them.
    box = fig._suptitle.get_window_extent()
    for ax in fig.axes:
        assert box.y0 >= ax.title.get_window_extent().y1


@contextlib.contextmanager
def _figure(width, height):
    """A figure of one plot, `width` x `height` inches, closed after."""
    plt = plots.pyplot()
    fig, _ = plt.subplots(figsize=(width, height))
    try:
        yield fig
    finally:
        plt.close(fig)


@pytest.mark.parametrize("width", [3.0, 4.0, 6.0, 9.0])
def test_a_long_title_is_wrapped_inside_the_figure(width):
    with _figure(width, 3) as fig:
        text = plots.fit_title(fig, f"best val_accuracy\n{QUICK_TITLE}", 9)
        fig.tight_layout()
        assert _inside(text, fig)
        assert text.get_fontsize() == 9  # wrapped, not shrunk
        lines = text.get_text().split("\n")
        # Broken at spaces only: the words are the title's.
        assert " ".join(lines).split() == (
            f"best val_accuracy {QUICK_TITLE}".split()
        )


def test_a_non_breaking_space_keeps_a_count_together():
    with _figure(3, 3) as fig:
        title = "best val_accuracy over depth x width (2\u00a0trials)"
        text = plots.fit_title(fig, title, 9)
        assert _inside(text, fig)
        assert any(
            "(2\u00a0trials)" in line for line in text.get_text().split("\n")
        )


def test_a_word_wider_than_the_figure_shrinks_then_splits():
    with _figure(2, 2) as fig:
        path = "/data/" + "very-long-folder-name/" * 6 + "train.tsv"
        text = plots.fit_title(fig, f"files from {path}", 10)
        assert _inside(text, fig)
        assert text.get_fontsize() == 7
        assert text.get_text().replace("\n", "") == f"files from{path}"
