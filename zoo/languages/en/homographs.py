"""Heteronyms: words written alike and said differently by part of speech,
as a table `{word: {universal tag: phonemes}}` for `zoo.G2p`: the builder
of a G2P preset's `homographs.json` (`build`) and `tenses.json`
(`tense_contexts`), which `zoo.languages.en.g2p` reads. The corpora come
in already loaded (the G2P recipe, `recipes.g2p`, loads CMUdict and the
tagged Brown training split and writes what these return).

Built from two sources, said here so the table can be checked:

1. **CMUdict's own variants and the Brown corpus's tags** (`stress_pairs`).
   English noun/verb pairs shift the primary stress: a noun or adjective
   stresses an earlier syllable than its verb (REcord / reCORD, PREsent /
   preSENT, OBject / obJECT). For each dictionary word whose variants
   have the same number of syllables and put the primary stress in two
   places, the earlier-stressed variant is given to NOUN and ADJ and the
   later-stressed one to VERB, but only for words that the tagged Brown
   training split uses both as a verb and as a noun or adjective (at
   least `MIN_USES` times each): that keeps names and one-sided words out.
   What the rule found was read by hand, and the few words whose variants
   differ by dialect or meaning rather than by part of speech are left
   out (`EXCLUDED`: effect, detail, buffet, finance). Words ending in
   `-ate` whose variants end in `EY2 T` and in a reduced vowel (`AH0
   T`, `IH0 T`) take the first for VERB (to estimate) and the second
   for NOUN and ADJ (an estimate), by the same corpus check
   (`ate_pairs`).
2. **A short list written here** (`BY_HAND`), for heteronyms that differ
   in a vowel or a consonant rather than in stress (lead, live, wind,
   tear, close, use, excuse, abuse, wound, minute, dove)
   and for the stress pairs whose adjective takes the later stress
   (content, invalid). Each entry's phonemes are CMUdict's own variants;
   only which tag takes which was written by hand.

3. **Tense** (`BY_TENSE`: read, misread), whose two readings are both
   verbs (I will read / I have read). The table gives the present
   reading to `VERB` and the past one to `PAST` (`VERB:past`), the
   past to `ADJ` (a widely read book) and the present to `NOUN` (a good
   read), and
   `tense_contexts` learns from the Brown training split's own tags (vb
   against vbd and vbn, over every verb) which words before a verb say
   present (to, will, can, don't, you'll) or past (have, had, was, he,
   she): a word seen before at least `TENSE_MIN_USES` verbs, one reading
   of which makes `TENSE_SHARE` of them. Adverbs and `not` in between
   are skipped (have never read). `zoo.G2p` reads them as the preset's
   asset `tenses.json`; a word it has not seen there takes the present.

What the table cannot do: a heteronym whose readings share a universal
tag and differ in meaning, not tense (bass, bow, row: both NOUN). Those
keep the dictionary's first pronunciation, as do heteronyms whose second
reading CMUdict lacks (does: the deer; mouth: the verb).
"""

import collections

from zoo.languages.en import g2p
from zoo.languages.en import lexicon

MIN_USES = 1
NOMINAL = ("NOUN", "ADJ")
# What the stress rule finds but is wrong, read by hand: variants that
# differ by dialect or meaning, not part of speech (the effect and to
# effect are both IH0 F EH1 K T; a buffet of food is B AH0 F EY1).
EXCLUDED = ("effect", "detail", "buffet", "finance")
# Written by hand: which of CMUdict's variants each universal tag takes
# (tags not named keep the dictionary's first variant).
BY_HAND = {
    "lead": {"VERB": "L IY1 D", "NOUN": "L EH1 D", "ADJ": "L EH1 D"},
    "live": {"VERB": "L IH1 V", "ADJ": "L AY1 V", "ADV": "L AY1 V"},
    "lives": {"VERB": "L IH1 V Z", "NOUN": "L AY1 V Z"},
    "wind": {"VERB": "W AY1 N D", "NOUN": "W IH1 N D"},
    "winds": {"VERB": "W AY1 N D Z", "NOUN": "W IH1 N D Z"},
    "tear": {"VERB": "T EH1 R", "NOUN": "T IH1 R"},
    "tears": {"VERB": "T EH1 R Z", "NOUN": "T IH1 R Z"},
    "close": {"VERB": "K L OW1 Z", "ADJ": "K L OW1 S", "ADV": "K L OW1 S"},
    "closer": {"NOUN": "K L OW1 Z ER0", "ADJ": "K L OW1 S ER0"},
    "use": {"VERB": "Y UW1 Z", "NOUN": "Y UW1 S"},
    "uses": {"VERB": "Y UW1 Z IH0 Z", "NOUN": "Y UW1 S IH0 Z"},
    "excuse": {"VERB": "IH0 K S K Y UW1 Z", "NOUN": "IH0 K S K Y UW1 S"},
    "abuse": {"VERB": "AH0 B Y UW1 Z", "NOUN": "AH0 B Y UW1 S"},
    "wound": {"VERB": "W AW1 N D", "NOUN": "W UW1 N D"},
    "minute": {"NOUN": "M IH1 N AH0 T", "ADJ": "M AY0 N UW1 T"},
    "dove": {"VERB": "D OW1 V", "NOUN": "D AH1 V"},
    "content": {"NOUN": "K AA1 N T EH0 N T", "ADJ": "K AH0 N T EH1 N T"},
    "invalid": {"NOUN": "IH1 N V AH0 L AH0 D", "ADJ": "IH2 N V AE1 L AH0 D"},
}


# Written by hand: verbs read one way in the present and another in the
# past (CMUdict has both readings); `tense_contexts` says which is meant.
BY_TENSE = {
    "read": {"present": "R IY1 D", "past": "R EH1 D"},
    "misread": {"present": "M IH0 S R IY1 D", "past": "M IH0 S R EH1 D"},
}
PAST = g2p.PAST_TAG
# The Brown tags of a verb's base form (infinitive, imperative, present
# but the third person) and of its past tense and participle.
PRESENT_TAGS = ("vb",)
PAST_TAGS = ("vbd", "vbn")
TENSE_MIN_USES = 10  # chosen on the dev split (module docstring)
TENSE_SHARE = 0.75


def _stress_index(phones):
    """The index, among the vowels, of the primary stress (None if none)."""
    vowels = [p for p in phones if p[-1].isdigit()]
    for i, phone in enumerate(vowels):
        if phone.endswith("1"):
            return i, len(vowels)
    return None, len(vowels)


def tag_counts(tagged_sentences):
    """`{word (lower-case): Counter(tag)}` over `(words, tags)` pairs."""
    counts = collections.defaultdict(collections.Counter)
    for words, tags in tagged_sentences:
        for word, tag in zip(words, tags):
            counts[lexicon.key(word)][tag] += 1
    return counts


def _both_ways(counts):
    verb = counts.get("VERB", 0)
    nominal = sum(counts.get(t, 0) for t in NOMINAL)
    return verb >= MIN_USES and nominal >= MIN_USES


def stress_pairs(entries, counts):
    """The stress-shift heteronyms (rule 1 of the module's docstring)."""
    table = {}
    for word, variants in entries.items():
        if len(variants) < 2 or not _both_ways(counts.get(word, {})):
            continue
        if word in EXCLUDED:
            continue
        by_place = {}
        sizes = set()
        for phones in variants:
            place, size = _stress_index(phones)
            if place is None:
                continue
            sizes.add(size)
            by_place.setdefault(place, phones)
        if len(by_place) != 2 or len(sizes) != 1 or sizes.pop() < 2:
            continue
        early, late = (by_place[p] for p in sorted(by_place))
        table[word] = {
            "NOUN": " ".join(early),
            "ADJ": " ".join(early),
            "VERB": " ".join(late),
        }
    return table


def ate_pairs(entries, counts):
    """The `-ate` heteronyms (rule 1's second part)."""
    table = {}
    for word, variants in entries.items():
        if not word.endswith("ate") or len(variants) < 2:
            continue
        if not _both_ways(counts.get(word, {})):
            continue
        verb = [v for v in variants if v[-2:] == ("EY2", "T")]
        other = [v for v in variants if v[-2:] in (("AH0", "T"), ("IH0", "T"))]
        if verb and other:
            nominal = " ".join(other[0])
            table[word] = {"VERB": " ".join(verb[0])}
            table[word].update({tag: nominal for tag in NOMINAL})
    return table


def tense_contexts(
    tagged_sentences, universal_tag, min_uses=TENSE_MIN_USES, share=TENSE_SHARE
):
    """`{"after": {word: "present" | "past"}, "otherwise": "present"}`:
    the words before a verb that say its tense, from a corpus with
    Brown's own tags (`(words, tags)` pairs, `tagset="brown"`), counted
    over every verb tagged `PRESENT_TAGS` or `PAST_TAGS` (rule 3 of the
    module's docstring). `universal_tag` maps a Brown tag to its
    universal tag (`recipes.data.brown.universal_tag`), which says what
    `g2p.word_before` skips."""
    counts = collections.defaultdict(collections.Counter)
    for words, tags in tagged_sentences:
        keys = [lexicon.key(w) for w in words]
        universal = [universal_tag(t) for t in tags]
        for i, tag in enumerate(tags):
            if tag in PRESENT_TAGS or tag in PAST_TAGS:
                before = g2p.word_before(keys, universal, i)
                counts[before]["past" if tag in PAST_TAGS else "present"] += 1
    after = {}
    for word, seen in sorted(counts.items()):
        tense, uses = seen.most_common(1)[0]
        total = sum(seen.values())
        if total >= min_uses and uses >= share * total:
            after[word] = tense
    return {"after": after, "otherwise": "present"}


def _unstressed(phones):
    return " ".join(p.rstrip("012") for p in phones.split())


def build(entries, tagged_sentences):
    """The heteronym table: `{word: {tag: "PH ON EH1 M Z"}}`, from the
    dictionary's entries (`{word: [phones, ...]}`, with stress or
    without: `BY_HAND`'s then lose theirs) and a tagged corpus (universal
    tags). Every phoneme string is one of the word's dictionary variants
    (checked); a word of `BY_HAND` the dictionary lacks is left out.
    Without stress, only the pairs that still differ remain (a stress
    pair reads the same both ways)."""
    counts = tag_counts(tagged_sentences)
    table = {**stress_pairs(entries, counts), **ate_pairs(entries, counts)}
    stressed = any(
        p[-1].isdigit() for vs in entries.values() for v in vs for p in v
    )
    by_tense = {
        word: {
            "VERB": readings["present"],
            PAST: readings["past"],
            "ADJ": readings["past"],  # a widely read book
            "NOUN": readings["present"],  # a good read
        }
        for word, readings in BY_TENSE.items()
    }
    for word, readings in {**BY_HAND, **by_tense}.items():
        if word not in entries:
            continue  # a dictionary without it (a sample, a test's)
        table[word] = {
            tag: phones if stressed else _unstressed(phones)
            for tag, phones in readings.items()
        }
    for word, readings in table.items():
        known = {" ".join(v) for v in entries.get(word, [])}
        for tag, phones in readings.items():
            if phones not in known:
                raise ValueError(
                    f"heteronym {word!r} ({tag}): {phones!r} is not one of "
                    f"its dictionary variants {sorted(known)}"
                )
    return {
        word: readings
        for word, readings in sorted(table.items())
        if len(set(readings.values())) > 1
    }


def tables(entries, tagged_sentences, universal_tag):
    """A G2P preset's JSON assets, `{name: content}`: the heteronym table
    (`g2p.HOMOGRAPHS_ASSET`, `build` over the sentences' universal tags)
    and the words that say a verb's tense (`g2p.TENSES_ASSET`,
    `tense_contexts`), from the dictionary's `entries` and a corpus with
    Brown's own tags (`(words, tags)` pairs; `universal_tag` maps a tag
    to its universal one, `recipes.data.brown.universal_tag`)."""
    universal = [
        (words, [universal_tag(t) for t in tags])
        for words, tags in tagged_sentences
    ]
    return {
        g2p.HOMOGRAPHS_ASSET: build(entries, universal),
        g2p.TENSES_ASSET: tense_contexts(tagged_sentences, universal_tag),
    }
