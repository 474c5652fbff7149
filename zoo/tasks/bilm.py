"""`BiLM`: the ELMo-style bidirectional language model as a task model."""

import keras
import numpy as np

from zoo import inference
from zoo import language_model
from zoo import text as text_lib
from zoo._package import PACKAGE
from zoo.tasks.tagger import checked_words
from zoo.tasks.task import Task
from zoo.tasks.task import check_list

# What a preset records the outputs of (`BiLM.fixed_outputs`).
CHECK_SENTENCE = "The keys to the cabinet are on the table ."


@keras.saving.register_keras_serializable(package=PACKAGE)
class BiLM(Task, keras.Model):
    """A bidirectional language model over words spelled in characters:
    `zoo.language_model.bidirectional_language_model` as a task model.

    Its inputs are a sentence's word ids (the targets) and character ids
    (what it reads); its output, per word and direction, the negative
    log-likelihood of the next (forward) and previous (backward) word.
    Layers: `vocabulary`, `characters`, `bilm` (the
    `zoo.layers.BiLMEncoder`), `targets` and `softmax`.

    On raw text (`embed`, `__call__`, `predict`) it returns ELMo's
    features: each layer of the encoder for each word, to mix as a task
    likes; `contextual_embedding()` is the learned mix as a layer for any
    model, `perplexity` and `next_words` score and continue text.

    Example:
    ```python
    bilm = zoo.tasks.BiLM.from_preset("en_bilm")
    bilm.perplexity(["The cat sat on the mat ."])
    features = bilm(["The cat sat on the mat ."])   # [(7, 3, 512)]
    elmo = bilm.contextual_embedding()  # a layer: character ids in
    ```
    """

    preset_kind = "language_model"

    @classmethod
    def create(cls, vocabulary, characters, **kwargs):
        """`zoo.language_model.bidirectional_language_model(vocabulary,
        characters, **kwargs)` as a `BiLM`."""
        return cls.from_network(
            language_model.bidirectional_language_model(
                vocabulary, characters, **kwargs
            )
        )

    def check_network(self):
        language_model.encoder_of(self)  # names what it lacks

    @property
    def encoder(self):
        """The `zoo.layers.BiLMEncoder`."""
        return language_model.encoder_of(self)

    @property
    def vocabulary(self):
        """The `zoo.layers.TokenVocabulary` of the predicted words."""
        return self.get_layer("vocabulary")

    @property
    def characters(self):
        """The `zoo.layers.CharacterVocabulary` of what it reads."""
        return self.get_layer("characters")

    def contextual_embedding(self, **kwargs):
        """A `zoo.layers.ContextualEmbedding` on this model's encoder
        (`zoo.language_model.contextual_embedding`'s arguments)."""
        return language_model.contextual_embedding(self, **kwargs)

    @staticmethod
    def split(sentences):
        """Lists of words: a raw string split into words and punctuation
        (`zoo.text.tokenize`, case kept), a list of words as it is; any
        other item (None, a number, a word that is not a string) is
        refused in one line naming it."""
        check_list("sentences", sentences, "a list of sentences")
        return [_words(s, f"sentences[{i}]") for i, s in enumerate(sentences)]

    def encode(self, sentences):
        """`(word ids, character ids)` for lists of words."""
        ids = self.vocabulary.encode(sentences)
        return ids, self.characters.encode(sentences, width=ids.shape[1])

    def nll(self, sentences):
        """Per sentence, a `(words, 2)` array: each word's forward and
        backward negative log-likelihood (nats, exact softmax)."""
        words = self.split(sentences)
        if not words:
            return []
        outputs = self.infer(self.encode(words))
        return [outputs[i, : len(w)] for i, w in enumerate(words)]

    def perplexity(self, sentences):
        """`{"forward": ..., "backward": ...}`: `exp` of the mean negative
        log-likelihood per word over `sentences` (`</s>` and `<s>`
        included, unknown words as `[UNK]`)."""
        rows = [row for row in self.nll(sentences) if len(row)]
        if not rows:
            raise ValueError("`sentences` hold no words to score.")
        mean = np.concatenate(rows).mean(axis=0)
        return {
            "forward": float(np.exp(mean[0])),
            "backward": float(np.exp(mean[1])),
        }

    def layers_of(self, sentences):
        """Per sentence, a `(words, layers, 2 * units)` array of the
        encoder's layers (the characters' projection first)."""
        words = self.split(sentences)
        if not words:
            return []
        _, chars = self.encode(words)
        run = self.cached_function("encoder", lambda: _encoder_function(self))
        layers = np.stack(run(chars), axis=2)
        return [layers[i, : len(w)] for i, w in enumerate(words)]

    embed = layers_of

    def next_words(self, sentence):
        """`["word -> most likely next word", ...]` after each prefix of
        one sentence (a raw string or a list of words), by the forward
        direction (exact softmax)."""
        words = _words(sentence, "sentence")
        layers = self.layers_of([words])[0]
        top = layers[:, -1, : self.encoder.units]
        softmax = self.get_layer("softmax")
        kernel = keras.ops.convert_to_numpy(softmax.kernel)
        bias = keras.ops.convert_to_numpy(softmax.bias)
        logits = top @ kernel.T + bias
        logits[:, :2] = -np.inf  # neither padding nor [UNK]
        tokens = self.vocabulary.get_vocabulary()
        return [
            f"{w} -> {tokens[int(i)]}"
            for w, i in zip(words, logits.argmax(axis=1))
        ]

    def run_text(self, inputs, batch_size=None):
        if isinstance(inputs, str):
            return self.layers_of([inputs])[0]
        return self.layers_of(inputs)

    def fixed_outputs(self, sentence=CHECK_SENTENCE):
        """`sentence`'s negative log-likelihood per word and direction
        (exact softmax, rounded to 4 places) and `next_words`."""
        words = sentence.split()
        nll = self.nll([words])[0]
        return {
            "sentence": sentence,
            "forward_nll": [round(float(x), 4) for x in nll[:, 0]],
            "backward_nll": [round(float(x), 4) for x in nll[:, 1]],
            "next_words": self.next_words(words),
        }


def _words(sentence, name):
    """One sentence's words: a raw string split into words and
    punctuation (case kept), or a list or tuple of words (`checked_words`:
    a `TypeError` naming `name` for anything else)."""
    if isinstance(sentence, str):
        return text_lib.tokenize(
            sentence, lowercase=False, split_punctuation=True
        )
    return checked_words(sentence, name)


def _encoder_function(model):
    """`chars -> [layer, ...]` (NumPy), the encoder compiled for the
    backend (`zoo.inference.compile_function`)."""
    encoder = model.encoder
    compiled = inference.compile_function(
        model, lambda chars: encoder(chars, training=False)
    )

    def run(chars):
        return [keras.ops.convert_to_numpy(x) for x in compiled(chars)]

    return run
