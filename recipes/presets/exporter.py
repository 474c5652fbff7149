"""A recipe's finished run made a preset (`export`), with what it knows:
the recipe and the command that trains it again (the flags that differ
from the recipe's defaults), its config, its data and `metrics.json`, the
lines it printed, what the model computes on fixed inputs, and the code
version. With `float16`, the run's test split is scored with the
float32 and the float16 weights side by side first (`float16_check` in
the metadata); above `max_loss` points lost the export stops.
"""

import dataclasses
import importlib
import pathlib
import re
import shlex
import subprocess
import tempfile

import harness
import zoo
from harness import flags
from harness import rundir
from recipes import distributed
from recipes import models
from recipes import results

# A preset's name: a plain folder name (letters, digits, `_`, `-`, `.`;
# not `.` or `..`, no path separator), nothing a shell or a path reads
# otherwise; short enough that its lock and temporary folders, a few
# characters longer, are names a file system takes (255 bytes).
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
MAX_NAME = 200


def check_name(name):
    """Refuses a preset name that is not a plain folder name."""
    if not isinstance(name, str) or not NAME.match(name) or name in (".", ".."):
        raise harness.UsageError(
            f"NAME {harness.errors.shorten(name)}: a preset's name is a "
            "plain folder name (letters, digits, '_', '-' and '.', starting "
            "with a letter or digit), e.g. my_tagger"
        )
    if len(name) > MAX_NAME:
        raise harness.UsageError(
            f"NAME {harness.errors.shorten(name)}: a preset's name is at "
            f"most {MAX_NAME} characters"
        )


def command_line(module, config):
    """`python -m MODULE` and the flags whose values differ from the
    recipe's defaults (`--output` left out)."""
    words = ["python", "-m", module]
    for field in dataclasses.fields(config):
        if field.name == "output":
            continue
        value = getattr(config, field.name)
        default = (
            field.default
            if field.default is not dataclasses.MISSING
            else field.default_factory()
        )
        if field.name == "pretrained":
            # `auto` resolves per dataset: the flag only where the run's
            # biLM is not what `auto` gives it; no biLM is `none`.
            default = dataclasses.replace(config, pretrained="auto").pretrained
            value = value or "none"
            default = default or "none"
        if value == default:
            continue
        flag = flags.flag_of(field.name)
        if isinstance(value, bool):
            words.append(flag if value else f"--no-{flag[2:]}")
        else:
            if isinstance(value, list):
                value = ",".join(map(str, value))
            words += [flag, shlex.quote(str(value))]
    return " ".join(words)


def code_version():
    """`git describe --always --dirty` of the checkout, or "unknown"."""
    root = pathlib.Path(__file__).resolve().parent.parent
    try:
        found = subprocess.run(
            ["git", "describe", "--always", "--dirty"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return found.stdout.strip()


def _numbers(metrics):
    return {
        k: v
        for k, v in metrics.items()
        if k.startswith("test_")
        and isinstance(v, (int, float))
        and not isinstance(v, bool)
    }


def score_test_split(task, config, state, model):
    """The task's test metrics of `model` (compiled here) on the run's own
    test split (`state`, from `task.prepare(config)`), as the run
    computed them."""
    _, _, test = task.datasets(config, state, config.batch_size)
    scores = {}
    if test is not None:  # a G2P run decodes its test words instead
        # As the run fed it: Keras's own adapter would fix each dimension
        # that the first batches share (`recipes.pipeline.tf_dataset`).
        test = distributed.setup().dataset(test)
        task.compile(model, config)
        scores = model.evaluate(test, verbose=0, return_dict=True)
    return _numbers(task.evaluate(config, state, model, scores))


def check_dest(dest):
    """Refuses a `--dest` that is not a folder and cannot be one (a file,
    or a path through a file) before any work is done."""
    path = pathlib.Path(dest)
    for part in (path, *path.parents):
        if part.exists() or part.is_symlink():
            if not part.is_dir():
                raise harness.UsageError(
                    f"--dest {dest}: not a folder ({part} is a file)"
                )
            return


def export(
    run,
    name,
    dest,
    float16=False,
    max_loss=0.1,
    overwrite=False,
    trained_at=None,
    sources=None,
):
    """Writes run `run` as the preset `dest/name`; returns its metadata.
    `trained_at`: the code version the run was trained at, when known
    (recorded beside this checkout's, `code_version`). `sources`: what
    the training data are, for the metadata's `sources` (a list of
    dicts: each source's name, version, licence, where it came from,
    SHA-256, what may be shipped), beside the sizes and SHA-256 of the
    data files the run names (`data_files`).

    One export at a time per preset name: the name is locked for the
    whole export (`harness.rundir.FolderLock` on `dest/.NAME.lock`), and
    whether `dest/name` is in the way is checked under the lock, so a
    second export to the same name started meanwhile fails in one line
    (and one started after it finds the preset there: `--overwrite`)."""
    check_name(name)
    check_dest(dest)
    folder = pathlib.Path(dest) / name
    _check_target(folder, overwrite)  # before any work: one line
    made = not _exists(dest)
    lock = rundir.FolderLock(
        dest,
        flag="--dest",
        name=f".{name}.lock",
        doing=f"is exporting {name} there",
    ).acquire()
    try:
        _check_target(folder, overwrite)  # again, under the lock
        return _export(
            run, folder, float16, max_loss, overwrite, trained_at, sources
        )
    finally:
        lock.release(remove=made)  # a --dest made here, if left empty


def _exists(path):
    try:
        return pathlib.Path(path).exists()
    except OSError:
        return False


def _check_target(folder, overwrite):
    """`zoo.presets.check_target` of `folder`, its refusal one line."""
    try:
        zoo.presets.check_target(folder, overwrite)
    except FileExistsError as error:
        raise _refusal(folder, overwrite, error) from None
    except OSError as error:
        raise harness.UsageError(f"--dest: {error}") from None


def _export(
    run, folder, float16, max_loss, overwrite, trained_at, sources=None
):
    run = pathlib.Path(run)
    for needed in ("config.json", "metrics.json", "model.keras"):
        if not (run / needed).is_file():
            raise harness.UsageError(
                f"RUN {run}: no {needed}; a finished recipe run is needed"
            )
    # The kind its `zoo.tasks` class says it is (a run of this release
    # saves one); nothing is guessed from the model's layers.
    found = models.load_saved_model(run / "model.keras", "RUN")
    kind = getattr(found, "preset_kind", None)
    if kind not in models.SAVED_BY:
        raise harness.UsageError(
            f"RUN {run}: its model is none of {', '.join(models.SAVED_BY)}"
        )
    module = models.SAVED_BY[kind]
    task = importlib.import_module(f"{module}.task").TASK
    model = task.load(run)
    saved = rundir.read_saved_config(run / "config.json")
    names = {f.name for f in dataclasses.fields(task.Config)}
    saved = {**getattr(task.Config, "SAVED_DEFAULTS", {}), **saved}
    config = task.Config(**{k: v for k, v in saved.items() if k in names})
    # A run's metrics, checked as a rerun reads them (one line if not).
    metrics = results.finished_metrics(
        task,
        run / "metrics.json",
        advice=f"not a finished run of {module} to export",
    )
    metadata = {
        "recipe": module,
        "command": command_line(module, config),
        "config": {k: v for k, v in saved.items() if k != "output"},
        "metrics": {k: v for k, v in metrics.items() if k != "wrote"},
        "printed": task.summary(metrics),
        "code_version": code_version(),
        **({"trained_at": trained_at} if trained_at else {}),
        **({"sources": sources} if sources else {}),
    }
    data_files = task.data_files(config)
    if data_files:
        metadata["data_files"] = data_files
    if float16:
        print(f"scoring {run}'s test split in float32 and float16 ...")
        state = task.prepare(config)
        full = score_test_split(task, config, state, model)
        zoo.presets.round_to_float16(model)
        half = score_test_split(task, config, state, model)
        check = {
            key: {"float32": full[key], "float16": half[key]}
            for key in sorted(full)
            if key in half
        }
        for key, pair in check.items():
            print(f"  {key}: float32 {pair['float32']:.4f}, float16 "
                  f"{pair['float16']:.4f}")  # fmt: skip
        worst = _worst_loss(check)
        metadata["float16_check"] = check
        metadata["title"] = task.title(config, state)
        if worst[1] > max_loss:
            raise harness.UsageError(
                f"--float16 costs {worst[1]:.3f} points of {worst[0]} "
                f"(limit --max-float16-loss {max_loss}); export in float32"
            )
    # What the stored weights compute (after float16's rounding, if any)
    # is recorded by `save_to_preset` (`fixed_inputs`).
    with tempfile.TemporaryDirectory() as scratch:
        return _save(
            model,
            folder,
            metadata=metadata,
            weights_dtype="float16" if float16 else "float32",
            overwrite=overwrite,
            assets=task.preset_assets(config, scratch),
        )


def _save(model, folder, **options):
    """`model.save_to_preset(folder, **options)`, its refusals one line
    (`--dest`'s): a folder in the way, one that cannot be written (a full
    disk or a refused permission keeps `harness.run_cli`'s line)."""
    try:
        return model.save_to_preset(folder, **options)
    except FileExistsError as error:
        raise _refusal(folder, options.get("overwrite"), error) from None
    except OSError as error:
        if error.strerror is None:  # zoo.presets' own one line
            raise harness.UsageError(f"--dest: {error}") from None
        raise


def _refusal(folder, overwrite=False, error=None):
    """The one line for a folder that is in the way of a preset: a preset
    (`--overwrite` replaces it), a preset with files of someone else's
    beside it (`zoo.presets`' line names one), or anything else."""
    if (folder / zoo.presets.METADATA_FILE).is_file():
        if overwrite and error is not None:
            return harness.UsageError(str(error))
        return harness.UsageError(
            f"{folder} holds a preset; pass --overwrite to replace it"
        )
    return harness.UsageError(
        f"{folder} exists and is not a preset folder (a file, a link, or "
        f"files without {zoo.presets.METADATA_FILE}): nothing was "
        "replaced; choose another NAME or --dest"
    )


def refresh_assets(preset):
    """Writes a preset again with its recipe's assets (`Task.
    preset_assets`: a G2P preset's dictionary and heteronym table), as
    its run would be exported today: the same weights and dtype, its
    metadata kept. Returns the new metadata."""
    found = zoo.presets.verify(preset)
    module = found.get("recipe")
    if module not in models.SAVED_BY.values():
        raise harness.UsageError(
            f"PRESET {preset}: its metadata names no recipe of this "
            "project (it was not exported from a recipe's run)"
        )
    task = importlib.import_module(f"{module}.task").TASK
    names = {f.name for f in dataclasses.fields(task.Config)}
    config = task.Config(
        **{k: v for k, v in found.get("config", {}).items() if k in names}
    )
    model = zoo.presets.from_preset(preset)
    kept = {
        k: v
        for k, v in found.items()
        if k not in ("files", "format_version", "class", "name", "date_saved")
    }
    kept.setdefault("first_saved", found.get("date_saved"))
    with tempfile.TemporaryDirectory() as scratch:
        return _save(
            model,
            zoo.presets.resolve(preset),
            metadata=kept,
            weights_dtype=found.get("weights_dtype", "float32"),
            overwrite=True,
            assets=task.preset_assets(config, scratch),
        )


def _worst_loss(check):
    """(metric, points lost) of the metric that float16 hurts most:
    perplexity in its own points; accuracy, F1, precision and recall
    and the error rates in points of percent (losses are not scores)."""
    worst = ("none", 0.0)
    for key, pair in check.items():
        a, b = pair["float32"], pair["float16"]
        words = key.split("_")
        if key.endswith("perplexity"):
            lost = b - a
        elif {"wer", "per", "cer"} & set(words):
            lost = 100 * (b - a)
        elif {"accuracy", "f1", "precision", "recall"} & set(words):
            lost = 100 * (a - b)
        else:
            continue
        if lost > worst[1]:
            worst = (key, lost)
    return worst
