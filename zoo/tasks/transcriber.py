"""`Transcriber`: a sequence-to-sequence model from symbols to symbols
(letters to phonemes) that reads and writes them as strings."""

import warnings

import keras

from zoo import engine
from zoo import inference
from zoo import validation as v
from zoo._package import PACKAGE
from zoo.seq2seq import Seq2Seq
from zoo.seq2seq import compiled_decoder
from zoo.seq2seq.decoding import METHODS
from zoo.tasks import preprocessors
from zoo.tasks.preprocessors import END
from zoo.tasks.preprocessors import PAD
from zoo.tasks.preprocessors import START
from zoo.tasks.task import Task
from zoo.tasks.task import check_list

# What a preset records the outputs of (`Transcriber.fixed_outputs`).
CHECK_WORDS = ("keras", "zoogle", "tensorflow", "blorptastic", "snuffleupagus")
# The decoding settings: the config keys and their defaults.
DECODING = {
    "beam_width": 5,
    "length_penalty": 1.0,
    "max_source_length": 32,
    "max_target_length": 40,
}


def check_method(method):
    """A transcriber's decoding: 'beam' or 'greedy'."""
    if method not in METHODS:
        raise ValueError(
            f"`method` must be 'beam' or 'greedy'; received {method!r}."
        )


def _backbone(backbone, preprocessor):
    """`backbone` if it is a `zoo.Seq2Seq` whose vocabularies are the
    preprocessor's; else a `TypeError` or `ValueError` naming it."""
    if isinstance(backbone, dict):
        backbone = keras.saving.deserialize_keras_object(backbone)
    if not isinstance(backbone, Seq2Seq):
        raise TypeError(
            "`backbone` must be a zoo.Seq2Seq; received "
            f"{type(backbone).__name__}."
        )
    sizes = {
        "source_vocabulary_size": preprocessor.source_vocabulary_size,
        "target_vocabulary_size": preprocessor.target_vocabulary_size,
    }
    for key, size in sizes.items():
        given = getattr(backbone, key)
        if given != size:
            raise ValueError(
                f"`backbone`'s {key}={given!r} does not match the "
                f"preprocessor's symbols ({size}, the special ids "
                "included)."
            )
    return backbone


@keras.saving.register_keras_serializable(package=PACKAGE)
class Transcriber(Task, keras.Model):
    """Transcribes words into symbols (letters into phonemes): a
    `zoo.Seq2Seq` backbone, the preprocessor of its two symbol
    inventories, and the decoding settings, all in its config, so a
    preset or a `.keras` file transcribes raw words with no other file.

    Args:
        backbone: a `zoo.Seq2Seq` whose vocabulary sizes are the
            preprocessor's (its weights are the transcriber's).
        preprocessor: a `zoo.tasks.TranscriberPreprocessor` (the source
            and target symbols; see it for the ids).
        beam_width, length_penalty: beam search's settings (None: the
            class's `decoding_defaults`, `DECODING`'s, as for the next two).
        max_source_length: longer words are cut (with a warning).
        max_target_length: decoding stops after this many symbols.
        name: the model's name.

    Example:
    ```python
    g2p = zoo.tasks.Transcriber.from_preset("g2p_en_cmudict")
    g2p.transcribe(["keras"])           # [['K', 'EH1', 'R', 'AH0', 'S']]
    g2p(["keras"], method="greedy")     # raw words: the same

    preprocessor = zoo.tasks.TranscriberPreprocessor(letters, phonemes)
    seq2seq = zoo.Seq2Seq(len(letters) + 2, len(phonemes) + 4)
    g2p = zoo.tasks.Transcriber(seq2seq, preprocessor, beam_width=3)
    ```
    """

    preset_kind = "seq2seq"
    preprocessor_class = preprocessors.TranscriberPreprocessor
    # The decoding settings an argument left None takes.
    decoding_defaults = DECODING

    def __init__(
        self,
        backbone,
        preprocessor,
        *,
        beam_width=None,
        length_penalty=None,
        max_source_length=None,
        max_target_length=None,
        name=None,
        **kwargs,
    ):
        kwargs.pop("dtype", None)
        super().__init__(name=name, **kwargs)
        preprocessor = self.checked_preprocessor(preprocessor)
        self.set_parts(_backbone(backbone, preprocessor), preprocessor)
        # Built with its backbone (a `zoo.Seq2Seq` builds its layers).
        self.built = self.backbone.built
        given = {
            "beam_width": beam_width,
            "length_penalty": length_penalty,
            "max_source_length": max_source_length,
            "max_target_length": max_target_length,
        }
        self.configure(
            **{
                key: self.decoding_defaults[key] if value is None else value
                for key, value in given.items()
            }
        )

    def call(self, inputs, training=None):
        """The backbone's teacher-forced outputs (`zoo.Seq2Seq.call`)."""
        return self.backbone(inputs, training=training)

    def configure(self, **kwargs):
        """Sets the decoding settings (`DECODING`'s keys) after loading:
        `Transcriber.from_preset(name, beam_width=1)`."""
        for key, value in kwargs.items():
            if key not in DECODING:
                raise TypeError(
                    f"{type(self).__name__} takes no option {key!r}; "
                    f"decoding options: {', '.join(DECODING)}"
                )
            if key == "length_penalty":
                value = v.check_number(key, value, float, 0, 5)
            else:
                value = v.check_positive_int(key, value)
            object.__setattr__(self, key, value)
        object.__setattr__(self, "_zoo_compiled", {})  # new settings
        return self

    @classmethod
    def from_seq2seq(cls, model, *symbols, **decoding):
        """A transcriber on `model` (a trained `zoo.Seq2Seq`, its weights
        shared) with a preprocessor of `symbols` (the
        `preprocessor_class`'s arguments) and decoding settings."""
        return cls(model, cls.preprocessor_class(*symbols), **decoding)

    @property
    def source_symbols(self):
        """The preprocessor's source symbols."""
        return self.preprocessor.source_symbols

    @property
    def target_symbols(self):
        """The preprocessor's target symbols."""
        return self.preprocessor.target_symbols

    def decode_ids(self, ids):
        """The target symbols (or text) of ids, up to the end id."""
        return self.preprocessor.decode_ids(ids)

    def decoder(self, method="beam"):
        """`source ids -> (ids, scores)` with this model's settings, made
        once per method, by the model's `runner`: `zoo.engine.decoder`
        (NumPy, no compilation, made again after a weight changes) or the
        backend's compiled decoder (`zoo.seq2seq.compiled_decoder`)."""
        check_method(method)
        if self.runner == "numpy":
            return self.numpy_decoder(method)
        return self.cached_function(
            method,
            lambda: compiled_decoder(
                self.backbone, method, **self._options(method)
            ),
        )

    def numpy_decoder(self, method):
        """`zoo.engine.decoder` of the current weights, for `method`."""
        return self.fresh_function(
            f"engine-{method}",
            lambda: engine.decoder(
                self.backbone, method, **self._options(method)
            ),
        )

    def numpy_check(self):
        self.numpy_decoder("greedy")

    def numpy_function(self):
        """The NumPy runner's teacher-forced forward pass of the backbone
        (current weights)."""
        return self.fresh_function(
            "engine", lambda: engine.function(self.backbone)
        )

    def _id_checks(self):
        return inference.id_checks(self.backbone)

    def _options(self, method):
        options = dict(
            start_id=START, end_id=END, max_length=self.max_target_length
        )
        if method == "beam":
            options.update(
                beam_width=self.beam_width, length_penalty=self.length_penalty
            )
        return options

    def source_ids(self, item):
        """An input's source ids, cut to `max_source_length` (a word:
        its letters' ids)."""
        return self.preprocessor.source_ids(item)[: self.max_source_length]

    def source_length(self, item):
        """An input's length in the units `max_source_length` counts."""
        return self.preprocessor.source_length(item)

    def source_batch(self, words):
        """Padded source ids (width a multiple of 8, so the compiled
        decoder rarely retraces), each input cut to `max_source_length`."""
        ids = [self.source_ids(w) for w in words]
        width = -(-max((len(i) for i in ids), default=1) // 8) * 8
        return keras.utils.pad_sequences(
            ids, maxlen=max(width, 8), padding="post", value=PAD
        ).astype("int32")

    def check_inputs(self, name, items, what, method):
        """Refuses anything but a list of strings or an unknown method;
        warns once about inputs longer than `max_source_length`."""
        check_list(name, items, what)
        check_method(method)
        bad = [w for w in items if not isinstance(w, str)]
        if bad:
            raise TypeError(
                f"`{name}` must hold strings; received "
                f"{type(bad[0]).__name__} {bad[0]!r} among them."
            )
        long = [
            w for w in items if self.source_length(w) > self.max_source_length
        ]
        if long:
            warnings.warn(
                f"{len(long)} input(s) longer than max_source_length="
                f"{self.max_source_length} were cut (e.g. {long[0][:40]!r})",
                stacklevel=3,
            )

    def decoded_ids(self, items, method="beam", batch_size=256):
        """`{item: decoded ids}` for each distinct non-empty item, decoded
        in batches of similar lengths (the same item once)."""
        decode = self.decoder(method)
        todo = sorted((w for w in dict.fromkeys(items) if w), key=len)
        found = {}
        for start in range(0, len(todo), batch_size):
            batch = todo[start : start + batch_size]
            decoded, _ = decode(self.source_batch(batch))
            decoded = keras.ops.convert_to_numpy(decoded)
            found.update(zip(batch, decoded))
        return found

    def transcribe(self, words, method="beam", batch_size=256):
        """`[[symbol, ...], ...]`, one list per word, in `words`' order
        (an empty word gives an empty list); the same word is decoded
        once."""
        self.check_inputs("words", words, "a list of words", method)
        found = self.decoded_ids(words, method, batch_size)
        result = {w: self.decode_ids(row) for w, row in found.items()}
        return [list(result.get(w, [])) for w in words]

    def run_text(self, inputs, method="beam", batch_size=256):
        if isinstance(inputs, str):
            return self.transcribe([inputs], method, batch_size)[0]
        return self.transcribe(inputs, method, batch_size)

    def predict(self, x, *args, **kwargs):
        if isinstance(x, (list, tuple)) and x and isinstance(x[0], str):
            return self.transcribe(list(x), **kwargs)
        return super().predict(x, *args, **kwargs)

    def fixed_outputs(self, words=CHECK_WORDS):
        """`words`' symbols, greedy and with beam search, and the best
        beam's score per word, rounded to 4 places."""
        _, scores = self.decoder("beam")(self.source_batch(words))
        scores = keras.ops.convert_to_numpy(scores).reshape(len(words), -1)
        return {
            "words": list(words),
            "greedy": [
                " ".join(p) for p in self.transcribe(list(words), "greedy")
            ],
            "beam": [" ".join(p) for p in self.transcribe(list(words))],
            "beam_scores": [round(float(x), 4) for x in scores[:, 0]],
        }

    def head_config(self):
        return {key: getattr(self, key) for key in DECODING}


__all__ = ["Transcriber", "check_method"]
