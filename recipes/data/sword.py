"""Bible texts from SWORD modules that Debian packages install, read
offline.

Source: the Debian packages `sword-text-web`, `sword-text-kjv` and
`sword-text-sparv` (`apt install sword-text-web`) put SWORD modules under
`/usr/share/sword` (`MODULES`): the World English Bible with the
Deuterocanon (`engWEB2015eb`, the 2020 stable text), the King James
Version's 1769 text (`engKJV2006eb`, protocanon only) and the Spanish
Reina-Valera of 1909 (`spaRV1909eb`), all public domain (their `.conf`:
`DistributionLicense=Public Domain`; "World English Bible" is a trademark
of eBible.org: a changed text may not carry the name). Nothing is
downloaded; the library is `root`, else `$SWORD_PATH`, else
`/usr/share/sword`.

Format: `mods.d/<module>.conf` (INI-like; `DataPath=` names the data
folder, `Versification=` the verse scheme: NRSVA for the WEB, KJV for the
other two) and, for a zText module with `BlockType=BOOK`, three files per
testament (`ot`, `nt`): `.bzz`, zlib blocks one after another (a book
each, a long book in several); `.bzs`, one little-endian uint32 triple
(offset, size, uncompressed size) per block; `.bzv`, one record (block
uint32, start uint32, length uint16) per verse index, in the
versification's order (the module's, testament's, books' and chapters'
headings included). The PyPI package `pysword` (MIT; the `recipes`
extra) parses the `.conf` files and gives the versifications' verse
indices; the blocks are read here, each decompressed once (pysword
decompresses a whole book per verse and reads a block that does not
decompress as empty text): a damaged module is an error, not missing
verses.

Markup: `recipes.data.osis.clean` turns a verse's OSIS markup into its
words.
"""

import dataclasses
import hashlib
import os
import pathlib
import struct
import zlib

from harness import extras
from recipes.data.errors import DataError
from recipes.data.osis import clean

ENVIRONMENT = "SWORD_PATH"
DEFAULT_ROOT = "/usr/share/sword"
TESTAMENTS = ("ot", "nt")


@dataclasses.dataclass(frozen=True)
class Module:
    """One SWORD module of `MODULES`."""

    module: str  # the SWORD module's name (its `mods.d/*.conf` section)
    package: str  # the Debian package that installs it
    description: str
    licence: str
    language: str  # ISO 639-1


MODULES = {
    "web": Module(
        "engWEB2015eb",
        "sword-text-web",
        "World English Bible with Deuterocanon, 2020 stable text",
        "public domain",
        "en",
    ),
    "kjv": Module(
        "engKJV2006eb",
        "sword-text-kjv",
        "King James Version (1769 text), protocanon only",
        "public domain",
        "en",
    ),
    "sparv": Module(
        "spaRV1909eb",
        "sword-text-sparv",
        "Reina-Valera 1909 (Spanish)",
        "public domain",
        "es",
    ),
}


@dataclasses.dataclass(frozen=True)
class Verse:
    """A verse: `book` its book's OSIS name (`Gen`), `book_index` the
    book's place in the versification's canon (0: Genesis), `chapter`
    and `verse` from 1, `text` cleaned (`clean`)."""

    book: str
    book_index: int
    chapter: int
    verse: int
    text: str


def _pysword():
    """pysword's `books`, `canons` and `modules`, or a DataError."""
    if not extras.installed("pysword"):
        raise DataError(
            "SWORD modules are read with the PyPI package pysword, which is "
            "not installed: `pip install 'pysword>=0.2.8'` (it is in the "
            f"`recipes` extra: {extras.install_hint('recipes')})"
        )
    # An optional dependency (the `recipes` extra).
    from pysword import books
    from pysword import canons
    from pysword import modules

    return books, canons.canons, modules


def root_folder(root=None):
    """`root`, else `$SWORD_PATH`, else `/usr/share/sword`."""
    return pathlib.Path(root or os.environ.get(ENVIRONMENT) or DEFAULT_ROOT)


class _Damaged:
    """Makes the one-line DataError of a damaged module."""

    def __init__(self, module, entry):
        self.module = module
        self.fix = "reinstall it" + (
            f" (`apt install --reinstall {entry.package}`)" if entry else ""
        )

    def __call__(self, what, path=None):
        where = f" ({path})" if path else ""
        return DataError(
            f"SWORD module {self.module} is damaged{where}: {what}; {self.fix}"
        )


class _Testament:
    """The three files of a testament, read whole; a block is
    decompressed once (the last one is kept: verses come in order)."""

    def __init__(self, folder, name, letter, record, damaged):
        self.paths = {k: folder / f"{name}.{letter}z{k}" for k in "vsz"}
        self.present = any(p.exists() for p in self.paths.values())
        self.record = record
        self.damaged = damaged
        self.block = (None, b"")

    def load(self):
        data = {}
        for kind, path in self.paths.items():
            try:
                data[kind] = path.read_bytes()
            except OSError as error:
                reason = error.strerror if path.exists() else "missing"
                raise self.damaged(f"{path.name} {reason}", path) from None
        for kind, size in (("v", self.record.size), ("s", 12)):
            if len(data[kind]) % size:
                raise self.damaged(
                    f"{len(data[kind])} bytes, not a multiple of {size} "
                    "(truncated)",
                    self.paths[kind],
                )
        self.index, self.sizes, self.text = data["v"], data["s"], data["z"]
        self.count = len(self.index) // self.record.size

    def markup(self, index, encoding):
        """The text of verse record `index` ('' for none)."""
        if index >= self.count:
            raise self.damaged(
                f"{self.count} verse records where the versification needs "
                f"{index + 1} at least (truncated)",
                self.paths["v"],
            )
        block, start, length = self.record.unpack_from(
            self.index, index * self.record.size
        )
        if not length:
            return ""
        data = self._decompressed(block)
        if start + length > len(data):
            raise self.damaged(
                f"verse record {index} points past the end of block {block}",
                self.paths["v"],
            )
        try:
            return data[start : start + length].decode(encoding)
        except UnicodeDecodeError as error:
            raise self.damaged(
                f"verse record {index} is not {encoding} ({error.reason})",
                self.paths["z"],
            ) from None

    def _decompressed(self, block):
        if self.block[0] == block:
            return self.block[1]
        path = self.paths["z"]
        if (block + 1) * 12 > len(self.sizes):
            raise self.damaged(
                f"block {block} is not among its {len(self.sizes) // 12}",
                self.paths["s"],
            )
        offset, size, expected = struct.unpack_from(
            "<III", self.sizes, block * 12
        )
        if offset + size > len(self.text):
            raise self.damaged(
                f"block {block} runs past the end of the file (truncated)",
                path,
            )
        try:
            data = zlib.decompress(self.text[offset : offset + size])
        except zlib.error as error:
            raise self.damaged(
                f"block {block} does not decompress ({error})", path
            ) from None
        if len(data) != expected:
            raise self.damaged(
                f"block {block} holds {len(data)} bytes, not {expected}",
                path,
            )
        self.block = (block, data)
        return data


def _conf(name, root, modules):
    """`(module name, MODULES entry or None, its .conf as a dict)`."""
    entry = MODULES.get(name) or next(
        (m for m in MODULES.values() if m.module == name), None
    )
    module = entry.module if entry else name
    try:
        confs = modules.SwordModules(str(root)).parse_modules()
    except OSError:
        confs = {}
    except Exception as error:  # pysword's own errors
        raise DataError(
            f"{root / 'mods.d'}: cannot read the SWORD .conf files ({error})"
        ) from None
    if module in confs:
        return module, entry, confs[module]
    if entry is None:
        known = "; ".join(
            f"{k}: {m.module} (Debian {m.package})" for k, m in MODULES.items()
        )
        raise DataError(
            f"SWORD module {name!r} is not in {root / 'mods.d'}; known: {known}"
        )
    raise DataError(
        f"SWORD module {module} ({entry.description}) is not installed in "
        f"{root}: `apt install {entry.package}` (or set {ENVIRONMENT} to the "
        "SWORD library that holds it)"
    )


class _Reader:
    """A zText module's verse records in the versification's order."""

    def __init__(self, name, root):
        books, canons, modules = _pysword()
        root = root_folder(root)
        self.module, entry, conf = _conf(name, root, modules)
        self.damaged = damaged = _Damaged(self.module, entry)
        where = f"SWORD module {self.module} in {root / 'mods.d'}"
        driver = conf.get("moddrv", "").lower()
        if driver not in ("ztext", "ztext4"):
            raise DataError(
                f"{where}: ModDrv={conf.get('moddrv')}; only zText is read"
            )
        if conf.get("compresstype", "ZIP").upper() != "ZIP":
            raise DataError(
                f"{where}: CompressType={conf['compresstype']}; only ZIP "
                "(zlib) is read"
            )
        if not conf.get("datapath"):
            raise damaged("its .conf has no DataPath", root / "mods.d")
        folder = root / conf["datapath"]
        block_type = conf.get("blocktype", "BOOK").upper()
        letter = {"BOOK": "b", "CHAPTER": "c", "VERSE": "v"}.get(block_type)
        if letter is None:
            raise damaged(f"unknown BlockType={block_type}", root / "mods.d")
        versification = conf.get("versification", "KJV").lower()
        if versification not in canons:
            raise DataError(
                f"{where}: Versification={conf['versification']} is not one "
                f"pysword knows ({', '.join(sorted(canons))})"
            )
        record = struct.Struct("<IIH" if driver == "ztext" else "<III")
        testaments = {
            t: _Testament(folder, t, letter, record, damaged)
            for t in TESTAMENTS
        }
        # A module may hold one testament; the three of MODULES hold both.
        self.testaments = {t: v for t, v in testaments.items() if v.present}
        missing = [t.upper() for t in TESTAMENTS if t not in self.testaments]
        if not self.testaments or (entry and missing):
            raise damaged(
                f"no data files of the {' or '.join(missing)}", folder
            )
        for testament in self.testaments.values():
            testament.load()
        self.structure = books.BibleStructure(
            versification, list(self.testaments)
        )
        canon = [b for t in TESTAMENTS for b in canons[versification][t]]
        self.canon = {book[1]: i for i, book in enumerate(canon)}
        utf8 = conf.get("encoding", "").upper().replace("-", "") == "UTF8"
        self.encoding = "utf-8" if utf8 else "latin-1"

    def __iter__(self):
        """`(book, book_index, chapter, verse, markup)` of each verse
        index; markup '' where there is none."""
        for t, books in self.structure.get_books().items():
            offset = 2  # after the module's and the testament's headings
            for book in books:
                for chapter in range(1, book.num_chapters + 1):
                    indices = book.get_indicies(
                        chapters=[chapter], offset=offset
                    )
                    for verse, index in enumerate(indices, 1):
                        yield (
                            book.osis_name,
                            self.canon[book.osis_name],
                            chapter,
                            verse,
                            self.testaments[t].markup(index, self.encoding),
                        )
                offset += book.size


def verses(name, root=None):
    """Every verse of a module that has text, in the versification's
    order, its text cleaned (`clean`).

    `name`: a key of `MODULES` (`web`) or a SWORD module's name; `root`:
    the SWORD library (`root_folder`).

    Raises:
        DataError: pysword is not installed; the module is not installed
            (naming its Debian package and the folder looked in); it is
            damaged (a data file missing or truncated, a block that does
            not decompress, no verse text at all), naming the module.
    """
    reader = _Reader(name, root)
    result = []
    for book, book_index, chapter, verse, markup in reader:
        text = clean(markup) if markup else ""
        if text:
            result.append(Verse(book, book_index, chapter, verse, text))
    if not result:
        raise reader.damaged("it holds no verse text")
    return result


def fingerprint(name, root=None):
    """A SHA-256 of a module's name, `.conf` and data files: what a cache
    of its verses is keyed by (a reinstalled module reads anew). Raises
    `DataError` as `verses` does for a module that is not installed."""
    root = root_folder(root)
    module, entry, conf = _conf(name, root, _pysword()[2])
    digest = hashlib.sha256(repr((module, sorted(conf.items()))).encode())
    folder = root / conf.get("datapath", "-")
    try:
        for path in sorted(folder.iterdir()) if folder.is_dir() else ():
            if path.is_file():
                digest.update(path.name.encode() + b"\0" + path.read_bytes())
    except OSError as error:
        raise _Damaged(module, entry)(error.strerror, folder) from None
    return digest.hexdigest()


def chapters_as_documents(name, sentences_of, root=None):
    """A module's chapters as documents of the language-model corpus,
    one per chapter: `sentences_of(text)` of its verses joined by spaces,
    a list of sentences, each a list of tokens. The corpus passes
    `recipes.data.unlabelled.sentences_of` (that module imports this
    one, so this one does not import it)."""
    chapters = {}
    for verse in verses(name, root):
        key = (verse.book_index, verse.chapter)
        chapters.setdefault(key, []).append(verse.text)
    documents = [sentences_of(" ".join(t)) for t in chapters.values()]
    return [d for d in documents if d]
