"""A finished run's model, ready to use on raw input: what `load(OUTPUT)`
of each recipe returns.

- `Tagger.tag`: sentences (raw strings or lists of words) ->
  `[(word, tag), ...]` each;
- `Classifier.classify`: raw strings -> `(label, probability)` each;
- `Transcriber.transcribe` (or calling it): words -> a list of phonemes
  each, greedy or beam search.

Each takes a list and returns a list of the same length, one result per
input, in the input's order (a plain string where a list is expected is
refused: it would be read as a list of characters).

Each reads only the saved model (and, for G2P, `vocab.json`), needs only
`import recipes` (or `import zoo`) and runs on every backend, through the
model's compiled inference call (`recipes.training.predict`).
"""

import warnings

import keras
import numpy as np

import zoo
from recipes import models
from recipes import pipeline
from recipes import training
from recipes.data import cmudict


class Tagger:
    """Tags sentences with a tagger that a run saved.

    `Tagger(model)` for a loaded `model.keras`, or
    `recipes.tagging.load(OUTPUT)`.
    """

    def __init__(self, model):
        self.model = model
        self.vocabulary = model.get_layer("vocabulary")
        self.characters = models.optional_layer(model, "characters")
        self.crf = models.optional_layer(model, "crf")
        self.labels = model.get_layer("labels").labels

    def inputs(self, sentences):
        """The model's inputs for lists of words: ids (and characters)."""
        ids = self.vocabulary.encode(sentences)
        if self.characters is None:
            return ids
        return ids, self.characters.encode(sentences, width=ids.shape[1])

    def tag_ids(self, inputs):
        """The best tag column per token (0 on padding): the argmax of the
        softmax, or the CRF's Viterbi path (never the padding column)."""
        ids = inputs[0] if isinstance(inputs, tuple) else inputs
        outputs = training.predict(self.model, inputs)
        if self.crf is None:
            return (outputs[..., 1:].argmax(axis=-1) + 1) * (ids > 0)
        outputs[..., 0] = -1e9
        path = self.crf.decode(outputs, ids > 0)
        return keras.ops.convert_to_numpy(path)

    def predict(self, sentences, batch_size=64):
        """Tags for lists of words, batched by length (little padding)."""
        order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))
        result = [None] * len(sentences)
        for start in range(0, len(order), batch_size):
            batch = order[start : start + batch_size]
            columns = self.tag_ids(self.inputs([sentences[i] for i in batch]))
            for i, row in zip(batch, columns):
                result[i] = [self.labels[j] for j in row[: len(sentences[i])]]
        return result

    def tag(self, sentences):
        """`[[(word, tag), ...], ...]`, one list per sentence.

        A sentence is a list of words (used as they are) or a raw string,
        split into words and punctuation by `zoo.text.tokenize` with
        `split_punctuation=True` (`"Pass the butter!"` -> `Pass`, `the`,
        `butter`, `!`), as the training corpora are tokenised.
        """
        _check_list("sentences", sentences)
        words = [
            zoo.text.tokenize(s, lowercase=False, split_punctuation=True)
            if isinstance(s, str)
            else list(s)
            for s in sentences
        ]
        return [list(zip(w, t)) for w, t in zip(words, self.predict(words))]


class Classifier:
    """Classifies raw strings with a classifier that a run saved.

    `Classifier(model)` for a loaded `model.keras`, or
    `recipes.classification.load(OUTPUT)`.
    """

    def __init__(self, model, max_length=None):
        self.model = model
        self.vocabulary = model.get_layer("vocabulary")
        self.characters = models.optional_layer(model, "characters")
        self.labels = model.get_layer("labels")
        self.max_length = max_length

    def inputs(self, texts):
        """The model's inputs for raw strings: ids (and, for a classifier
        on a pretrained biLM, each word's characters, case kept)."""
        ids = self.vocabulary.encode(texts, self.max_length)
        if self.characters is None:
            return ids
        words = [
            words_of(self.vocabulary, text)[: ids.shape[1]] for text in texts
        ]
        return ids, self.characters.encode(words, width=ids.shape[1])

    def probabilities(self, texts, batch_size=64):
        """`(len(texts), classes)` probabilities."""
        rows = []
        for start in range(0, len(texts), batch_size):
            inputs = self.inputs(texts[start : start + batch_size])
            rows.append(training.predict(self.model, inputs))
        return np.concatenate(rows) if rows else np.zeros((0, 0))

    def classify(self, texts):
        """`[(label, probability), ...]`, one pair per raw string."""
        _check_list("texts", texts)
        probabilities = self.probabilities(list(texts))
        names = self.labels.decode(probabilities)
        return [(str(n), float(p.max())) for n, p in zip(names, probabilities)]


class Transcriber:
    """Words -> phonemes with a trained model, greedy or beam search."""

    def __init__(self, model, vocab, config):
        self.vocab = vocab
        self.max_word_length = config.max_word_length
        options = dict(
            start_id=cmudict.START,
            end_id=cmudict.END,
            max_length=config.max_output_length,
        )
        self.greedy = zoo.seq2seq.compiled_decoder(model, "greedy", **options)
        self.beam = zoo.seq2seq.compiled_decoder(
            model,
            "beam",
            beam_width=config.beam_width,
            length_penalty=config.length_penalty,
            **options,
        )

    def transcribe(self, words, method="beam", batch_size=256):
        """`[[phoneme, ...], ...]`, one list per word, in `words`' order
        (an empty word gives an empty list)."""
        _check_list("words", words)
        check_method(method)
        decode = self.beam if method == "beam" else self.greedy
        long = [w for w in words if len(w) > self.max_word_length]
        if long:
            warnings.warn(
                f"{len(long)} word(s) longer than --max-word-length "
                f"{self.max_word_length} were cut (e.g. {long[0]!r})",
                stacklevel=2,
            )
        result = {}
        todo = [w for w in dict.fromkeys(words) if w]
        result.update({w: [] for w in words if not w})
        todo.sort(key=len)
        for start in range(0, len(todo), batch_size):
            batch = todo[start : start + batch_size]
            ids = [
                self.vocab.encode_word(w[: self.max_word_length]) for w in batch
            ]
            # A few fixed widths, so the compiled decoder rarely retraces.
            decoded, _ = decode(pipeline.pad(ids, multiple=8))
            decoded = keras.ops.convert_to_numpy(decoded)
            for word, row in zip(batch, decoded):
                result[word] = self.vocab.decode_phones(row)
        return [list(result[w]) for w in words]

    __call__ = transcribe


def check_method(method):
    """A `Transcriber`'s decoding: 'beam' or 'greedy'."""
    if method not in ("beam", "greedy"):
        raise ValueError(
            f"`method` must be 'beam' or 'greedy'; received {method!r}."
        )


def words_of(vocabulary, text):
    """`text`'s words as `vocabulary` (a `zoo.layers.TokenVocabulary`)
    splits it, one per id, in their own case: what a classifier on a
    pretrained biLM spells."""
    return zoo.text.tokenize(
        text, lowercase=False, strip_punctuation=vocabulary.strip_punctuation
    )


def _check_list(name, values):
    """Refuse a plain string where a list of inputs is expected."""
    if isinstance(values, (str, bytes)):
        raise TypeError(
            f"`{name}` must be a list (one item per input); received a "
            f"single string {values[:40]!r}. Wrap it in a list."
        )
