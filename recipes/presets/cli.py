"""`python -m recipes.presets`: list the shipped presets, show one, make a
recipe's finished run a preset, or write a preset again with its
recipe's assets.

    python -m recipes.presets list
    python -m recipes.presets show en_bilm
    python -m recipes.presets export runs/language_model en_bilm --float16
    python -m recipes.presets assets g2p_en_cmudict

`export` writes the run's `zoo.tasks` model as a preset folder (into the
package's presets by default, `--dest` elsewhere) with what the run
knows (`recipes.presets.export`). A preset loads with its class's
`from_preset(NAME)` (`zoo.tasks.Tagger.from_preset("pos_en_universal")`)
or `zoo.presets.from_preset(NAME)`, and by name wherever a recipe takes a
saved model (`--pretrained en_bilm`, `predict --model NAME`).
"""

import json
import pathlib

import harness
import zoo
from harness import flags
from recipes.presets import exporter as export_lib


def _size(folder):
    return sum(p.stat().st_size for p in pathlib.Path(folder).rglob("*"))


def _sources(path):
    """The list of dicts in the JSON file `path` (None without one); one
    line naming `--sources` otherwise."""
    if not path:
        return None
    try:
        found = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise harness.UsageError(
            f"--sources {path}: not a readable JSON file ({error})"
        ) from None
    if not (
        isinstance(found, list)
        and found
        and all(isinstance(x, dict) for x in found)
    ):
        raise harness.UsageError(
            f"--sources {path}: must hold a non-empty JSON list of dicts "
            "(one per source)"
        )
    return found


def parser():
    """The command line: `list`, `show PRESET`, `export RUN NAME`."""
    parser = flags.ArgumentParser(
        prog="python -m recipes.presets", description=flags.describe(__doc__)
    )
    verbs = parser.add_subparsers(dest="verb", metavar="COMMAND")
    verbs.required = True
    verbs.add_parser(
        "list",
        help="the shipped presets: name, kind, size and what they scored",
        description="The shipped presets: name, kind, size on disk and "
        "the first line their run printed.",
    )
    show = verbs.add_parser(
        "show",
        help="a preset's metadata (checksums verified)",
        description="A preset's metadata.json (its config left out), "
        "after its checksums are verified.",
    )
    show.add_argument("preset", help="a shipped name or a preset folder")
    out = verbs.add_parser(
        "export",
        help="make a finished recipe run a preset",
        description=export_lib.__doc__.strip().splitlines()[0],
    )
    out.add_argument("run", help="a finished recipe run's folder")
    out.add_argument(
        "name",
        help="the preset's name: a plain folder name (letters, digits, "
        "'_', '-', '.')",
    )
    out.add_argument(
        "--dest",
        default=str(zoo.presets.PRESETS_DIR),
        help="the folder the preset folder goes in (default: the "
        "package's presets, shipped with it)",
    )
    out.add_argument(
        "--float16",
        action="store_true",
        help="store the weights in float16 (half the size), after "
        "scoring the test split both ways",
    )
    out.add_argument(
        "--max-float16-loss",
        type=float,
        default=0.1,
        help="points (of percent, or of perplexity) float16 may cost, a "
        "finite number >= 0 (default: 0.1)",
    )
    out.add_argument(
        "--trained-at",
        help="the commit the run was trained at, recorded beside the "
        "exporting checkout's (git describe) in metadata.json",
    )
    out.add_argument(
        "--sources",
        help="a JSON file: a list of the training data's sources (each a "
        "dict: name, version, licence, where it came from, sha256, what "
        "may be shipped), recorded in metadata.json",
    )
    assets = verbs.add_parser(
        "assets",
        help="write a preset again with its recipe's assets",
        description="Writes a preset again, the same weights, with the "
        "assets its recipe exports today (a G2P preset's pronouncing "
        "dictionary and heteronym table, for zoo.G2p).",
    )
    assets.add_argument("preset", help="a shipped name or a preset folder")
    out.add_argument(
        "--overwrite",
        action="store_true",
        help="replace a preset of that name (only a preset folder is ever "
        "replaced, and only once the new one is complete)",
    )
    return parser


def main(argv=None):
    """`python -m recipes.presets VERB ...`; returns what it showed or
    wrote (a list of names, or a preset's metadata)."""
    args = parser().parse_args(argv)
    if args.verb == "list":
        names = zoo.presets.names()
        width = max((len(name) for name in names), default=0)
        for name in names:
            found = zoo.presets.metadata(name)
            size = _size(zoo.presets.PRESETS_DIR / name) / 1e6
            printed = (found.get("printed") or [""])[0]
            kind = found["kind"]
            print(f"{name:{width}}  {kind:15} {size:5.1f} MB  {printed}")
        return names
    if args.verb == "show":
        try:
            found = zoo.presets.verify(args.preset)
        except zoo.presets.PresetError as error:
            raise harness.UsageError(str(error)) from None
        print(json.dumps({k: v for k, v in found.items() if k != "config"},
                         indent=1))  # fmt: skip
        return found
    if args.verb == "assets":
        try:
            found = export_lib.refresh_assets(args.preset)
        except zoo.presets.PresetError as error:
            raise harness.UsageError(str(error)) from None
        folder = zoo.presets.resolve(args.preset)
        print(f"wrote {folder}: {', '.join(found['files'])}")
        return found
    flags.check_range("max_float16_loss", args.max_float16_loss, low=0)
    found = export_lib.export(
        args.run,
        args.name,
        args.dest,
        float16=args.float16,
        max_loss=args.max_float16_loss,
        overwrite=args.overwrite,
        trained_at=args.trained_at,
        sources=_sources(args.sources),
    )
    folder = pathlib.Path(args.dest) / args.name
    print(
        f"wrote {folder} ({_size(folder) / 1e6:.1f} MB, {found['kind']}, "
        f"{found['parameter_count']:,} parameters, weights "
        f"{found['weights_dtype']})"
    )
    return found
