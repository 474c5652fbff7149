"""`Tagger`: a sequence tagger (POS, entities) that reads raw text."""

import keras

from zoo import engine
from zoo import heads
from zoo import text as text_lib
from zoo._package import PACKAGE
from zoo.tasks import preprocessors
from zoo.tasks.task import Task
from zoo.tasks.task import Words
from zoo.tasks.task import check_list
from zoo.tasks.task import length_batches


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


def best_tags(outputs, real, decode=None):
    """The best tag column per token, 0 where `real` is False: the argmax
    of the probabilities `outputs` (column 0, the padding, never), or,
    with `decode` (a CRF's Viterbi: `(emissions, mask) -> tags`), its
    path over the emission scores `outputs` with column 0 ruled out."""
    if decode is None:
        return (outputs[..., 1:].argmax(axis=-1) + 1) * real
    outputs[..., 0] = -1e9
    return decode(outputs, real)


# `SentenceTagging.views` made, by conventions' name and labels.
_VIEWS = {}


class SentenceTagging:
    """What a `Tagger` and a `zoo.tasks.TaggerEnsemble` share: tags for
    lists of words (`predict_tags`) and for raw text (`tag`), in any of
    the views of the tags the training corpus's conventions offer
    (`tagsets`), from a class's `labels`, `text_conventions()` and
    `batch_tag_ids(sentences)`."""

    def tagsets(self):
        """The `tagset` values `tag` takes: None (the tags as trained),
        and the views the training corpus's conventions offer for these
        labels (`zoo.tasks.conventions.Conventions.tagsets`: with
        `"en_ud"`, UD's 17 tags, `"universal"`, and `"ptb"` where the
        tagger was trained on Penn Treebank tags too)."""
        return tuple(self.views())

    def views(self):
        """`{tagset: [tag of each output column]}` for each of
        `tagsets()` (column 0, the padding, as it is); made once per
        labels and conventions."""
        conventions = self.text_conventions()
        key = (conventions and conventions.name, tuple(self.labels))
        if key not in _VIEWS:
            _VIEWS[key] = (
                {None: list(self.labels)}
                if conventions is None
                else conventions.views(list(self.labels))
            )
        return _VIEWS[key]

    def _view(self, tagset):
        """The tag of each output column in `tagset`'s view, or a
        `ValueError` naming the views this tagger has."""
        views = self.views()
        if tagset not in views:
            raise ValueError(
                f"`tagset` must be one of {list(views)} for the tagger "
                f"{getattr(self, 'name', type(self).__name__)!r}; "
                f"received {tagset!r}."
            )
        return views[tagset]

    def predict_tags(self, sentences, batch_size=64):
        """The labels as trained (`labels`: a joined label `PRON|PRP$` as
        it is; `tag` answers in views of them) for lists of words,
        batched by length (little padding), at most `batch_size`
        sentences and `batch_size * PADDED_WORDS` padded words a batch:
        a very long sentence goes alone, not padded into by 63 short
        ones (a 20,000-word line among them took 7 GB)."""
        labels = self.labels
        result = [None] * len(sentences)
        lengths = [len(s) for s in sentences]
        for batch in length_batches(lengths, batch_size):
            columns = self.batch_tag_ids([sentences[i] for i in batch])
            for i, row in zip(batch, columns):
                result[i] = [labels[j] for j in row[: len(sentences[i])]]
        return result

    def split(self, text):
        """Raw text as the training corpus splits it into words: its
        conventions' `split` (`"en_ud"`: UD English's tokens, `don't` ->
        `do` `n't`), else `zoo.text.tokenize` with
        `split_punctuation=True` (`"Pass the butter!"` -> `Pass`, `the`,
        `butter`, `!`; a URL, an e-mail address, a `@mention`, a
        `#hashtag` and an emoji stay whole)."""
        conventions = self.text_conventions()
        if conventions is not None and conventions.split is not None:
            return conventions.split(text)
        return text_lib.tokenize(text, lowercase=False, split_punctuation=True)

    def tag(self, sentences, batch_size=64, tagset=None):
        """`[[(word, tag), ...], ...]`, one list per sentence.

        A sentence is a list of words (used as they are) or a raw string,
        split into words as the training corpus splits them (`split`).
        Where the preprocessor names the training corpus's conventions
        (`zoo.tasks.conventions`; `"en_ud"` and `"en_brown"` for the
        shipped English taggers), the model reads each word in the
        corpus's spelling and what the corpus never shows takes its tag
        by rule (with `"en_brown"`: a URL, an address or an emoji `X`, a
        mention or hashtag `NOUN`, a number `NUM`). `tagset` picks the
        view of the tags (`tagsets()`: None, the tags as trained;
        `"universal"`, the 12 universal tags; `"ptb"`, Penn Treebank's,
        where the tagger has them); any other is refused, naming those
        it has. A word that is not a non-empty string is refused, naming
        it.
        """
        check_list("sentences", sentences, "a list of sentences")
        view = self._view(tagset)
        words = [
            self.split(s)
            if isinstance(s, str)
            else checked_words(s, f"sentences[{i}]")
            for i, s in enumerate(sentences)
        ]
        conventions = self.text_conventions()
        if conventions is None:
            tags = self.predict_tags(words, batch_size)
            return [list(zip(w, t)) for w, t in zip(words, tags)]
        # What the corpus never shows is read as what it does (a name, a
        # noun, a mark), so the words around it keep their context.
        forms = [conventions.forms(w) for w in words]
        tags = self.predict_tags(forms, batch_size)
        in_view = dict(zip(self.labels, view))
        tags = [
            [
                in_view.get(label, label)
                for label in (conventions.rule(x) or y for x, y in zip(w, t))
            ]
            for w, t in zip(words, tags)
        ]
        return [list(zip(w, t)) for w, t in zip(words, tags)]


@keras.saving.register_keras_serializable(package=PACKAGE)
class Tagger(SentenceTagging, Words, Task, keras.Model):
    """Tags each word of a sentence: a head (a softmax, or a CRF) over
    every timestep of a backbone, and the preprocessor that turns words
    into the backbone's inputs and output columns into tags.

    Args:
        backbone: a `zoo.Backbone` (or any functional Keras model) from
            token ids (and each word's character ids, and token
            features, where the preprocessor has them) to one vector per
            word.
        preprocessor: a `zoo.tasks.TaggerPreprocessor`: the vocabulary,
            the labels (column 0 the padding), the characters and token
            features where the backbone reads them, the corpus's
            conventions.
        head: `"softmax"` (per-word probabilities) or `"crf"` (emission
            scores and a `zoo.layers.CRF`, whose Viterbi path gives the
            tags; train with `tagger.crf.loss`).
        dropout: dropout before the output layer; `seed` its seed.
        name: the model's name.

    Example:
    ```python
    tagger = zoo.tasks.Tagger.from_preset("pos_en_universal")
    tagger.tag(["The cat sat on the mat ."])
    # [[('The', 'DET'), ('cat', 'NOUN'), ...]]
    tagger(["Time flies"])           # raw text: the same as `tag`

    backbone = zoo.Backbone("lstm", 2, 64, vocabulary_size=1000)
    preprocessor = zoo.tasks.TaggerPreprocessor(vocabulary, labels)
    tagger = zoo.tasks.Tagger(backbone, preprocessor, head="crf")
    ```
    """

    preset_kind = "tagger"
    preprocessor_class = preprocessors.TaggerPreprocessor

    def __init__(
        self,
        backbone,
        preprocessor,
        *,
        head="softmax",
        dropout=0.0,
        seed=None,
        name="tagger",
        **kwargs,
    ):
        kwargs.pop("dtype", None)
        preprocessor = self.checked_preprocessor(preprocessor)
        inputs, outputs, crf = heads.tagger_graph(
            backbone,
            len(preprocessor.labels),
            head=head,
            dropout=dropout,
            seed=seed,
            characters=preprocessor.characters is not None,
            token_features=preprocessor.token_features,
        )
        super().__init__(inputs, outputs, name=name, **kwargs)
        self.set_parts(backbone, preprocessor)
        object.__setattr__(self, "_crf", crf)
        self.set_head_config(head=head, dropout=dropout, seed=seed)

    @property
    def labels(self):
        """The tag of each output column (column 0 the padding)."""
        return self.preprocessor.labels

    @property
    def token_features(self):
        """The preprocessor's `zoo.layers.TokenFeatures` (word shape,
        gazetteer matches), or None for a tagger that reads none."""
        return self.preprocessor.token_features

    @property
    def crf(self):
        """The `zoo.layers.CRF`, or None for a softmax tagger."""
        return self._crf

    def text_conventions(self):
        """The training corpus's conventions, or None."""
        return self.preprocessor.text_conventions()

    def encode(self, sentences):
        """The model's inputs for lists of words: ids (and characters, and
        token features, where the tagger reads them)."""
        return self.preprocessor.encode(sentences)

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

    def run_text(self, inputs, batch_size=64, tagset=None):
        if isinstance(inputs, str):
            return self.tag([inputs], batch_size, tagset)[0]
        return self.tag(inputs, batch_size, tagset)

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
