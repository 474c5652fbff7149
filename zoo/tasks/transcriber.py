"""`Transcriber`: a sequence-to-sequence model from symbols to symbols
(letters to phonemes) that reads and writes them as strings."""

import copy
import warnings

import keras

from zoo import engine
from zoo import presets
from zoo import validation as v
from zoo._package import PACKAGE
from zoo.seq2seq import Seq2Seq
from zoo.seq2seq import compiled_decoder
from zoo.seq2seq.decoding import METHODS
from zoo.subwords import content_ids
from zoo.tasks.task import Task
from zoo.tasks.task import check_list

# The ids a transcriber reserves: 0 padding, 1 an unknown symbol, and on
# the target side 2 and 3 start and end.
PAD, UNKNOWN, START, END = 0, 1, 2, 3
SOURCE_SPECIALS = ("<pad>", "<unk>")
TARGET_SPECIALS = ("<pad>", "<unk>", "<s>", "</s>")
# What a preset records the outputs of (`Transcriber.fixed_outputs`).
CHECK_WORDS = ("keras", "zoogle", "tensorflow", "blorptastic", "snuffleupagus")
# The decoding settings: the config keys and their defaults.
DECODING = {
    "beam_width": 5,
    "length_penalty": 1.0,
    "max_source_length": 32,
    "max_target_length": 40,
}
# A first-format preset's decoding settings: its recipe config's names.
_LEGACY_DECODING = {
    "beam_width": "beam_width",
    "length_penalty": "length_penalty",
    "max_source_length": "max_word_length",
    "max_target_length": "max_output_length",
}
_LEGACY_VOCABULARY = "vocab.json"


def _symbols(name, values):
    values = list(values)
    bad = [s for s in values if not isinstance(s, str) or not s]
    if not values or bad or len(set(values)) != len(values):
        raise ValueError(
            f"`{name}` must be distinct non-empty strings, at least one; "
            f"received {(bad or values)[:3]!r} among {len(values)}."
        )
    return values


def check_method(method):
    """A transcriber's decoding: 'beam' or 'greedy'."""
    if method not in METHODS:
        raise ValueError(
            f"`method` must be 'beam' or 'greedy'; received {method!r}."
        )


@keras.saving.register_keras_serializable(package=PACKAGE)
class Transcriber(Task, Seq2Seq):
    """Transcribes words into symbols (letters into phonemes): a
    `zoo.Seq2Seq` that keeps its two symbol inventories and its decoding
    settings in its config, so a preset or a `.keras` file transcribes
    raw words with no other file.

    Ids: source `0` padding, `1` an unknown symbol, `i + 2` is
    `source_symbols[i]`; target `0` padding, `1` unknown, `2` start, `3`
    end, `i + 4` is `target_symbols[i]`.

    Args:
        source_symbols: the symbols read (one-character strings: letters).
        target_symbols: the symbols written (phonemes).
        beam_width, length_penalty: beam search's settings.
        max_source_length: longer words are cut (with a warning).
        max_target_length: decoding stops after this many symbols.
        **kwargs: `zoo.Seq2Seq`'s arguments (`embedding_dim`, `encoder`,
            `decoder`, `bridge`, `attention`, ...), its vocabulary sizes
            excepted (they follow from the symbols).

    Example:
    ```python
    g2p = zoo.tasks.Transcriber.from_preset("g2p_en_cmudict")
    g2p.transcribe(["keras"])           # [['K', 'EH1', 'R', 'AH0', 'S']]
    g2p(["keras"], method="greedy")     # raw words: the same
    ```
    """

    preset_kind = "seq2seq"

    def __init__(
        self,
        source_symbols,
        target_symbols,
        *,
        beam_width=DECODING["beam_width"],
        length_penalty=DECODING["length_penalty"],
        max_source_length=DECODING["max_source_length"],
        max_target_length=DECODING["max_target_length"],
        **kwargs,
    ):
        source_symbols = _symbols("source_symbols", source_symbols)
        target_symbols = _symbols("target_symbols", target_symbols)
        sizes = {
            "source_vocabulary_size": len(source_symbols) + 2,
            "target_vocabulary_size": len(target_symbols) + 4,
        }
        for key, size in sizes.items():
            given = kwargs.pop(key, size)
            if given != size:
                raise ValueError(
                    f"`{key}`={given!r} does not match the symbols "
                    f"({size}, the special ids included)."
                )
        super().__init__(*sizes.values(), **kwargs)
        # Plain, untracked lists: config, not state.
        object.__setattr__(self, "source_symbols", source_symbols)
        object.__setattr__(self, "target_symbols", target_symbols)
        self.configure(
            beam_width=beam_width,
            length_penalty=length_penalty,
            max_source_length=max_source_length,
            max_target_length=max_target_length,
        )
        object.__setattr__(
            self,
            "_source_ids",
            {s: i + 2 for i, s in enumerate(source_symbols)},
        )

    def configure(self, **kwargs):
        """Sets the decoding settings (`DECODING`'s keys) after loading:
        `Transcriber.from_preset(name, beam_width=1)`."""
        for key, value in kwargs.items():
            if key not in DECODING:
                raise TypeError(
                    f"Transcriber takes no option {key!r}; decoding "
                    f"options: {', '.join(DECODING)}"
                )
            if key == "length_penalty":
                value = v.check_number(key, value, float, 0, 5)
            else:
                value = v.check_positive_int(key, value)
            object.__setattr__(self, key, value)
        object.__setattr__(self, "_zoo_compiled", {})  # new settings
        return self

    @classmethod
    def from_seq2seq(cls, model, source_symbols, target_symbols, **decoding):
        """A `Transcriber` with `model`'s (a `zoo.Seq2Seq`) architecture
        and weights and the given symbols and decoding settings."""
        config = copy.deepcopy(model.get_config())
        config.pop("trainable", None)
        transcriber = cls(source_symbols, target_symbols, **decoding, **config)
        transcriber.set_weights(model.get_weights())
        return transcriber

    @classmethod
    def load_preset_folder(cls, folder, found, preset):
        """A preset's transcriber; a first-format one (a `zoo.Seq2Seq`
        config, `assets/vocab.json` and the recipe's decoding settings
        in its metadata) is converted."""
        model = presets.build_from_config(folder, preset)
        presets.load_weights(model, folder, preset)
        if isinstance(model, cls):
            return model
        if not isinstance(model, Seq2Seq):
            raise presets.PresetError(
                f"preset {preset}: its config is a {type(model).__name__}, "
                "not a zoo.Seq2Seq"
            )
        vocab = presets.read_json(
            folder, f"{presets.ASSETS_DIR}/{_LEGACY_VOCABULARY}", preset
        )
        settings = found.get("config", {})
        decoding = {
            key: settings[old]
            for key, old in _LEGACY_DECODING.items()
            if old in settings
        }
        return cls.from_seq2seq(
            model, vocab["letters"], vocab["phonemes"], **decoding
        )

    def encode_word(self, word):
        """A word's source ids (an unseen symbol: 1)."""
        return [self._source_ids.get(c, UNKNOWN) for c in word]

    def decode_ids(self, ids):
        """The target symbols of ids, up to the end id (or padding)."""
        return [
            self.target_symbols[i - len(TARGET_SPECIALS)]
            for i in content_ids(ids)
        ]

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
            lambda: compiled_decoder(self, method, **self._options(method)),
        )

    def numpy_decoder(self, method):
        """`zoo.engine.decoder` of the current weights, for `method`."""
        return self.fresh_function(
            f"engine-{method}",
            lambda: engine.decoder(self, method, **self._options(method)),
        )

    def numpy_check(self):
        self.numpy_decoder("greedy")

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
        return self.encode_word(item[: self.max_source_length])

    def source_length(self, item):
        """An input's length in the units `max_source_length` counts."""
        return len(item)

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

    def vocabulary_json(self):
        """`{"letters": ..., "phonemes": ...}`: the first format's
        `vocab.json`."""
        return {
            "letters": list(self.source_symbols),
            "phonemes": list(self.target_symbols),
        }

    def get_config(self):
        config = super().get_config()
        for key in ("source_vocabulary_size", "target_vocabulary_size"):
            config.pop(key)
        return {
            **config,
            "source_symbols": list(self.source_symbols),
            "target_symbols": list(self.target_symbols),
            **{key: getattr(self, key) for key in DECODING},
        }


__all__ = ["Transcriber", "check_method"]
