"""`Translator`: a stacked-RNN encoder-decoder from sentences to
sentences, reading and writing subword pieces (SentencePiece)."""

import keras

from zoo._package import PACKAGE
from zoo.subwords import START
from zoo.subwords import UNKNOWN
from zoo.subwords import content_ids
from zoo.tasks import preprocessors
from zoo.tasks.transcriber import Transcriber

# A translator's decoding defaults: pieces, not letters.
DECODING = {
    "beam_width": 5,
    "length_penalty": 1.0,
    "max_source_length": 128,
    "max_target_length": 160,
}
# What a preset records the outputs of (`Translator.fixed_outputs`).
CHECK_SENTENCES = (
    "En el principio creó Dios los cielos y la tierra.",
    "La casa es grande.",
)


@keras.saving.register_keras_serializable(package=PACKAGE)
class Translator(Transcriber):
    """Translates sentences: a `zoo.Seq2Seq` backbone over subword
    pieces, the preprocessor of both SentencePiece models
    (`zoo.tasks.TranslatorPreprocessor`) and the decoding settings, all
    in its config, so a preset or a `.keras` file translates raw text
    with no other file.

    Args:
        backbone: a `zoo.Seq2Seq` whose vocabulary sizes are the subword
            models' sizes.
        preprocessor: a `zoo.tasks.TranslatorPreprocessor`.
        beam_width, length_penalty: beam search's settings.
        max_source_length: longer sentences are cut to this many pieces
            (with a warning).
        max_target_length: decoding stops after this many pieces.
        name: the model's name.

    A decoding setting left None is `DECODING`'s (pieces, not letters).

    Example:
    ```python
    translator = zoo.tasks.Translator.from_preset("my_translator")
    translator.translate(["La casa es grande."])   # ['The house is big.']
    translator("La casa es grande.")               # the same, one string
    ```
    """

    preprocessor_class = preprocessors.TranslatorPreprocessor
    decoding_defaults = DECODING

    @property
    def source_subwords(self):
        """The source language's `zoo.subwords.Subwords`."""
        return self.preprocessor.source_subwords

    @property
    def target_subwords(self):
        """The target language's `zoo.subwords.Subwords`."""
        return self.preprocessor.target_subwords

    def translate(self, sentences, method="beam", batch_size=64):
        """`[translation, ...]`, one string per sentence, in order (an
        empty sentence gives an empty string; the same sentence is
        decoded once)."""
        self.check_inputs("sentences", sentences, "a list of sentences", method)
        found = self.decoded_ids(
            [s.strip() for s in sentences], method, batch_size
        )
        texts = dict(
            zip(found, self.target_subwords.decode(list(found.values())))
        )
        return [texts.get(s.strip(), "") for s in sentences]

    def transcribe(self, words, method="beam", batch_size=64):
        """`translate`: a translator transcribes sentences into text."""
        return self.translate(words, method, batch_size)

    def run_text(self, inputs, method="beam", batch_size=64):
        if isinstance(inputs, str):
            return self.translate([inputs], method, batch_size)[0]
        return self.translate(list(inputs), method, batch_size)

    def attention_map(self, sentence, translation=None):
        """Where the decoder looked while writing `translation` (default:
        this model's beam-search translation of `sentence`):
        `(source pieces, target pieces, weights)`, the weights a NumPy
        array `(target pieces + 1, source pieces)` (the last row: the end
        of the sentence). The source is cut as `translate` cuts it; the
        target pieces are those beam search chose (given a `translation`,
        its SentencePiece split)."""
        source = self.source_ids(sentence)
        if translation is None:
            # The pieces beam search chose (an unknown piece included),
            # not a re-encoding of their text, which may split otherwise.
            decoded = self.decoded_ids([sentence.strip()], "beam", 1)
            target = content_ids(
                decoded.get(sentence.strip(), []), keep=(UNKNOWN,)
            )
        else:
            target = self.target_subwords.encode([translation])[0]
        weights = self.backbone.attention_weights(
            keras.ops.convert_to_tensor([source], "int32"),
            keras.ops.convert_to_tensor([[START, *target]], "int32"),
        )
        weights = keras.ops.convert_to_numpy(weights)[0]
        pieces = self.source_subwords.pieces()
        out = self.target_subwords.pieces()
        return [pieces[i] for i in source], [out[i] for i in target], weights

    def fixed_outputs(self, words=CHECK_SENTENCES):
        """`words`' (sentences') translations, greedy and with beam
        search, and the best beam's score per sentence, rounded to 4
        places."""
        _, scores = self.decoder("beam")(self.source_batch(words))
        scores = keras.ops.convert_to_numpy(scores).reshape(len(words), -1)
        return {
            "sentences": list(words),
            "greedy": self.translate(list(words), "greedy"),
            "beam": self.translate(list(words)),
            "beam_scores": [round(float(x), 4) for x in scores[:, 0]],
        }


__all__ = ["Translator", "DECODING"]
