"""Raw text tokenised as UD English tokenises it: `zoo.text.tokenize`
keeps paths, file names, versions, dates, times and command-line flags
whole (in every language), and `zoo.languages.en.split_words` then
splits English clitics as UD English EWT does."""

import pytest

from zoo import text
from zoo import validation
from zoo.languages import en


def _tokens(string):
    return text.tokenize(string, lowercase=False, split_punctuation=True)


# What `zoo.text.tokenize` keeps whole, in any language, with the
# sentence's punctuation split off.
WHOLE = [
    # Paths: Unix, relative, home, Windows.
    ("See /etc/issue.", ["See", "/etc/issue", "."]),
    (
        "Run ./configure, then make.",
        ["Run", "./configure", ",", "then", "make", "."],
    ),
    ("Edit ~/.bashrc now", ["Edit", "~/.bashrc", "now"]),
    ("cp ../x/y.txt /tmp/", ["cp", "../x/y.txt", "/tmp/"]),
    ("open C:\\Users\\me.", ["open", "C:\\Users\\me", "."]),
    ("(/usr/local/bin)", ["(", "/usr/local/bin", ")"]),
    ('"/etc/hosts"', ['"', "/etc/hosts", '"']),
    ("PATH=/usr/bin", ["PATH", "=", "/usr/bin"]),
    ("see src/zoo/text.py;", ["see", "src/zoo/text.py", ";"]),
    ("github.com/keras-team/keras.", ["github.com/keras-team/keras", "."]),
    # File names.
    ("setup.py and README.md", ["setup.py", "and", "README.md"]),
    ("unpack foo.tar.gz.", ["unpack", "foo.tar.gz", "."]),
    ("the .gitignore file", ["the", ".gitignore", "file"]),
    # Versions.
    ("Python 3.8.18 or 2.0.1", ["Python", "3.8.18", "or", "2.0.1"]),
    ("(v1.2)", ["(", "v1.2", ")"]),
    ("v1.2.3, 1.0-rc1.", ["v1.2.3", ",", "1.0-rc1", "."]),
    # Dates and times; am/pm apart, as UD English writes them.
    ("on 2024-12-07.", ["on", "2024-12-07", "."]),
    ("on 12/07/2024,", ["on", "12/07/2024", ","]),
    ("on 07.12.2024.", ["on", "07.12.2024", "."]),
    ("at 2024-12-07T10:30:00Z", ["at", "2024-12-07T10:30:00Z"]),
    ("at 10:30.", ["at", "10:30", "."]),
    ("at 10:30:15 or 3:30pm", ["at", "10:30:15", "or", "3:30", "pm"]),
    ("at 5pm or 5 p.m.", ["at", "5", "pm", "or", "5", "p.m."]),
    # URLs and e-mail addresses (a local one too).
    ("see https://x.org/a.", ["see", "https://x.org/a", "."]),
    ("<http://x.org/a>", ["<", "http://x.org/a", ">"]),
    ("git+https://x.org/a.git", ["git+https://x.org/a.git"]),
    ("mail root@localhost.", ["mail", "root@localhost", "."]),
    ("mailto:a@b.com", ["mailto:a@b.com"]),
    # Command-line flags, a value with its flag.
    ("apt --system -v.", ["apt", "--system", "-v", "."]),
    ("make -j4 --foo=bar,", ["make", "-j4", "--foo=bar", ","]),
    ("(--dry-run)", ["(", "--dry-run", ")"]),
    # Hyphenated compounds.
    ("a well-known fact", ["a", "well-known", "fact"]),
    ("state-of-the-art.", ["state-of-the-art", "."]),
    # Emoticons, mixed sentence punctuation, initials, AT&T, '90s.
    ("ok :) fine ;-) :D", ["ok", ":)", "fine", ";-)", ":D"]),
    ("Really?! Yes.?", ["Really", "?!", "Yes", ".?"]),
    ("what...?", ["what", "...", "?"]),
    ("George W. Bush", ["George", "W.", "Bush"]),
    ("Smith et al. wrote", ["Smith", "et", "al.", "wrote"]),
    ("AT&T and R&D", ["AT&T", "and", "R&D"]),
    ("in the '90s", ["in", "the", "'90s"]),
    # A word's combining marks are part of it: Devanagari's vowel signs,
    # Tamil's, Hebrew's points, an accent written apart.
    ("हिन्दी भाषा।", ["हिन्दी", "भाषा", "।"]),
    ("தமிழ் மொழி", ["தமிழ்", "மொழி"]),
    ("עִבְרִית", ["עִבְרִית"]),
    ("ˈdvor̝aːk", ["ˈdvor̝aːk"]),
    ("e\u0301lan vital", ["élan", "vital"]),
]

# What is still split as before.
SPLIT = [
    ("and/or", ["and", "/", "or"]),
    ("he/she said", ["he", "/", "she", "said"]),
    ("word--word", ["word", "--", "word"]),
    ("a -- b", ["a", "--", "b"]),
    ("--Sally", ["--", "Sally"]),
    ("1/2 cup", ["1", "/", "2", "cup"]),
    ("ratio 16:9", ["ratio", "16", ":", "9"]),
    ("#1 and #tag", ["#", "1", "and", "#tag"]),
    ("(see note:)", ["(", "see", "note", ":", ")"]),
]


@pytest.mark.parametrize("string, tokens", WHOLE)
def test_tokenize_keeps_what_a_reader_sees_as_one_whole(string, tokens):
    assert _tokens(string) == tokens


@pytest.mark.parametrize("string, tokens", SPLIT)
def test_tokenize_still_splits_what_is_not_one(string, tokens):
    assert _tokens(string) == tokens


# Clitics, as EWT's multiword tokens split them.
CLITICS = [
    ("I'm here", ["I", "'m", "here"]),
    ("don't", ["do", "n't"]),
    ("can't", ["ca", "n't"]),
    ("won't", ["wo", "n't"]),
    ("ain't", ["ai", "n't"]),
    ("cannot", ["can", "not"]),
    ("John's", ["John", "'s"]),
    ("dogs' bowls", ["dogs", "'", "bowls"]),
    ("it's", ["it", "'s"]),
    ("he'll", ["he", "'ll"]),
    ("we've", ["we", "'ve"]),
    ("they're", ["they", "'re"]),
    ("I'd", ["I", "'d"]),
    ("let's", ["let", "'s"]),
    ("should've", ["should", "'ve"]),
    ("wouldn't've", ["would", "n't", "'ve"]),
    ("gonna", ["gon", "na"]),
    ("wanna", ["wan", "na"]),
    ("gotta", ["got", "ta"]),
    ("outta", ["out", "ta"]),
    ("dunno", ["du", "n", "no"]),
    # The typographic apostrophe.
    ("don’t", ["do", "n’t"]),
    ("I’m", ["I", "’m"]),
    ("İstanbul’s", ["İstanbul", "’s"]),
    # Case kept.
    ("DON'T", ["DO", "N'T"]),
    ("Don't", ["Do", "n't"]),
    ("CANNOT", ["CAN", "NOT"]),
    ("Gonna", ["Gon", "na"]),
    ("IT'S", ["IT", "'S"]),
    # Without the apostrophe, as EWT splits them.
    ("dont", ["do", "nt"]),
    ("Didnt", ["Did", "nt"]),
    ("cant", ["ca", "nt"]),
    ("wont", ["wo", "nt"]),
    ("im", ["i", "m"]),
    ("Ive", ["I", "ve"]),
    ("thats", ["that", "s"]),
    ("DONT", ["DO", "NT"]),
    # After an abbreviation's period, an initialism or AT&T.
    ("Apple Inc.'s", ["Apple", "Inc.", "'s"]),
    ("the U.S.'s", ["the", "U.S.", "'s"]),
    ("A&M's", ["A&M", "'s"]),
    # A number and its unit.
    ("5kg", ["5", "kg"]),
    ("13.9M", ["13.9", "M"]),
    ("2x", ["2", "x"]),
    # In a sentence.
    (
        "I don't think John's dog can't swim.",
        ["I", "do", "n't", "think", "John", "'s", "dog", "ca", "n't", "swim"]
        + ["."],
    ),
]

# Not clitics: kept whole, as EWT keeps them.
NOT_CLITICS = [
    "y'all",
    "o'clock",
    "O'Brien",
    "ma'am",
    "rock'n'roll",
    "80's",
    "1990s",
    "21st",
    "3D",
    "kinda",
    "its",
    "lets",
    "well",
    "IM",
    "Shi'ite",
    "d'etat",
    "n't",
    "'s",
]


@pytest.mark.parametrize("string, words", CLITICS)
def test_split_words_splits_clitics_as_ud_english(string, words):
    assert en.split_words(string) == words


@pytest.mark.parametrize("word", NOT_CLITICS)
def test_split_words_keeps_what_is_not_a_clitic(word):
    assert en.split_words(word) == text.tokenize(
        word, lowercase=False, split_punctuation=True
    )
    if word[0] not in "'’":
        assert en.split_words(word) == [word]


def test_split_words_keeps_the_generic_tokens_whole():
    assert en.split_words("Don't edit /etc/issue, run ./configure.") == [
        "Do",
        "n't",
        "edit",
        "/etc/issue",
        ",",
        "run",
        "./configure",
        ".",
    ]
    assert en.split_words("") == []


@pytest.mark.parametrize("bad", [None, 3, ["don't"], b"don't"])
def test_split_words_refuses_what_is_not_a_string(bad):
    with pytest.raises(TypeError, match=r"`text` must be a string") as info:
        en.split_words(bad)
    assert type(bad).__name__ in str(info.value)
    assert isinstance(info.value, validation.ArgumentTypeError)
