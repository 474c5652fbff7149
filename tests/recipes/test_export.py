"""`python -m recipes.presets export` refuses, in one line and before it
writes or deletes anything, a name that is not a plain folder name, a
`--dest` through a file, a folder that is not a finished run and a
non-finite float16 limit (issue 42's hostile findings)."""

import json

import pytest

import harness
import zoo
from recipes import presets


def _refused(argv, capsys):
    with pytest.raises(SystemExit) as info:
        harness.run_cli(presets.main, argv)
    assert info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


@pytest.mark.parametrize("name", [".", "..", "a/b", "", "x y", "/abs", "~x"])
def test_a_name_that_is_not_a_plain_folder_name_is_refused(
    name, tmp_path, capsys
):
    before = sorted(p.name for p in zoo.presets.PRESETS_DIR.iterdir())
    line = _refused(["export", str(tmp_path), name, "--overwrite"], capsys)
    assert "a preset's name is a plain folder name" in line
    after = sorted(p.name for p in zoo.presets.PRESETS_DIR.iterdir())
    assert after == before  # the shipped presets are all still there


def test_a_dest_through_a_file_and_a_foreign_run_are_refused(tmp_path, capsys):
    (tmp_path / "file").write_text("mine")
    line = _refused(
        ["export", str(tmp_path), "x", "--dest", str(tmp_path / "file/sub")],
        capsys,
    )
    assert line.endswith(f"not a folder ({tmp_path / 'file'} is a file)")
    run = tmp_path / "run"
    run.mkdir()
    vocabulary = zoo.layers.TokenVocabulary(["a", "b"], name="vocabulary")
    model = zoo.heads.sequence_tagger(
        zoo.stacked_lstm(1, 4, vocabulary_size=4),
        3,
        labels=["", "A", "B"],
        vocabulary=vocabulary,
    )
    model.save(run / "model.keras")
    (run / "config.json").write_text(json.dumps({"dataset": "brown"}))
    (run / "metrics.json").write_text("[]")
    line = _refused(["export", str(run), "y", "--dest", str(tmp_path)], capsys)
    assert "metrics.json is damaged: a JSON list" in line
    assert "not a finished run of recipes.tagging to export" in line
    assert not (tmp_path / "y").exists()
    assert (tmp_path / "file").read_text() == "mine"


@pytest.mark.parametrize("limit", ["nan", "inf", "-1"])
def test_the_float16_limit_must_be_a_finite_number(limit, tmp_path, capsys):
    line = _refused(
        ["export", str(tmp_path), "x", "--max-float16-loss", limit], capsys
    )
    assert "--max-float16-loss" in line
