"""`Tagger`: a sequence tagger (POS, entities) that reads raw text."""

import html
import re
import unicodedata

import keras

from zoo import engine
from zoo import text as text_lib
from zoo._package import PACKAGE
from zoo.tasks.task import LabelledText
from zoo.tasks.task import Task
from zoo.tasks.task import check_list
from zoo.tasks.task import length_batches
from zoo.walk import optional_layer

# The 12 universal tags (Petrov, Das and McDonald 2012), as the Brown
# corpus is mapped to them (`recipes.data.brown`).
UNIVERSAL = frozenset(
    ("ADJ", "ADP", "ADV", "CONJ", "DET", "NOUN", "NUM", "PRON", "PRT", "VERB",
     ".", "X")
)  # fmt: skip
_ADDRESS = re.compile(r"^(?:https?://|www\.)\S+$|^[\w.+\-]+@\w[\w\-.]*$")
_NUMBER = re.compile(r"^[+\-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?%?$")


def universal_rule(word):
    """The universal tag of a token the training corpus never shows (its
    tag by the conventions of UD English EWT mapped to the 12 tags: a
    URL, an e-mail address, an emoji or the retweet mark `RT` `X`; a
    `@mention`, `#hashtag` or `$cashtag` `NOUN`; a number `NUM`; a run of
    marks `.`), or None: the model's tag stands."""
    if word == "RT" or _ADDRESS.match(word):
        return "X"
    if (
        word[:1] in "@#$"
        and len(word) > 1
        and word[1:].replace("_", "").isalnum()
        and (word[0] != "$" or word[1].isalpha())
    ):
        return "NOUN"
    if _NUMBER.match(word):
        return "NUM"
    if len(word) > 1 and all(unicodedata.category(c)[0] == "P" for c in word):
        return "."  # a run of marks (`!!!`, `?!`), where Brown has one
    if (
        word
        and all(
            unicodedata.category(c) in ("So", "Sk", "Cf", "Mn") for c in word
        )
        and any(unicodedata.category(c) == "So" for c in word)
    ):
        return "X"
    return None


def model_form(word):
    """What a universal tagger reads for a token its corpus never shows
    (`universal_rule` tags it): a `@mention` or `$cashtag` as a name
    (`Smith`), a `#hashtag` as its word, a URL or an e-mail address as a
    noun (`address`), the retweet mark `RT` or an emoji as a mark (`!`),
    an HTML entity as what it stands for (`&amp;` -> `&`); any other word
    as it is."""
    if word[:1] == "&" and word[-1:] == ";" and len(word) > 2:
        return html.unescape(word)
    rule = universal_rule(word)
    if rule is None or rule == "NUM":
        return word
    if rule == ".":
        return word[0]
    if word[:1] in "@$":
        return "Smith"
    if word[:1] == "#":
        return word[1:]
    return "address" if _ADDRESS.match(word) else "!"


# Brown's spelling of what running text writes otherwise: a dash `--`, a
# British title without its period, `percent`.
_BROWN_FORMS = {
    "-": "--", "–": "--", "—": "--", "%": "percent",
    "Mr": "Mr.", "Mrs": "Mrs.", "Dr": "Dr.", "St": "St.",
}  # fmt: skip


def model_forms(words):
    """`model_form` of each word of a sentence, in Brown's spelling where
    running text writes it otherwise (`_BROWN_FORMS`), and straight double
    quotes as Brown's opening and closing ones (` `` ` and `''`), taken in
    turn."""
    forms = []
    opened = False
    for word in words:
        if word in ('"', "“", "”"):
            opened = word == "“" or (word == '"' and not opened)
            forms.append("``" if opened else "''")
            continue
        forms.append(_BROWN_FORMS.get(word) or model_form(word))
    return forms


def checked_words(words, name):
    """A sentence given as words (`name` says which argument): a list or
    tuple of non-empty strings, else a `TypeError` or `ValueError` naming
    the word."""
    if not isinstance(words, (list, tuple)):
        raise TypeError(
            f"`{name}` must be a string or a list of words; received "
            f"{words!r} of type {type(words).__name__}."
        )
    for j, word in enumerate(words):
        if not isinstance(word, str):
            raise TypeError(
                f"`{name}[{j}]` must be a word (a string); received "
                f"{word!r} of type {type(word).__name__}."
            )
        if not word.strip():
            raise ValueError(
                f"`{name}[{j}]` is empty: a word needs at least one "
                "character that is not a space."
            )
    return list(words)


# What a preset records the outputs of (`Tagger.fixed_outputs`).
CHECK_SENTENCES = (
    "The keys to the cabinet are on the table .",
    "Can you book a flight to Boston for Friday ?",
    "I refuse to collect the refuse around here .",
)


def word_inputs(ids, sentences, characters=None, token_features=None):
    """A tagger's inputs for lists of words whose token ids (`ids`, one
    row a sentence, padded) are known: `ids` alone, or a tuple of `ids`,
    the words' character ids (`characters`, a `zoo.layers.
    CharacterVocabulary`) and their token features (`token_features`, a
    `zoo.layers.TokenFeatures`), as wide as `ids`."""
    inputs = [ids]
    if characters is not None:
        inputs.append(characters.encode(sentences, width=ids.shape[1]))
    if token_features is not None:
        inputs.append(token_features.encode(sentences, width=ids.shape[1]))
    return ids if len(inputs) == 1 else tuple(inputs)


def best_tags(outputs, real, decode=None):
    """The best tag column per token, 0 where `real` is False: the argmax
    of the probabilities `outputs` (column 0, the padding, never), or,
    with `decode` (a CRF's Viterbi: `(emissions, mask) -> tags`), its
    path over the emission scores `outputs` with column 0 ruled out."""
    if decode is None:
        return (outputs[..., 1:].argmax(axis=-1) + 1) * real
    outputs[..., 0] = -1e9
    return decode(outputs, real)


class SentenceTagging:
    """What a `Tagger` and a `zoo.tasks.TaggerEnsemble` share: tags for
    lists of words (`predict_tags`) and for raw text (`tag`), from a
    class's `labels` and `batch_tag_ids(sentences)`."""

    def predict_tags(self, sentences, batch_size=64):
        """Tags for lists of words, batched by length (little padding), at
        most `batch_size` sentences and `batch_size * PADDED_WORDS` padded
        words a batch: a very long sentence goes alone, not padded into
        by 63 short ones (a 20,000-word line among them took 7 GB)."""
        labels = self.labels
        result = [None] * len(sentences)
        lengths = [len(s) for s in sentences]
        for batch in length_batches(lengths, batch_size):
            columns = self.batch_tag_ids([sentences[i] for i in batch])
            for i, row in zip(batch, columns):
                result[i] = [labels[j] for j in row[: len(sentences[i])]]
        return result

    def tag(self, sentences, batch_size=64):
        """`[[(word, tag), ...], ...]`, one list per sentence.

        A sentence is a list of words (used as they are) or a raw string,
        split into words and punctuation by `zoo.text.tokenize` with
        `split_punctuation=True` (`"Pass the butter!"` -> `Pass`, `the`,
        `butter`, `!`), as the training corpora are tokenised; a URL, an
        e-mail address, a `@mention`, a `#hashtag` and an emoji stay
        whole. With the 12 universal tags, what the training corpus never
        shows takes its tag by rule (`universal_rule`: a URL, an address
        or an emoji `X`, a mention or hashtag `NOUN`, a number `NUM`).
        A word that is not a non-empty string is refused, naming it.
        """
        check_list("sentences", sentences, "a list of sentences")
        words = [
            text_lib.tokenize(s, lowercase=False, split_punctuation=True)
            if isinstance(s, str)
            else checked_words(s, f"sentences[{i}]")
            for i, s in enumerate(sentences)
        ]
        if not self._universal():
            tags = self.predict_tags(words, batch_size)
            return [list(zip(w, t)) for w, t in zip(words, tags)]
        # What the corpus never shows is read as what it does (a name, a
        # noun, a mark), so the words around it keep their context.
        forms = [model_forms(w) for w in words]
        tags = self.predict_tags(forms, batch_size)
        tags = [
            [universal_rule(word) or tag for word, tag in zip(w, t)]
            for w, t in zip(words, tags)
        ]
        return [list(zip(w, t)) for w, t in zip(words, tags)]

    def _universal(self):
        """Whether the tags are the 12 universal ones (`UNIVERSAL`)."""
        return set(self.labels[1:]) == UNIVERSAL


@keras.saving.register_keras_serializable(package=PACKAGE)
class Tagger(SentenceTagging, LabelledText, Task, keras.Model):
    """Tags each word of a sentence: a functional model from token ids
    (and each word's character ids) to one tag distribution per word.

    Built by `zoo.heads.sequence_tagger` with `vocabulary`, `labels` (and
    `characters`): its layers `vocabulary` (a `zoo.layers.
    TokenVocabulary`), `labels` (`zoo.layers.LabelNames`, column 0 the
    padding) and, where it reads characters, `characters`
    (`zoo.layers.CharacterVocabulary`); where it reads word shapes or
    gazetteer matches, `token_features` (`zoo.layers.TokenFeatures`); a
    CRF tagger has a `crf` layer, whose Viterbi path gives the tags.

    Example:
    ```python
    tagger = zoo.tasks.Tagger.from_preset("pos_en_universal")
    tagger.tag(["The cat sat on the mat ."])
    # [[('The', 'DET'), ('cat', 'NOUN'), ...]]
    tagger(["Time flies"])           # raw text: the same as `tag`
    ```
    """

    preset_kind = "tagger"
    built_by = "zoo.heads.sequence_tagger(..., vocabulary=..., labels=...)"

    @property
    def crf(self):
        """The `zoo.layers.CRF`, or None for a softmax tagger."""
        return optional_layer(self, "crf")

    @property
    def token_features(self):
        """The `zoo.layers.TokenFeatures` (word shape, gazetteer matches),
        or None for a tagger that reads none."""
        return optional_layer(self, "token_features")

    def encode(self, sentences):
        """The model's inputs for lists of words: ids (and characters, and
        token features, where the tagger reads them)."""
        ids = self.vocabulary.encode(sentences)
        return word_inputs(ids, sentences, self.characters, self.token_features)

    def tag_ids(self, inputs):
        """The best tag column per token (0 on padding): the argmax of the
        softmax, or the CRF's Viterbi path (never the padding column)."""
        ids = inputs[0] if isinstance(inputs, tuple) else inputs
        return best_tags(self.infer(inputs), ids > 0, self._viterbi())

    def _viterbi(self):
        """The CRF's decoder (`best_tags`'s `decode`), or None."""
        crf = self.crf
        if crf is None:
            return None
        if self.runner == "numpy":  # NumPy's Viterbi, as the forward pass
            return self.fresh_function(
                "viterbi", lambda: engine.crf_decoder(crf)
            )
        return lambda emissions, mask: keras.ops.convert_to_numpy(
            crf.decode(emissions, mask)
        )

    def batch_tag_ids(self, sentences):
        """The best tag column of each word of a batch of sentences."""
        return self.tag_ids(self.encode(sentences))

    def run_text(self, inputs, batch_size=64):
        if isinstance(inputs, str):
            return self.tag([inputs], batch_size)[0]
        return self.tag(inputs, batch_size)

    def fixed_outputs(self, sentences=CHECK_SENTENCES):
        """The tags of `sentences` and each token's highest output (a
        softmax probability, or a CRF tagger's emission score), rounded
        to 4 places."""
        words = [s.split() for s in sentences]
        outputs = self.infer(self.encode(words))
        return {
            "sentences": list(sentences),
            "tags": [" ".join(tags) for tags in self.predict_tags(words)],
            "top_outputs": [
                round(float(x), 4)
                for row, w in zip(outputs.max(axis=-1), words)
                for x in row[: len(w)]
            ],
        }
