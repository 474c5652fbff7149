"""`Subwords`: a SentencePiece model that travels inside a zoo model.

A translation model reads and writes subword pieces (Kudo & Richardson
2018): a vocabulary of a few thousand pieces covers every word of a
language, so there is no unknown word and no word-level softmax of a
hundred thousand rows. `Subwords` holds one trained SentencePiece model
(its serialized proto, a few hundred kilobytes) and turns text into ids
and ids back into text, in plain Python on every Keras backend.

Why not keras-hub's `SentencePieceTokenizer`: it runs through
`tensorflow-text`, so on JAX and PyTorch it needs TensorFlow installed
as well; the zoo's task models must run on each backend alone. The
segmentation itself is the `sentencepiece` package's (Google's
implementation, a wheel for every platform): nothing here re-implements
it.

Ids: `0` padding, `1` an unknown piece, `2` start, `3` end, then the
pieces: the layout of `zoo.tasks.Transcriber`'s target side, so a
translator's ids are SentencePiece's own with no table between them.
`Subwords.train` makes a model with exactly this layout; a model trained
elsewhere must have it too (`pad_id=0 unk_id=1 bos_id=2 eos_id=3`).

Example:
```python
pieces = zoo.subwords.Subwords.train(lines, vocabulary_size=8000)
pieces.encode(["La casa es grande."])     # [[412, 97, 23, 1290, 5]]
pieces.decode([[412, 97, 23, 1290, 5]])   # ['La casa es grande.']
zoo.subwords.Subwords(pieces.proto)       # the same model again
```
"""

import base64
import binascii
import io

from zoo import validation as v

PAD, UNKNOWN, START, END = 0, 1, 2, 3
SPECIALS = ("<pad>", "<unk>", "<s>", "</s>")


def content_ids(ids, keep=()):
    """What a decoded id sequence says: `ids` (ints) up to the first end
    or padding id, without the other special ids except those in `keep`.
    The one rule for `Subwords.decode`, `zoo.tasks.Transcriber` and the
    translator's attention map (the ids 0-3 mean the same in each)."""
    kept = []
    for i in ids:
        i = int(i)
        if i in (PAD, END):
            break
        if i >= len(SPECIALS) or i in keep:
            kept.append(i)
    return kept


MODEL_TYPES = ("unigram", "bpe")
INSTALL = (
    "zoo.subwords needs the `sentencepiece` package: pip install "
    "'stacked-rnn-zoo[translation]'"
)


def _sentencepiece():
    try:
        import sentencepiece
    except ImportError:
        raise ImportError(INSTALL) from None
    return sentencepiece


def _proto_bytes(name, proto):
    """`proto` (bytes, or the base64 text `Subwords.to_text` writes) as
    bytes."""
    if isinstance(proto, (bytes, bytearray)):
        return bytes(proto)
    if isinstance(proto, str):
        try:
            return base64.b64decode(proto.encode("ascii"), validate=True)
        except (binascii.Error, UnicodeEncodeError):
            raise ValueError(
                f"`{name}` must be a serialized SentencePiece model (bytes) "
                "or its base64 text; received a string that is not base64 "
                f"({proto[:20]!r}...)."
            ) from None
    raise TypeError(
        f"`{name}` must be a serialized SentencePiece model (bytes) or its "
        f"base64 text; received {type(proto).__name__}."
    )


class Subwords:
    """A trained SentencePiece model: text <-> piece ids.

    Args:
        proto: the serialized model (bytes, as `sentencepiece` writes a
            `.model` file) or its base64 text (`to_text`, what a saved
            zoo model keeps in its config).
        name: the argument's name in error messages.

    Raises:
        ValueError: not a SentencePiece model, or one whose special ids
            are not `0 <pad>, 1 <unk>, 2 <s>, 3 </s>`.
        ImportError: `sentencepiece` is not installed (naming the extra).
    """

    def __init__(self, proto, name="proto"):
        self.proto = _proto_bytes(name, proto)
        processor = _sentencepiece().SentencePieceProcessor()
        try:
            processor.LoadFromSerializedProto(self.proto)
        except (RuntimeError, OSError) as error:
            raise ValueError(
                f"`{name}` is not a SentencePiece model ({len(self.proto)} "
                f"bytes): {str(error).splitlines()[0]}"
            ) from None
        found = (
            processor.pad_id(),
            processor.unk_id(),
            processor.bos_id(),
            processor.eos_id(),
        )
        if found != (PAD, UNKNOWN, START, END):
            raise ValueError(
                f"`{name}`: a SentencePiece model with pad, unknown, start "
                f"and end ids {found}; expected (0, 1, 2, 3) (train it with "
                "pad_id=0 unk_id=1 bos_id=2 eos_id=3, as Subwords.train "
                "does)."
            )
        self._processor = processor

    @classmethod
    def train(
        cls,
        lines,
        vocabulary_size=8000,
        model_type="unigram",
        character_coverage=1.0,
        seed_sentences=None,
    ):
        """A new model learned from `lines` (an iterable of strings), with
        `vocabulary_size` pieces (specials included; fewer where the text
        has fewer) by SentencePiece's `unigram` or `bpe` algorithm. Text
        is NFKC-normalised (SentencePiece's `nmt_nfkc`); `seed_sentences`
        caps how many lines it learns from (default: all)."""
        v.check_positive_int("vocabulary_size", vocabulary_size)
        if vocabulary_size <= len(SPECIALS) + 1:
            raise ValueError(
                "`vocabulary_size` must leave room for pieces beside the "
                f"{len(SPECIALS)} special ids; received {vocabulary_size}."
            )
        if model_type not in MODEL_TYPES:
            raise ValueError(
                f"`model_type` must be one of {', '.join(MODEL_TYPES)}; "
                f"received {model_type!r}."
            )
        lines = [line for line in lines if line.strip()]
        if not lines:
            raise ValueError("`lines` holds no text to learn pieces from.")
        sentencepiece = _sentencepiece()
        written = io.BytesIO()
        options = dict(
            sentence_iterator=iter(lines),
            model_writer=written,
            vocab_size=vocabulary_size,
            model_type=model_type,
            character_coverage=character_coverage,
            pad_id=PAD,
            unk_id=UNKNOWN,
            bos_id=START,
            eos_id=END,
            hard_vocab_limit=False,
            minloglevel=2,
            num_threads=1,
        )
        if seed_sentences:
            options.update(
                input_sentence_size=seed_sentences, shuffle_input_sentence=True
            )
        try:
            sentencepiece.SentencePieceTrainer.train(**options)
        except RuntimeError as error:  # SentencePiece's refusals
            reason = " ".join(str(error).split())
            raise ValueError(
                f"SentencePiece cannot learn vocabulary_size={vocabulary_size} "
                f"pieces from `lines` ({reason}); every character of the text "
                "needs a piece of its own: pass a larger `vocabulary_size`."
            ) from None
        return cls(written.getvalue())

    @property
    def size(self):
        """The number of ids, the special ones included."""
        return self._processor.get_piece_size()

    def pieces(self):
        """Every piece, in id order (`pieces()[i]` has id `i`)."""
        return [self._processor.id_to_piece(i) for i in range(self.size)]

    def encode(self, texts):
        """A list of piece ids per text (no start or end id)."""
        return self._processor.encode(list(texts))

    def split(self, text):
        """A text's pieces as strings (`▁` marks a word's start)."""
        return self._processor.encode(text, out_type=str)

    def decode(self, sequences):
        """The text of each list of ids: stops at the end id or padding,
        skips the other special ids."""
        return self._processor.decode([content_ids(ids) for ids in sequences])

    def to_text(self):
        """The model as base64 text (what a zoo model's config keeps)."""
        return base64.b64encode(self.proto).decode("ascii")

    def __eq__(self, other):
        return isinstance(other, Subwords) and other.proto == self.proto

    def __hash__(self):
        return hash(self.proto)

    def __repr__(self):
        return f"Subwords(size={self.size}, {len(self.proto)} bytes)"


__all__ = ["Subwords", "MODEL_TYPES"]
