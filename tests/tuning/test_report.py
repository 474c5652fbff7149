"""`tuning.report`: the heatmap's title says what was searched (not the
recipe's one model) and fits its figure; trial numbers are keras-tuner's
("Trial 1 Complete"), its ids name the folders."""

import pytest

from tests.recipes.test_tagging import tiny_config
from tuning import report
from tuning import search

pytest.importorskip("matplotlib")


def _problem_and_hypermodel(tmp_path, **options):
    # The tagger's default stack: 2-layer, bidirectional, lstm.
    config = tiny_config(tmp_path, quick=True, bidirectional=True)
    problem = search.problem_for("tagging", config)
    hypermodel = search.make_hypermodel(
        problem, search.SearchOptions(**options)
    )
    return problem, hypermodel


def test_the_subtitle_of_a_search_over_depths_claims_no_depth(tmp_path):
    problem, hypermodel = _problem_and_hypermodel(tmp_path, layers="1,4")
    assert problem.description.startswith("2-layer bidirectional lstm")
    where = report.search_description(problem, hypermodel)
    assert "2-layer" not in where and "lstm" not in where
    assert where.startswith("tagging: bidirectional RNN tagger, ")
    assert where.endswith("; searched: cell, num_layers, units")
    assert "(--quick: a smoke run on a subset)" in where
    # What is not searched is said: the cell here.
    problem, hypermodel = _problem_and_hypermodel(
        tmp_path / "2", search="num_layers,units", layers="1,4"
    )
    where = report.search_description(problem, hypermodel)
    assert where.startswith("tagging: bidirectional lstm tagger, ")
    assert where.endswith("; searched: num_layers, units")


def _rows(depths, widths):
    return [
        {
            "num_layers": d,
            "width": float(w),
            "score": 0.5 + 0.01 * i,
            "objective": "val_accuracy",
            "cell": "lstm",
        }
        for i, (d, w) in enumerate((d, w) for d in depths for w in widths)
    ]


@pytest.mark.parametrize("widths", [[8], [8, 16], list(range(8, 129, 8))])
def test_the_heatmap_title_fits_and_keeps_its_count_whole(
    widths, tmp_path, kept_figures
):
    rows = _rows([1, 4], widths)[:2]  # 2 trials: "(2 trials)"
    where = (
        "tagging: bidirectional RNN tagger, Brown corpus, universal tags, "
        "80/10/10 by document (--quick: a smoke run on a subset); "
        "searched: cell, num_layers, units"
    )
    title = report.heatmap_title("val_accuracy", rows, where)
    assert report.plot_heatmap(_rows([1, 4], widths), tmp_path / "h.png", title)
    (fig,) = kept_figures
    fig.canvas.draw()
    text = fig._suptitle
    box, frame = text.get_window_extent(), fig.bbox
    assert frame.x0 <= box.x0 and box.x1 <= frame.x1
    assert frame.y0 <= box.y0 and box.y1 <= frame.y1
    lines = text.get_text().split("\n")
    assert any(line.endswith("(2\u00a0trials)") for line in lines), lines
    assert " ".join(lines).split() == title.split()


def test_trial_numbers_are_keras_tuners_from_1():
    assert report.trial_number("0") == 1
    assert report.trial_number("09") == 10
    assert report.trial_number("010") == 11
