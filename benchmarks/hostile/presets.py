"""The `presets` group: the one-line APIs (`zoo.pos_tag`, `zoo.G2p`), the
task models' raw-text entries, `python -m recipes.presets export`,
`predict` and `benchmarks/label_curve.py`, given what a hostile user
types (issue 42's findings among them), and the preset folders a hostile
user edits (issue 65's: metadata that switches the checksums off, paths
out of the folder, unknown formats, re-signed assets of the wrong shape,
`save_to_preset` over a user's files, two exports to one name at once).

Each attempt's promise: a wrong input is one clear error naming the
argument (or one line and exit 2 on a command line); nothing already
there is deleted; a result is not silently wrong (one output line per
input line, the same phonemes for a word in any case or Unicode form,
every token accounted for, the same tags from several threads).
"""

import gzip
import importlib.util
import json
import pathlib
import shutil
import threading
import unicodedata

import zoo
from benchmarks.hostile import attempts as a
from benchmarks.hostile.attempts import Broken
from benchmarks.hostile.attempts import expect

_ROOT = pathlib.Path(__file__).resolve().parents[2]
_CACHE = {}


def add(name, promise, check, backends=a.BACKENDS):
    a.add("presets", name, promise, check, backends)


def g2p():
    if "g2p" not in _CACHE:
        _CACHE["g2p"] = zoo.G2p(method="greedy")
    return _CACHE["g2p"]


def raises(function, errors, *names):
    """The promise: `function()` raises one of `errors`, its message one
    line naming each of `names`."""
    try:
        function()
    except errors as error:
        text = str(error)
        expect("\n" not in text, "unclear error", f"several lines: {text}")
        missing = [n for n in names if n not in text]
        expect(not missing, "unclear error", f"lacks {missing}: {text}")
        return
    except Exception as error:  # noqa: BLE001 - any other: unclear
        raise Broken(
            "unclear error", f"{type(error).__name__}: {a.first_line(error)}"
        ) from None
    raise Broken("silently wrong", "accepted without a word")


BAD_TAGGER_INPUTS = {
    "pos_tag(['', 'dog'])": (lambda: zoo.pos_tag(["", "dog"]), "tokens[0]"),
    "pos_tag([None])": (lambda: zoo.pos_tag([None]), "tokens[0]"),
    "pos_tag(5)": (lambda: zoo.pos_tag(5), "tokens"),
    "pos_tag([b'dog'])": (lambda: zoo.pos_tag([b"dog"]), "tokens[0]"),
    "pos_tag_sents([None])": (
        lambda: zoo.pos_tag_sents([None]),
        "sentences[0]",
    ),
    "pos_tag_sents('a text')": (
        lambda: zoo.pos_tag_sents("a text"),
        "sentences",
    ),
    "pos_tag_sents([['a', 3]])": (
        lambda: zoo.pos_tag_sents([["a", 3]]),
        "sentences[0][1]",
    ),
}

BAD_G2P_INPUTS = {
    "G2p()([b'keras'])": (lambda: g2p()([b"keras"]), "text[0]"),
    "G2p()([5])": (lambda: g2p()([5]), "text[0]"),
    "G2p()(['keras', ''])": (lambda: g2p()(["keras", ""]), "text[1]"),
    "G2p()(None)": (lambda: g2p()(None), "text"),
    "G2p('')": (lambda: zoo.G2p(""), "preset"),
    "G2p('pos_en_universal')": (
        lambda: zoo.G2p("pos_en_universal"),
        "not a Transcriber",
    ),
    "G2p(method='sample')": (lambda: zoo.G2p(method="sample"), "method"),
    "G2p(lexicon={'x': 'K XX9'})": (
        lambda: zoo.G2p(lexicon={"x": "K XX9"}),
        "XX9",
    ),
    "G2p(lexicon={'x': []})": (
        lambda: zoo.G2p(lexicon={"x": []}),
        "'x'",
    ),
    "G2p(lexicon=['x'])": (lambda: zoo.G2p(lexicon=["x"]), "lexicon"),
    "G2p(lexicon='/missing.dict')": (
        lambda: zoo.G2p(lexicon="/missing.dict"),
        "/missing.dict",
    ),
}
for _what, _inputs in (("tagger", BAD_TAGGER_INPUTS), ("g2p", BAD_G2P_INPUTS)):
    for _label, (_call, _name) in _inputs.items():
        add(
            f"{_what}: {_label}",
            f"a TypeError or ValueError naming {_name}",
            lambda call=_call, name=_name: raises(
                call, (TypeError, ValueError), name
            ),
        )


def _malformed_lexicon():
    path = a.scratch() / "bad.dict"
    path.write_text("keras K EH1 R AH0 S\nzoo\n", encoding="utf-8")
    raises(lambda: zoo.G2p(lexicon=path), ValueError, "bad.dict:2")


add("g2p: a malformed lexicon file", "names file:line", _malformed_lexicon)


def _same_in_any_form(forms):
    results = [g2p()([form])[0] for form in forms]
    expect(
        all(r == results[0] for r in results) and results[0],
        "silently wrong",
        f"{forms} gave {results}",
    )


for _forms in (
    ("keras", "Keras", "KERAS"),
    ("zoo", "Zoo"),
    ("café", unicodedata.normalize("NFD", "café"), "Café"),
    ("naïve", unicodedata.normalize("NFD", "naïve"), "NAÏVE"),
):
    add(
        f"g2p: {_forms[0]} in {len(_forms)} forms",
        "the same phonemes in any case and NFC or NFD",
        lambda forms=_forms: _same_in_any_form(forms),
    )


def _digits_are_read():
    out = g2p()("I have 3 apples and $5.")
    expect(
        not any(
            any(c.isdigit() for c in p if not p[-1:].isdigit()) for p in out
        )
        and "3" not in out
        and "TH R IY1" in " ".join(out),
        "silently wrong",
        f"digits passed through: {out}",
    )


add("g2p: digits", "read out as words", _digits_are_read)


def _every_token_accounted():
    text = "Keras 👍🏽 https://keras.io @zoo !"
    spoken = g2p().pronounce(text)
    tokens = [s.token for s in spoken]
    expect(
        tokens == ["Keras", "👍🏽", "https://keras.io", "@zoo", "!"],
        "silently wrong",
        f"tokens {tokens}",
    )


add("g2p: emoji, URL, mention", "each token kept", _every_token_accounted)


def _entities_and_tags_are_read():
    spoken = g2p().pronounce("@zorblax &amp; $QQQX &#39; Dr. Who")
    pairs = [(s.token, " ".join(s.phones)) for s in spoken]
    tokens = [t for t, _ in pairs]
    said = dict(pairs)
    expect(
        tokens == ["@zorblax", "&amp;", "$QQQX", "&#39;", "Dr.", "Who"]
        and said["&amp;"] == "AH0 N D"
        and said["&#39;"] == ""
        and said["Dr."] == "D AA1 K T ER0",
        "silently wrong",
        f"{pairs}",
    )


add(
    "g2p: an entity, a cashtag, a title, an unknown mention",
    "each token kept and read as what it stands for",
    _entities_and_tags_are_read,
)


def _zwj_emoji_is_one_token():
    tagged = zoo.pos_tag("we 👨\u200d👩\u200d👧\u200d👦 go")
    expect(len(tagged) == 3, "silently wrong", f"{tagged}")


add("tagger: a ZWJ emoji", "one token", _zwj_emoji_is_one_token)


def _url_and_mention():
    tagged = dict(zoo.pos_tag("@elonmusk loves https://keras.io"))
    expect(
        tagged.get("@elonmusk") == "NOUN"
        and tagged.get("https://keras.io") == "X",
        "silently wrong",
        f"{tagged}",
    )


add("tagger: a URL and a mention", "whole, tagged X and NOUN", _url_and_mention)


def _threads_agree():
    sentences = [
        "The dog saw the cat near the old barn .",
        "They refuse to pay the refuse tax .",
        "A quick test of many threads at once .",
    ]
    tagger = zoo.Tagger.from_preset("pos_en_universal_fast")
    alone = [tagger.tag([s])[0] for s in sentences]
    seen = []

    def work():
        for _ in range(10):
            seen.append([tagger.tag([s])[0] for s in sentences])

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    expect(
        all(result == alone for result in seen),
        "silently wrong",
        "another thread's tags",
    )


add("tagger: 4 threads at once", "the tags of a sequential run", _threads_agree)


# --- command lines -----------------------------------------------------------


def _presets_main():
    return importlib.import_module("recipes.presets").main


def _shipped_untouched(argv):
    before = sorted(p.name for p in zoo.presets.PRESETS_DIR.iterdir())
    a.cli(_presets_main(), argv, "NAME")
    after = sorted(p.name for p in zoo.presets.PRESETS_DIR.iterdir())
    expect(after == before, "lost work", f"{before} -> {after}")


for _name in (".", "..", "a/b", "/tmp/x", "x y"):
    add(
        f"export NAME {_name!r} --overwrite",
        "one line naming NAME, nothing deleted",
        lambda name=_name: _shipped_untouched(
            ["export", str(a.scratch()), name, "--overwrite"]
        ),
    )


def _dest_through_a_file():
    folder = a.scratch()
    (folder / "file").write_text("mine")
    a.cli(
        _presets_main(),
        ["export", str(folder), "x", "--dest", str(folder / "file" / "sub")],
        "--dest",
    )
    expect((folder / "file").read_text() == "mine", "lost work", "changed")


add("export --dest FILE/sub", "one line naming --dest", _dest_through_a_file)

for _limit in ("nan", "inf", "-1"):
    add(
        f"export --max-float16-loss {_limit}",
        "one line naming the flag",
        lambda limit=_limit: a.cli(
            _presets_main(),
            ["export", str(a.scratch()), "x", "--max-float16-loss", limit],
            "--max-float16-loss",
        ),
    )


def _predict_keeps_lines(separator):
    folder = a.scratch()
    text = f"the dog{separator}runs\nthe cat\n\nit sees\n"
    path = folder / "in.txt"
    path.write_text(text, encoding="utf-8")
    out = folder / "out.txt"
    main = importlib.import_module("recipes.tagging").main
    a.cli(
        main,
        [
            "predict",
            "--model",
            "pos_en_universal_fast",
            "--input",
            str(path),
            "--output",
            str(out),
        ],
        code=0,
    )
    lines = out.read_text(encoding="utf-8").split("\n")[:-1]
    expect(len(lines) == 4, "silently wrong", f"{len(lines)} lines out of 4")


for _separator in ("\f", "\u2028", "\x85", "\x1c", "\v"):
    add(
        f"predict: a line holding {_separator!r}",
        "one output line per input line",
        lambda separator=_separator: _predict_keeps_lines(separator),
    )


def _label_curve(metrics, config, *names):
    spec = importlib.util.spec_from_file_location(
        "label_curve", _ROOT / "benchmarks" / "label_curve.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    folder = a.scratch()
    run = folder / "run"
    run.mkdir()
    (run / "metrics.json").write_text(metrics)
    (run / "config.json").write_text(config)
    a.cli(module.main, [str(folder)], *names)


for _label, _files in {
    "not JSON": ("{bad", "{}", "metrics.json"),
    "a list": ("[]", "{}", "not a JSON object"),
    "a G2P run": ('{"test_per": 5}', '{"dataset": "x"}', "not a finished"),
}.items():
    add(
        f"label_curve on a run whose metrics are {_label}",
        "one line naming the file",
        lambda files=_files: _label_curve(*files),
    )


# --- presets you cannot fool, one line for every error (issue 65) ----------


def _tiny_tagger():
    vocabulary = zoo.layers.TokenVocabulary(["a", "b"], name="vocabulary")
    return zoo.Tagger(
        zoo.stacked_lstm(1, 4, vocabulary_size=4),
        zoo.tasks.TaggerPreprocessor(vocabulary, ["", "A", "B"]),
    )


def _tiny_preset():
    """A new copy of a tiny tagger preset (built once, never trained)."""
    if "tagger" not in _CACHE:
        _CACHE["tagger"] = _tiny_tagger()
        _CACHE["tagger_preset"] = a.scratch() / "tagger"
        _CACHE["tagger"].save_to_preset(_CACHE["tagger_preset"])
    folder = a.scratch() / "preset"
    shutil.copytree(_CACHE["tagger_preset"], folder)
    return folder


def _rewrite(folder, change):
    path = folder / zoo.presets.METADATA_FILE
    found = json.loads(path.read_text())
    change(found)
    path.write_text(json.dumps(found))


def _resign(folder, name):
    digest = zoo.presets.sha256(folder / name)
    _rewrite(folder, lambda f: f["files"].__setitem__(name, digest))


def _outside():
    path = a.scratch() / "outside.txt"
    path.write_text("secret")
    return path


def _linked_out(folder):
    (folder / "assets").mkdir()
    (folder / "assets" / "x.txt").symlink_to(_outside())
    _resign(folder, "assets/x.txt")


def _weights_changed_files_emptied(folder):
    path = folder / zoo.presets.WEIGHTS_FILE
    data = bytearray(path.read_bytes())
    data[-64:] = bytes(64)
    path.write_bytes(bytes(data))
    _rewrite(folder, lambda f: f["files"].clear())


def _set(key, value):
    return lambda folder: _rewrite(folder, lambda f: f.__setitem__(key, value))


def _add_file(name_of):
    def change(folder):
        path = _outside()
        digest = zoo.presets.sha256(path)
        name = name_of(path)
        _rewrite(folder, lambda f: f["files"].__setitem__(name, digest))

    return change


TAMPERED_METADATA = {
    "files emptied": (
        lambda f: _rewrite(f, lambda m: m["files"].clear()),
        "config.json",
    ),
    "the weights' line deleted": (
        lambda f: _rewrite(f, lambda m: m["files"].pop("model.weights.h5")),
        "model.weights.h5",
    ),
    "weights changed and files emptied": (
        _weights_changed_files_emptied,
        "config.json",
    ),
    "format_version 1 (the first format, no longer read)": (
        _set("format_version", 1),
        "format_version",
    ),
    "format_version 99": (_set("format_version", 99), "format_version"),
    "format_version '2'": (_set("format_version", "2"), "format_version"),
    "class 5": (_set("class", 5), "class: expected a registered"),
    "class null": (_set("class", None), "class: expected a registered"),
    "an absolute path in files": (_add_file(str), "not a path inside"),
    "a path through .. in files": (
        _add_file(lambda p: f"../{p.name}"),
        "not a path inside",
    ),
    "a link out of the folder": (_linked_out, "leads out of the preset"),
}


def _tampered(change, word):
    folder = _tiny_preset()
    change(folder)
    message = a.refused(
        lambda: zoo.Tagger.from_preset(folder),
        word,
        types=(zoo.presets.PresetError,),
    )
    expect("\n" not in message, "unclear error", f"several lines: {message}")
    expect("secret" not in message, "silently wrong", "read a file outside")


for _how, (_change, _word) in TAMPERED_METADATA.items():
    add(
        f"preset metadata: {_how}",
        f"a PresetError in one line naming {_word}, nothing read",
        lambda change=_change, word=_word: _tampered(change, word),
    )


add(
    "predict --model FOLDER (files emptied)",
    "one line, exit 2, nothing tagged",
    lambda: a.cli(
        importlib.import_module("recipes.tagging").main,
        ["predict", "--model", str(_emptied()), "--input", "-"],
        "lists no checksum",
    ),
)


def _emptied():
    folder = _tiny_preset()
    _rewrite(folder, lambda f: f["files"].clear())
    return folder


for _module in ("tagging", "classification", "g2p"):
    add(
        f"{_module} predict --model <300 characters>",
        "one line naming the model, exit 2",
        lambda module=_module: a.cli(
            importlib.import_module(f"recipes.{module}").main,
            ["predict", "--model", "a" * 300, "--input", "-"],
            "no such file",
        ),
    )
add(
    "Tagger.from_preset('a' * 300)",
    "a PresetError in one line",
    lambda: a.refused(
        lambda: zoo.Tagger.from_preset("a" * 300),
        "no such preset",
        types=(zoo.presets.PresetError,),
    ),
)


def _save_refused(folder, errors, *names, **options):
    model = _CACHE.get("tagger") or _tiny_tagger()
    message = a.refused(
        lambda: model.save_to_preset(folder, **options), *names, types=errors
    )
    expect("/." not in message, "unclear error", f"a temporary path: {message}")


def _under_a_file():
    path = a.scratch() / "file"
    path.write_text("mine")
    _save_refused(path / "p", OSError, "is a file")
    expect(path.read_text() == "mine", "lost work", "changed")


def _asset_named(name):
    source = a.scratch() / "vocab.json"
    source.write_text("{}")
    _save_refused(
        a.scratch() / "p",
        ValueError,
        "assets",
        repr(name),
        assets={name: source},
    )


def _extra_files_kept(relative):
    folder = _tiny_preset()
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("mine")
    _save_refused(folder, (FileExistsError,), relative, overwrite=True)
    expect(path.read_text() == "mine", "lost work", f"{relative} changed")


def _class_not_overridden():
    _save_refused(
        a.scratch() / "p",
        ValueError,
        "metadata['class']",
        metadata={"class": "zoo>BiLM"},
    )


add(
    "save_to_preset('/proc/x')",
    "one line naming /proc/x",
    lambda: _save_refused("/proc/zoo-x", OSError, "/proc/zoo-x"),
)
add("save_to_preset(FILE/p)", "one line, the file kept", _under_a_file)
for _name in ("..", ".", "a/b", ""):
    add(
        f"save_to_preset(assets={{{_name!r}: path}})",
        "a ValueError in one line naming assets",
        lambda name=_name: _asset_named(name),
    )
add(
    "save_to_preset(assets={'x': missing file})",
    "a ValueError in one line naming the asset",
    lambda: _save_refused(
        a.scratch() / "p",
        ValueError,
        "assets['x']",
        assets={"x": a.scratch() / "missing"},
    ),
)
for _relative in ("notes.txt", "sub/data.csv"):
    add(
        f"save_to_preset(PRESET, overwrite=True) beside {_relative}",
        "refused in one line naming it; nothing deleted",
        lambda relative=_relative: _extra_files_kept(relative),
    )
add(
    "save_to_preset(metadata={'class': another})",
    "a ValueError in one line; the model's own class is recorded",
    _class_not_overridden,
)


def _g2p_preset():
    """A new copy of a tiny G2P preset: a transcriber and the assets
    `zoo.G2p` reads."""
    if "g2p_preset" not in _CACHE:
        model = zoo.build_seq2seq(5, 7, "lstm", 1, 8, embedding_dim=4)
        transcriber = zoo.Transcriber.from_seq2seq(
            model, list("abc"), ["AA", "B", "K"]
        )
        sources = a.scratch()
        with gzip.open(sources / "cmudict.dict.gz", "wt") as handle:
            handle.write("ab AA B\n")
        (sources / "homographs.json").write_text(
            json.dumps({"abc": {"NOUN": "AA B K", "VERB": "K B AA"}})
        )
        (sources / "tenses.json").write_text(
            json.dumps({"after": {"i": "past"}, "otherwise": "present"})
        )
        _CACHE["g2p_preset"] = a.scratch() / "g2p"
        transcriber.save_to_preset(
            _CACHE["g2p_preset"],
            assets={p.name: p for p in sources.iterdir()},
            metadata={"fixed_inputs": {}},
        )
    folder = a.scratch() / "g2p"
    shutil.copytree(_CACHE["g2p_preset"], folder)
    return folder


def _g2p_asset(name, content, word):
    folder = _g2p_preset()
    path = folder / "assets" / name
    if content is None:
        path.unlink()
        _rewrite(folder, lambda f: f["files"].pop(f"assets/{name}"))
    else:
        path.write_text(content)
        _resign(folder, f"assets/{name}")
    a.refused(
        lambda: zoo.G2p(folder, method="greedy", tagger=None),
        name,
        word,
        types=(zoo.presets.PresetError,),
    )


for _label, (_name, _content, _word) in {
    "without its dictionary (file and line deleted)": (
        "cmudict.dict.gz",
        None,
        "lists no checksum",
    ),
    "with a re-signed homographs.json of the wrong shape": (
        "homographs.json",
        '{"abc": ["AA"]}',
        "expected",
    ),
    "with a re-signed invalid tenses.json": (
        "tenses.json",
        "{not json",
        "not valid JSON",
    ),
}.items():
    add(
        f"g2p: a preset {_label}",
        "a PresetError in one line naming the asset",
        lambda name=_name, content=_content, word=_word: _g2p_asset(
            name, content, word
        ),
    )


def _finished_run():
    folder = a.scratch() / "run"
    folder.mkdir()
    (_CACHE.get("tagger") or _tiny_tagger()).save(folder / "model.keras")
    (folder / "config.json").write_text(json.dumps({"dataset": "brown"}))
    metrics = {
        "split_tokens": {"test": 3},
        "test_accuracy": 0.5,
        "example": ["a/A"],
        "wrote": [],
    }
    (folder / "metrics.json").write_text(json.dumps(metrics))
    return folder


def _concurrent_exports():
    """Two exports to one new name at once (the first held inside its
    save): the second is one line, exit 2; the first's preset stays."""
    run, dest = _finished_run(), a.scratch() / "dest"
    inside, release = threading.Event(), threading.Event()
    save = zoo.presets.save_preset

    def slow(*args, **kwargs):
        if not inside.is_set():  # the first save waits, any other goes on
            inside.set()
            release.wait(60)
        return save(*args, **kwargs)

    exporter = importlib.import_module("recipes.presets.exporter")
    first = {}

    def export():
        try:
            first["found"] = exporter.export(run, "same", dest)
        except Exception as error:  # noqa: BLE001 - judged below
            first["error"] = error

    zoo.presets.save_preset = slow
    thread = threading.Thread(target=export)
    try:
        thread.start()
        inside.wait(60)
        a.cli(
            _presets_main(),
            ["export", str(run), "same", "--dest", str(dest)],
            "is exporting same",
        )
    finally:
        release.set()
        thread.join(60)
        zoo.presets.save_preset = save
    expect("found" in first, "lost work", f"the first export: {first}")
    kept = zoo.presets.verify(dest / "same")
    expect(
        kept["date_saved"] == first["found"]["date_saved"],
        "silently wrong",
        "the first export's preset was replaced",
    )


add(
    "export: two at once to one new name",
    "the second one line, exit 2; the first's preset kept",
    _concurrent_exports,
)
add(
    "export --dest /proc/x",
    "one line naming --dest, exit 2",
    lambda: a.cli(
        _presets_main(),
        ["export", str(_finished_run()), "x", "--dest", "/proc/zoo-x"],
        "--dest",
    ),
)
