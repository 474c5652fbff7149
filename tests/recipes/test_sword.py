"""The SWORD Bible reader, on small zText modules written here (the
Debian packages are needed only by the last test, skipped without
them)."""

import pathlib
import struct
import sys
import zlib

import pytest

from recipes.data import osis
from recipes.data import sword
from recipes.data import unlabelled
from recipes.data.errors import DataError

pysword_books = pytest.importorskip("pysword.books")

GOD = '<w lemma="strong:H0430">God</w>'
CREATED = '<w lemma="strong:H1254">created</w>'
# (book, chapter, verse): OSIS markup, as the Debian modules write it.
VERSES = {
    ("Exod", 1, 1): "Now these are the names.",
    ("Gen", 1, 1): f'In the beginning {GOD}<note placement="foot">'
    '<reference type="annotateRef">1:1 </reference>Elohim.</note>'
    f"{CREATED} the heaven &amp; the earth.",
    ("Gen", 1, 2): '<title canonical="true" type="psalm">A heading.'
    '</title> <l level="1" sID="x1"/>And the earth<note>a</note>, '
    '<transChange type="added">was</transChange> void.<l eID="x1"/>',
    ("Gen", 1, 3): '<note placement="foot">A note only.</note>',
    ("Gen", 2, 1): "¶ Thus the heavens were finished.",
    ("Matt", 1, 1): "The book of the generation of Jesus Christ.",
}
CONF = """\
[{name}]
DataPath=./modules/texts/ztext/{folder}/
ModDrv=zText
SourceType=OSIS
Encoding=UTF-8
CompressType=ZIP
BlockType=BOOK
Versification={versification}
Description=A test module
"""


def write_module(root, verses=VERSES, name="x", versification="KJV"):
    """A zText module `name` under `root` holding `verses`, a block per
    book, the verse indices from pysword's structure; its folder."""
    root = pathlib.Path(root)
    (root / "mods.d").mkdir(parents=True, exist_ok=True)
    folder = root / "modules" / "texts" / "ztext" / name.lower()
    folder.mkdir(parents=True, exist_ok=True)
    conf = CONF.format(
        name=name, folder=name.lower(), versification=versification
    )
    (root / "mods.d" / f"{name.lower()}.conf").write_text(conf)
    structure = pysword_books.BibleStructure(versification.lower())
    for testament, books in structure.get_books().items():
        size = 2 + sum(book.size for book in books)
        records = [(0, 0, 0)] * size
        blocks = []
        for book in books:
            text = b""
            for (name_, chapter, verse), markup in verses.items():
                if name_ != book.osis_name:
                    continue
                (index,) = structure.ref_to_indicies(
                    books=[name_], chapters=[chapter], verses=[verse]
                )[testament]
                data = markup.encode("utf-8")
                records[index] = (len(blocks), len(text), len(data))
                text += data
            if text:
                blocks.append(text)
        data, sizes = b"", b""
        for text in blocks:
            packed = zlib.compress(text)
            sizes += struct.pack("<III", len(data), len(packed), len(text))
            data += packed
        (folder / f"{testament}.bzz").write_bytes(data)
        (folder / f"{testament}.bzs").write_bytes(sizes)
        (folder / f"{testament}.bzv").write_bytes(
            b"".join(struct.pack("<IIH", *r) for r in records)
        )
    return folder


def one_line_error(call, *args):
    with pytest.raises(DataError) as caught:
        call(*args)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_verses_come_out_cleaned_and_in_order(tmp_path):
    write_module(tmp_path)
    got = sword.verses("x", root=tmp_path)
    assert [(v.book, v.book_index, v.chapter, v.verse) for v in got] == [
        ("Gen", 0, 1, 1),
        ("Gen", 0, 1, 2),
        ("Gen", 0, 2, 1),
        ("Exod", 1, 1, 1),
        ("Matt", 39, 1, 1),
    ]
    assert [v.text for v in got[:3]] == [
        # The note between two words leaves a space.
        "In the beginning God created the heaven & the earth.",
        "And the earth, was void.",
        "Thus the heavens were finished.",
    ]


def test_clean_drops_notes_titles_and_markers():
    assert osis.clean("a<note>x</note>b") == "a b"
    assert osis.clean("<w>Ar</w><w>non</w><note>n</note>, “x") == ("Arnon, “x")
    assert osis.clean("<speaker>Beloved</speaker> Let him") == "Let him"
    assert osis.clean(r"my name \nd JEHOVAH") == "my name JEHOVAH"
    # Nothing after the end of the book (the WEB's glossary).
    assert (
        osis.clean('Amen. <div eID="g1" osisID="Rev" type="book"/> Glossary')
        == "Amen."
    )


def test_the_environment_names_the_library(tmp_path, monkeypatch):
    write_module(tmp_path)
    monkeypatch.setenv(sword.ENVIRONMENT, str(tmp_path))
    assert sword.verses("x")[0].book == "Gen"


def test_chapters_are_documents_of_sentences(tmp_path):
    write_module(tmp_path)
    documents = sword.chapters_as_documents(
        "x", unlabelled.sentences_of, root=tmp_path
    )
    assert len(documents) == 4  # Gen 1, Gen 2, Exod 1, Matt 1
    assert documents[0][0][:4] == ["In", "the", "beginning", "God"]
    assert documents[0][1] == ["And", "the", "earth", ",", "was", "void", "."]


def test_the_web_is_a_corpus_source(tmp_path, monkeypatch):
    write_module(tmp_path, name="engWEB2015eb", versification="NRSVA")
    monkeypatch.setenv(sword.ENVIRONMENT, str(tmp_path))
    assert "bible-web" in unlabelled.SOURCES
    assert "bible-web" not in unlabelled.DEFAULT_SOURCES
    documents = unlabelled.load(["bible-web"], max_length=3)["bible-web"]
    assert documents[0][0] == ["In", "the", "beginning"]


def test_a_missing_module_names_the_debian_package(tmp_path):
    (tmp_path / "mods.d").mkdir()
    message = one_line_error(sword.verses, "web", tmp_path)
    assert "apt install sword-text-web" in message
    assert str(tmp_path) in message
    # No library at all: the same.
    message = one_line_error(sword.verses, "kjv", tmp_path / "none")
    assert "apt install sword-text-kjv" in message
    message = one_line_error(sword.verses, "nosuch", tmp_path)
    assert "known: web: engWEB2015eb (Debian sword-text-web)" in message


@pytest.mark.parametrize("how", ["garbled", "truncated"])
def test_a_damaged_block_is_one_line_naming_the_module(tmp_path, how):
    folder = write_module(tmp_path)
    path = folder / "ot.bzz"
    data = path.read_bytes()
    if how == "garbled":
        data = data[:8] + bytes(b ^ 0x5A for b in data[8:20]) + data[20:]
    else:
        data = data[: len(data) - 10]
    path.write_bytes(data)
    message = one_line_error(sword.verses, "x", tmp_path)
    assert message.startswith("SWORD module x is damaged")
    assert "ot.bzz" in message and "reinstall" in message


def test_a_missing_data_file_is_named(tmp_path):
    folder = write_module(tmp_path)
    (folder / "ot.bzv").unlink()
    message = one_line_error(sword.verses, "x", tmp_path)
    assert "SWORD module x is damaged" in message
    assert "ot.bzv missing" in message


def test_a_damaged_known_module_names_its_package(tmp_path):
    folder = write_module(tmp_path, name="engWEB2015eb", versification="NRSVA")
    for suffix in ("bzs", "bzv", "bzz"):
        (folder / f"nt.{suffix}").unlink()
    message = one_line_error(sword.verses, "web", tmp_path)
    assert "engWEB2015eb is damaged" in message
    assert "no data files of the NT" in message
    assert "apt install --reinstall sword-text-web" in message


def test_a_conf_without_datapath_or_verses_is_damaged(tmp_path):
    write_module(tmp_path, verses={("Gen", 1, 1): "<note>only</note>"})
    message = one_line_error(sword.verses, "x", tmp_path)
    assert "x is damaged" in message and "no verse text" in message
    conf = tmp_path / "mods.d" / "x.conf"
    conf.write_text(conf.read_text().replace("DataPath=", "Path="))
    message = one_line_error(sword.verses, "x", tmp_path)
    assert "x is damaged" in message and "no DataPath" in message


def test_without_pysword_the_error_names_it(tmp_path, monkeypatch):
    write_module(tmp_path)
    monkeypatch.setitem(sys.modules, "pysword", None)
    message = one_line_error(sword.verses, "x", tmp_path)
    assert "pip install 'pysword>=0.2.8'" in message
    assert "`recipes` extra" in message


WEB = pathlib.Path(sword.DEFAULT_ROOT) / "mods.d" / "engWEB2015eb.conf"


@pytest.mark.skipif(not WEB.is_file(), reason="sword-text-web not installed")
def test_the_installed_world_english_bible():
    got = sword.verses("web", root=sword.DEFAULT_ROOT)
    assert len(got) == 37457  # sword-text-web 2022-12-28 (Version=426.0)
    assert got[0].text == (
        "In the beginning, God created the heavens and the earth."
    )
    assert got[-1].book == "Rev" and "Glossary" not in got[-1].text
    assert all("<" not in v.text for v in got)


def test_the_fingerprint_follows_the_module_files(tmp_path):
    folder = write_module(tmp_path)
    first = sword.fingerprint("x", root=tmp_path)
    (folder / "notes").mkdir()  # a folder in the data folder is not read
    assert sword.fingerprint("x", root=tmp_path) == first
    (folder / "nt.bzz").write_bytes((folder / "nt.bzz").read_bytes() + b"x")
    assert sword.fingerprint("x", root=tmp_path) != first
    message = one_line_error(sword.fingerprint, "nothing", tmp_path)
    assert "'nothing' is not in" in message
