"""Make a recipe's finished run a preset, and list the presets.

    python -m recipes.presets list
    python -m recipes.presets show en_bilm
    python -m recipes.presets export runs/language_model en_bilm --float16

`export` writes `zoo.presets.save_preset`'s folder (into the package's
presets by default, `--dest` elsewhere) with what the run knows: the
recipe and the command that trains it again (the flags that differ from
the recipe's defaults), its config, its data and `metrics.json`, the
lines it printed, and the code version. With `--float16` the weights are
stored in float16, and the run's test split is scored with the float32
and the float16 weights side by side first (`float16_check` in the
metadata); above `--max-float16-loss` points lost the export stops.
Load a preset with `zoo.presets.from_preset(NAME)`, or by name wherever
a recipe takes a saved model (`--pretrained en_bilm`).

In one line, as the tools users know (NLTK's `pos_tag`, g2p_en's `G2p`):

    from recipes.presets import G2p, pos_tag
    pos_tag("The cat sat on the mat.")     # [('The', 'DET'), ...]
    G2p()("keras zoo")                     # ['K', 'EH1', 'R', ..., ' ', ...]

The model behind each is loaded once per process and preset, and runs
on the fast inference path (`zoo.inference_function`, through the
recipes' `Tagger` and `Transcriber`).
"""

import dataclasses
import functools
import importlib
import json
import pathlib
import shlex
import subprocess
import sys

import harness
import zoo
from harness import flags
from harness import rundir
from recipes import distributed
from recipes import models
from recipes import predictors

USAGE = "usage: python -m recipes.presets {list,show,export} ..."
TAGGER = "pos_en_universal"
TRANSCRIBER = "g2p_en_cmudict"


@functools.lru_cache(maxsize=8)
def _loaded(module, preset):
    """`recipes.MODULE.load(preset)`, once per process."""
    return importlib.import_module(f"recipes.{module}").load(preset)


def pos_tag_sents(sentences, preset=TAGGER):
    """`[[(word, tag), ...], ...]`: each sentence (a list of words, or a
    raw string split into words and punctuation) tagged by the tagger
    preset `preset` (a shipped name, a preset folder or a run folder),
    batched by length. Universal tags (`NOUN`, `VERB`, ...) with the
    shipped `pos_en_universal`."""
    return _loaded("tagging", str(preset)).tag(sentences)


def pos_tag(tokens, preset=TAGGER):
    """`[(word, tag), ...]` for one sentence, as NLTK's `pos_tag`:
    `tokens` a list of words (kept as they are) or a raw string."""
    if not isinstance(tokens, (str, list, tuple)):
        raise TypeError(
            "`tokens` must be a list of words or a string; received "
            f"{type(tokens).__name__}"
        )
    return pos_tag_sents([tokens], preset)[0]


class G2p:
    """English words to ARPAbet phonemes (with stress digits, `AH0`, with
    the shipped `g2p_en_cmudict`), as g2p_en's `G2p`:

        g2p = G2p()
        g2p("I refuse")          # ['AY1', ' ', 'R', 'IH0', 'F', ...]
        g2p(["keras", "zoo"])    # [['K', 'EH1', ...], ['Z', 'UW1']]

    A string is split into words and punctuation (`zoo.text.tokenize`),
    each word lower-cased and transcribed, a token without a letter
    passed through as it is, and the words joined by `" "` in one flat
    list (g2p_en's output); a list gives one list of phonemes per word.
    Every word is transcribed by the model (no dictionary lookup), in
    batches, with beam search (`method="greedy"` is faster).
    """

    def __init__(self, preset=TRANSCRIBER, method="beam"):
        predictors.check_method(method)
        self.transcriber = _loaded("seq2seq", str(preset))
        self.method = method

    def __call__(self, text):
        if not isinstance(text, str):
            return self.transcriber.transcribe(list(text), self.method)
        tokens = zoo.text.tokenize(text, lowercase=True, split_punctuation=True)
        words = [t for t in tokens if any(c.isalpha() for c in t)]
        phones = dict(
            zip(words, self.transcriber.transcribe(words, self.method))
        )
        result = []
        for token in tokens:
            if result:
                result.append(" ")
            result.extend(phones.get(token, [token]))
        return result


def _parser(prog):
    return flags.ArgumentParser(prog=prog, description=flags.describe(__doc__))


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


def export(
    run,
    name,
    dest,
    float16=False,
    max_loss=0.1,
    overwrite=False,
    trained_at=None,
):
    """Writes run `run` as the preset `dest/name`; returns its metadata.
    `trained_at`: the code version the run was trained at, when known
    (recorded beside this checkout's, `code_version`)."""
    run = pathlib.Path(run)
    for needed in ("config.json", "metrics.json", "model.keras"):
        if not (run / needed).is_file():
            raise harness.UsageError(
                f"RUN {run}: no {needed}; a finished recipe run is needed"
            )
    model = models.load_saved_model(run / "model.keras", "RUN")
    kind = zoo.presets.kind_of(model)
    if kind not in models.SAVED_BY:
        raise harness.UsageError(
            f"RUN {run}: its model is none of {', '.join(models.SAVED_BY)}"
        )
    module = models.SAVED_BY[kind]
    task = importlib.import_module(module).TASK
    saved = rundir.read_saved_config(run / "config.json")
    names = {f.name for f in dataclasses.fields(task.Config)}
    saved = {**getattr(task.Config, "SAVED_DEFAULTS", {}), **saved}
    config = task.Config(**{k: v for k, v in saved.items() if k in names})
    metrics = json.loads((run / "metrics.json").read_text())
    metadata = {
        "recipe": module,
        "command": command_line(module, config),
        "config": {k: v for k, v in saved.items() if k != "output"},
        "metrics": {k: v for k, v in metrics.items() if k != "wrote"},
        "printed": task.summary(metrics),
        "code_version": code_version(),
        **({"trained_at": trained_at} if trained_at else {}),
    }
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
    # What the model needs beside it (a G2P run's vocabulary).
    assets = {
        name: run / name for name in task.RUN_ASSETS if (run / name).is_file()
    }
    # What the stored weights compute (after float16's rounding, if any).
    fixed = task.preset_check(model, assets)
    if fixed is not None:
        metadata["fixed_inputs"] = fixed
    try:
        return zoo.presets.save_preset(
            model,
            pathlib.Path(dest) / name,
            metadata,
            weights_dtype="float16" if float16 else "float32",
            overwrite=overwrite,
            assets=assets,
        )
    except FileExistsError as error:
        raise harness.UsageError(f"{error} (--overwrite)") from None


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


def _size(folder):
    return sum(p.stat().st_size for p in pathlib.Path(folder).iterdir())


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(f"{USAGE}\n\n{flags.describe(__doc__)}")
        return None
    verb, rest = argv[0], argv[1:]
    prog = f"python -m recipes.presets {verb}"
    if verb == "list":
        _parser(prog).parse_args(rest)
        for name in zoo.presets.list():
            found = zoo.presets.metadata(name)
            size = _size(zoo.presets.PRESETS_DIR / name) / 1e6
            printed = (found.get("printed") or [""])[0]
            print(f"{name:20} {found['kind']:15} {size:5.1f} MB  {printed}")
        return None
    if verb == "show":
        parser = _parser(prog)
        parser.add_argument("preset", help="a shipped name or a folder")
        args = parser.parse_args(rest)
        try:
            found = zoo.presets.verify(args.preset)
        except zoo.presets.PresetError as error:
            raise harness.UsageError(str(error)) from None
        print(json.dumps({k: v for k, v in found.items() if k != "config"},
                         indent=1))  # fmt: skip
        return found
    if verb == "export":
        parser = _parser(prog)
        parser.add_argument("run", help="a finished recipe run's folder")
        parser.add_argument("name", help="the preset's name (its folder)")
        parser.add_argument(
            "--dest",
            default=str(zoo.presets.PRESETS_DIR),
            help="where the preset folder goes (default: the package's "
            "presets, shipped with it)",
        )
        parser.add_argument(
            "--float16",
            action="store_true",
            help="store the weights in float16 (half the size), after "
            "scoring the test split both ways",
        )
        parser.add_argument(
            "--max-float16-loss",
            type=float,
            default=0.1,
            help="points (of percent, or of perplexity) float16 may cost "
            "(default: 0.1)",
        )
        parser.add_argument(
            "--trained-at",
            help="the commit the run was trained at, recorded beside the "
            "exporting checkout's (git describe) in metadata.json",
        )
        parser.add_argument("--overwrite", action="store_true")
        args = parser.parse_args(rest)
        if "/" in args.name or not args.name.strip():
            raise harness.UsageError(
                f"name: a folder name is needed; received {args.name!r}"
            )
        found = export(
            args.run,
            args.name,
            args.dest,
            float16=args.float16,
            max_loss=args.max_float16_loss,
            overwrite=args.overwrite,
            trained_at=args.trained_at,
        )
        folder = pathlib.Path(args.dest) / args.name
        print(
            f"wrote {folder} ({_size(folder) / 1e6:.1f} MB, {found['kind']}, "
            f"{found['parameter_count']:,} parameters, weights "
            f"{found['weights_dtype']})"
        )
        return found
    raise harness.UsageError(
        f"unknown command {verb!r}; known: list, show, export"
    )


if __name__ == "__main__":
    harness.run_cli(main)
