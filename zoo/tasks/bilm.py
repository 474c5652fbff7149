"""`BiLM`: the ELMo-style bidirectional language model as a task model."""

import keras
import numpy as np

from zoo import inference
from zoo import language_model
from zoo import text as text_lib
from zoo._package import PACKAGE
from zoo.layers.bilm import BiLMEncoder
from zoo.tasks import preprocessors
from zoo.tasks.tagger import checked_words
from zoo.tasks.task import Task
from zoo.tasks.task import Words
from zoo.tasks.task import check_list

# What a preset records the outputs of (`BiLM.fixed_outputs`).
CHECK_SENTENCE = "The keys to the cabinet are on the table ."


@keras.saving.register_keras_serializable(package=PACKAGE)
class BiLM(Words, Task, keras.Model):
    """A bidirectional language model over words spelled in characters
    (ELMo): a `zoo.layers.BiLMEncoder` backbone (characters to each
    layer's states, both directions), a softmax head over the words, and
    the preprocessor of its words and characters.

    Its inputs are a sentence's word ids (the targets) and character ids
    (what it reads); its output, per word and direction, the negative
    log-likelihood of the next (forward) and previous (backward) word
    (`zoo.language_model.bilm_graph`).

    On raw text (`embed`, `__call__`, `predict`) it returns ELMo's
    features: each layer of the encoder for each word, to mix as a task
    likes; `contextual_embedding()` is the learned mix as a layer for any
    model, `perplexity` and `next_words` score and continue text.

    Args:
        backbone: the `zoo.layers.BiLMEncoder`, its character vocabulary
            size the preprocessor's.
        preprocessor: a `zoo.tasks.BiLMPreprocessor` (the predicted
            words, holding `zoo.language_model.BOUNDARIES`, and the
            characters).
        dropout: before the softmax; `num_sampled`: the sampled softmax's
            negatives (0: the full softmax); `seed`: theirs.
        name: the model's name.

    Example:
    ```python
    bilm = zoo.tasks.BiLM.from_preset("en_bilm")
    bilm.perplexity(["The cat sat on the mat ."])
    features = bilm(["The cat sat on the mat ."])   # [(7, 3, 512)]
    elmo = bilm.contextual_embedding()  # a layer: character ids in
    ```
    """

    preset_kind = "language_model"
    preprocessor_class = preprocessors.BiLMPreprocessor

    def __init__(
        self,
        backbone,
        preprocessor,
        *,
        dropout=0.1,
        num_sampled=512,
        seed=None,
        name="bilm_model",
        **kwargs,
    ):
        kwargs.pop("dtype", None)
        preprocessor = self.checked_preprocessor(preprocessor)
        if isinstance(backbone, dict):
            backbone = keras.saving.deserialize_keras_object(backbone)
        size = preprocessor.characters.vocabulary_size
        if getattr(backbone, "char_vocabulary_size", size) != size:
            raise ValueError(
                "`backbone` reads "
                f"{backbone.char_vocabulary_size} character ids, the "
                f"preprocessor's characters are {size}."
            )
        inputs, nll, softmax = language_model.bilm_graph(
            backbone,
            preprocessor.vocabulary,
            dropout=dropout,
            num_sampled=num_sampled,
            seed=seed,
        )
        super().__init__(inputs, nll, name=name, **kwargs)
        self.set_parts(backbone, preprocessor)
        object.__setattr__(self, "_softmax", softmax)
        self.set_head_config(
            dropout=dropout, num_sampled=num_sampled, seed=seed
        )

    @classmethod
    def create(
        cls,
        vocabulary,
        characters,
        *,
        units=256,
        num_layers=2,
        char_embedding_dim=16,
        char_units=128,
        char_kernel_size=3,
        dropout=0.1,
        num_sampled=512,
        seed=None,
        name="bilm_model",
    ):
        """A new biLM on `vocabulary` (a `zoo.layers.TokenVocabulary`
        holding `zoo.language_model.BOUNDARIES`, its words by falling
        frequency) and `characters` (a `zoo.layers.CharacterVocabulary`):
        a `BiLMEncoder` of `units` wide layers, `num_layers` a
        direction, over a character convolution (`char_*`)."""
        language_model.check_vocabularies(vocabulary, characters)
        encoder = BiLMEncoder(
            characters.vocabulary_size,
            units,
            num_layers,
            char_embedding_dim=char_embedding_dim,
            char_units=char_units,
            char_kernel_size=char_kernel_size,
            dropout=dropout,
            seed=seed,
            name="bilm",
        )
        preprocessor = preprocessors.BiLMPreprocessor(vocabulary, characters)
        return cls(
            encoder,
            preprocessor,
            dropout=dropout,
            num_sampled=num_sampled,
            seed=seed,
            name=name,
        )

    @property
    def encoder(self):
        """The `zoo.layers.BiLMEncoder` (the backbone)."""
        return self.backbone

    @property
    def softmax(self):
        """The `zoo.layers.SampledSoftmax` over the words."""
        return self._softmax

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
        return self.preprocessor.encode(sentences)

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
        softmax = self.softmax
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
