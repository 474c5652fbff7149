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
    run = _finished_run(tmp_path / "run")
    (run / "metrics.json").write_text("[]")  # damaged: a list
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


def _finished_run(folder):
    """A finished tagging run, as far as export reads one: an untrained
    tagger, its config and a whole metrics.json."""
    folder.mkdir()
    vocabulary = zoo.layers.TokenVocabulary(["a", "b"], name="vocabulary")
    model = zoo.tasks.Tagger(
        zoo.stacked_lstm(1, 4, vocabulary_size=4),
        zoo.tasks.TaggerPreprocessor(vocabulary, ["", "A", "B"]),
    )
    model.save(folder / "model.keras")
    (folder / "config.json").write_text(json.dumps({"dataset": "brown"}))
    metrics = {
        "split_tokens": {"test": 3},
        "test_accuracy": 0.5,
        "example": ["a/A"],
        "wrote": [],
    }
    (folder / "metrics.json").write_text(json.dumps(metrics))
    return folder


@pytest.mark.every_backend
def test_two_exports_to_one_new_name_one_wins(tmp_path, capsys, monkeypatch):
    """Issue 65: two concurrent exports to one new name both said `wrote`
    and one silently replaced the other. The name is locked for the whole
    export: the second fails in one line while the first runs, and finds
    the preset there once it is done."""
    import threading

    from recipes.presets import exporter

    run = _finished_run(tmp_path / "run")
    dest = tmp_path / "dest"
    inside, release = threading.Event(), threading.Event()
    save = zoo.presets.save_preset

    def slow_save(*args, **kwargs):
        if not inside.is_set():  # the first save waits, any other goes on
            inside.set()
            assert release.wait(60)
        return save(*args, **kwargs)

    monkeypatch.setattr(zoo.presets, "save_preset", slow_save)
    first = {}

    def export_first():
        try:
            first["found"] = exporter.export(run, "same", dest)
        except Exception as error:  # noqa: BLE001 - reported below
            first["error"] = error

    thread = threading.Thread(target=export_first)
    thread.start()
    try:
        assert inside.wait(60)
        line = _refused(
            ["export", str(run), "same", "--dest", str(dest)], capsys
        )
        assert "is exporting same there" in line, line
        # Even --overwrite waits its turn: nothing is moved aside.
        line = _refused(
            ["export", str(run), "same", "--dest", str(dest), "--overwrite"],
            capsys,
        )
        assert "is exporting same there" in line, line
    finally:
        release.set()
        thread.join(60)
    assert "error" not in first, first
    assert first["found"]["class"] == "zoo>Tagger"
    line = _refused(["export", str(run), "same", "--dest", str(dest)], capsys)
    assert "holds a preset; pass --overwrite" in line
    # One preset, the first's, and no lock or temporary folder left.
    assert sorted(p.name for p in dest.iterdir()) == ["same"]
    found = zoo.presets.verify(dest / "same")
    assert found["date_saved"] == first["found"]["date_saved"]


def test_the_name_is_checked_again_under_the_lock(
    tmp_path, capsys, monkeypatch
):
    """A preset written between the first check and the lock (by an
    export that held it) is not replaced without --overwrite."""
    from harness import rundir

    run = _finished_run(tmp_path / "run")
    dest = tmp_path / "dest"
    presets.main(["export", str(run), "theirs", "--dest", str(dest)])
    capsys.readouterr()
    acquire = rundir.FolderLock.acquire

    def meanwhile(lock):
        if not (dest / "same").exists():
            (dest / "theirs").rename(dest / "same")
        return acquire(lock)

    monkeypatch.setattr(rundir.FolderLock, "acquire", meanwhile)
    line = _refused(["export", str(run), "same", "--dest", str(dest)], capsys)
    assert "holds a preset; pass --overwrite" in line
    assert sorted(p.name for p in dest.iterdir()) == ["same"]
    assert zoo.presets.verify(dest / "same")["name"] == "theirs"


@pytest.mark.parametrize(
    "dest, words",
    [
        ("/proc/zoo-x", ["--dest /proc/zoo-x", "cannot write there"]),
        ("/proc/zoo-x/y", ["--dest /proc/zoo-x/y", "cannot write there"]),
    ],
)
def test_a_dest_that_cannot_be_written_is_one_line(
    tmp_path, capsys, dest, words
):
    run = _finished_run(tmp_path / "run")
    line = _refused(["export", str(run), "x", "--dest", dest], capsys)
    for word in words:
        assert word in line, line
    assert "/." not in line  # no temporary folder named


def test_a_name_too_long_for_a_file_system_is_one_line(tmp_path, capsys):
    run = _finished_run(tmp_path / "run")
    line = _refused(
        ["export", str(run), "a" * 300, "--dest", str(tmp_path)], capsys
    )
    assert "at most 200 characters" in line
    assert "(300 characters)" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]


def test_an_overwrite_keeps_files_that_are_not_the_presets(tmp_path, capsys):
    run = _finished_run(tmp_path / "run")
    presets.main(["export", str(run), "t", "--dest", str(tmp_path)])
    (tmp_path / "t" / "notes.txt").write_text("mine")
    capsys.readouterr()
    line = _refused(
        ["export", str(run), "t", "--dest", str(tmp_path), "--overwrite"],
        capsys,
    )
    assert "holds notes.txt, which is not a file of its preset" in line
    assert (tmp_path / "t" / "notes.txt").read_text() == "mine"
    zoo.presets.verify(tmp_path / "t")
