"""One error path for every command line (`harness.run_cli`): a bad flag,
a bad seed, a full disk, a refused permission, h5py's failure to flush a
file and Ctrl-C each end in one line on standard error, with exit code 2
(1 for a failure while a model trained, 130 for Ctrl-C); run in-process."""

import errno
import os

import keras
import numpy as np
import pytest

import harness
from diagnostics import __main__ as diagnostics_cli
from harness import errors
from recipes import classification
from recipes import g2p
from recipes import launch
from recipes import stacks
from recipes import tagging
from recipes import training
from tuning import search

# CLI behaviour, not a backend's: the TensorFlow tier runs it.
pytestmark = pytest.mark.tf_tier

# Every product command line, as `(main, the arguments before a flag)`.
CLIS = {
    "recipes.tagging": (tagging.main, []),
    "recipes.classification": (classification.main, []),
    "recipes.g2p": (g2p.main, []),
    "recipes.stacks": (stacks.main, []),
    "recipes.launch": (launch.main, []),
    "tuning.search": (search.main, []),
    "tuning.search --task seq2seq": (search.main, ["--task", "seq2seq"]),
    **{
        f"diagnostics {tool}": (diagnostics_cli.main, [tool])
        for tool in ("activations", "gradients", "probe", "cost")
    },
    "diagnostics study depth": (diagnostics_cli.main, ["study", "depth"]),
    "diagnostics study merge": (
        diagnostics_cli.main,
        ["study", "merge", "a", "--output", "b"],
    ),
}
# The command lines that take `--seed`.
SEEDED = (
    "recipes.tagging",
    "recipes.classification",
    "recipes.g2p",
    "recipes.stacks",
    "tuning.search",
    "diagnostics gradients",
    "diagnostics probe",
    "diagnostics cost",
)


def one_line(capsys, main, argv, code=2):
    """Runs `main(argv)` under `run_cli`; its one stderr line."""
    with pytest.raises(SystemExit) as info:
        harness.run_cli(main, argv)
    err = capsys.readouterr().err.strip()
    assert info.value.code == code, err
    assert len(err.splitlines()) == 1, err
    assert err.startswith("error: "), err
    return err


@pytest.mark.parametrize("name", CLIS)
def test_an_unknown_flag_is_one_line_and_exit_2(name, capsys):
    main, before = CLIS[name]
    err = one_line(capsys, main, [*before, "--no-such-flag", "3"])
    assert "--no-such-flag" in err


@pytest.mark.parametrize("name", SEEDED)
@pytest.mark.parametrize("seed", ["-1", "4294967296"])
def test_a_seed_out_of_32_bits_is_refused_when_parsed(
    name, seed, capsys, tmp_path
):
    main, before = CLIS[name]
    argv = [*before, "--seed", seed, "--output", str(tmp_path / "out")]
    err = one_line(capsys, main, argv)
    assert "--seed must be an integer in [0, 4294967295]" in err, err
    assert f"received {seed}" in err


def test_a_config_files_seed_out_of_32_bits_is_refused(capsys, tmp_path):
    path = tmp_path / "config.json"
    path.write_text('{"seed": 4294967296}')
    argv = ["--config", str(path), "--output", str(tmp_path / "out")]
    err = one_line(capsys, tagging.main, argv)
    assert f"--config {path}: `seed` must be an integer in [0, " in err


def test_a_studys_seeds_and_a_searched_seed_range_are_checked(capsys, tmp_path):
    err = one_line(
        capsys,
        diagnostics_cli.main,
        [
            "study",
            "depth",
            "--seeds",
            "0,4294967296",
            "--output",
            str(tmp_path),
        ],
    )
    assert "--seeds must be an integer in [0, 4294967295]" in err
    assert "received 4294967296" in err


def disk_full(path):
    return OSError(errno.ENOSPC, "No space left on device", str(path))


def test_a_full_disk_before_training_is_one_line_naming_the_folder(
    capsys, tmp_path
):
    def main(argv):
        errors.writes_to(tmp_path)
        raise disk_full(tmp_path / "config.json")

    err = one_line(capsys, main, [], code=2)
    assert f"cannot write {tmp_path / 'config.json'}: no space left" in err
    assert f"(in {tmp_path}: " in err and " free)" in err


def test_a_full_disk_while_training_exits_1_saying_the_backup_is_kept(
    capsys, tmp_path
):
    class FullDisk(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            raise disk_full(tmp_path / "backup" / "epoch-1.weights.h5")

    def main(argv):
        errors.writes_to(tmp_path)
        model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
        model.compile("sgd", "mse")
        x = np.zeros((4, 2), "float32")
        model.fit(x, x[:, :1], epochs=1, verbose=0, callbacks=[FullDisk()])

    err = one_line(capsys, main, [], code=1)
    assert "no space left" in err and f"(in {tmp_path}: " in err
    assert f"the work up to the last backup in {tmp_path} is kept" in err


def test_h5pys_failure_to_flush_is_one_line(capsys, tmp_path):
    # h5py raises a RuntimeError from its own code when a full disk stops
    # it flushing a file; here a function of an `h5py` module does.
    space = {"__name__": "h5py._hl.files"}
    exec(  # noqa: S102 - a frame in a module named h5py
        "def close():\n"
        "    raise RuntimeError('Disable slist on flush dest failure failed')",
        space,
    )

    def main(argv):
        errors.writes_to(tmp_path)
        space["close"]()

    err = one_line(capsys, main, [], code=2)
    assert "h5py: Disable slist on flush dest failure failed" in err
    assert f"(in {tmp_path}: " in err


def test_a_runtime_error_of_another_kind_keeps_its_traceback():
    def main(argv):
        raise RuntimeError("a bug")

    with pytest.raises(RuntimeError, match="a bug"):
        harness.run_cli(main, [])


@pytest.mark.parametrize(
    "error",
    [
        PermissionError(errno.EACCES, "Permission denied", "/x/run"),
        OSError(errno.EROFS, "Read-only file system", "/x/run"),
    ],
)
def test_a_refused_write_is_one_line(error, capsys):
    def main(argv):
        raise error

    err = one_line(capsys, main, [], code=2)
    assert f"cannot write /x/run: {error.strerror}" in err
    assert "permissions" in err


def test_ctrl_c_is_one_line_and_exit_130(capsys, tmp_path):
    def main(argv):
        errors.writes_to(tmp_path)
        raise KeyboardInterrupt

    err = one_line(capsys, main, [], code=130)
    assert "interrupted" in err
    assert f"rerun the same command to resume {tmp_path}" in err

    def tool(argv):
        raise KeyboardInterrupt

    assert one_line(capsys, tool, [], code=130) == "error: interrupted (Ctrl-C)"


@pytest.mark.parametrize("overwrite", [False, True])
def test_ctrl_c_in_a_recipe_says_what_to_rerun(
    overwrite, capsys, tmp_path, monkeypatch
):
    # Found by the hostile run: a run started with --overwrite said "rerun
    # the same command to resume", which would empty the folder again.
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(training, "train_and_evaluate", interrupted)
    argv = ["--output", str(tmp_path / "run")]
    err = one_line(
        capsys, tagging.main, argv + ["--overwrite"] * overwrite, code=130
    )
    rerun = (
        "the same command without --overwrite"
        if overwrite
        else ("the same command")
    )
    assert f"rerun {rerun} to resume {tmp_path / 'run'}" in err


@pytest.mark.parametrize(
    "command, reason",
    [
        (["/nonexistent/binary"], "/nonexistent/binary: no such file"),
        (["no-such-command-here", "-x"], "no-such-command-here: not found on"),
        (["TEXT"], "TEXT: not an executable file"),
    ],
)
def test_launch_names_a_command_that_cannot_run(
    command, reason, capsys, tmp_path
):
    text = tmp_path / "notes.txt"
    text.write_text("not a program\n")
    text.chmod(0o644)
    command = [str(text) if c == "TEXT" else c for c in command]
    reason = reason.replace("TEXT", str(text))
    argv = ["--workers", "1", "--", *command]
    err = one_line(capsys, launch.main, argv)
    assert f"the command after -- cannot run: {reason}" in err
    assert f"received: {' '.join(command)}" in err


def test_a_supervisor_names_a_child_that_cannot_start():
    from harness import processes

    with pytest.raises(harness.UsageError) as info:
        with processes.Supervisor(log=open(os.devnull, "w")) as group:
            group.start("worker 0", ["/nonexistent/binary", "a b"])
    assert str(info.value) == (
        "cannot start worker 0: /nonexistent/binary: No such file or "
        "directory; received: /nonexistent/binary 'a b'"
    )


# The command lines that load a model with `predict --model`.
PREDICTORS = {
    "recipes.tagging": tagging.main,
    "recipes.classification": classification.main,
    "recipes.g2p": g2p.main,
}


@pytest.mark.parametrize("name", PREDICTORS)
@pytest.mark.parametrize(
    "model", ["a" * 300, "x/" * 3000], ids=["a name", "a path"]
)
def test_predict_names_a_model_the_system_cannot_look_up(name, model, capsys):
    """Issue 65: a 300-character `--model` was 41 lines ending in
    `OSError: File name too long`."""
    err = one_line(
        capsys, PREDICTORS[name], ["predict", "--model", model, "--input", "-"]
    )
    assert "no such file or shipped preset" in err
    assert "characters)" in err and len(err) < 400


def _tampered_tagger_preset(folder):
    """A tagger preset whose checks metadata switched off: its weights
    changed and its `files` emptied (the checksums then all pass)."""
    import json

    import zoo

    vocabulary = zoo.layers.TokenVocabulary(["a", "b"], name="vocabulary")
    zoo.Tagger(
        zoo.stacked_lstm(1, 4, vocabulary_size=4),
        zoo.tasks.TaggerPreprocessor(vocabulary, ["", "A", "B"]),
    ).save_to_preset(folder)
    found = json.loads((folder / "metadata.json").read_text())
    found["files"] = {}
    (folder / "metadata.json").write_text(json.dumps(found))
    return folder


def test_predict_refuses_a_preset_whose_checks_were_switched_off(
    capsys, tmp_path
):
    folder = _tampered_tagger_preset(tmp_path / "preset")
    (tmp_path / "in.txt").write_text("a b\n")
    err = one_line(
        capsys,
        tagging.main,
        [
            "predict", "--model", str(folder), "--input",
            str(tmp_path / "in.txt"), "--output", str(tmp_path / "out.txt"),
        ],
    )  # fmt: skip
    assert "lists no checksum of config.json" in err
    assert not (tmp_path / "out.txt").exists()


def test_export_to_a_place_that_cannot_be_written_is_one_line(capsys):
    from recipes import presets

    # No run there either: the --dest line comes first, before any work.
    err = one_line(
        capsys,
        presets.main,
        ["export", "/nonexistent-run", "x", "--dest", "/proc/zoo-x"],
    )
    assert "--dest /proc/zoo-x: cannot write there" in err
