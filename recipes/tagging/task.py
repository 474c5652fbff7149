"""The tagging recipe's `Recipe`: Brown, Turkish UD, WNUT-16 or your
files in, a `zoo.tasks.Tagger` out (`TASK.run(config)`, or `run`)."""

import dataclasses

import keras
import numpy as np

import harness
import zoo
from harness import flags
from recipes import arguments
from recipes import models
from recipes import pipeline
from recipes import scoring
from recipes import settings
from recipes.data import datasets
from recipes.data import gazetteers
from recipes.tagging.config import BOUNDARIES
from recipes.tagging.config import HEADS
from recipes.tagging.config import QUICK_SENTENCES
from recipes.tagging.config import TAGSETS
from recipes.tagging.config import Config
from recipes.tagging.features import build as build_features
from recipes.tagging.features import check_init_pieces
from recipes.tagging.features import refuse_with_init
from recipes.task import Recipe


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
        tagger = self.tagger or self.model
        predicted = tagger.predict_tags([words for words, _ in self.sentences])
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
    vectors: np.ndarray = None  # --word-vectors' rows
    trained_rows: int = None  # ids with a trained embedding row
    features: zoo.layers.TokenFeatures = None  # --gazetteer, --word-shape


class TaggingTask(Recipe):
    """Sequence tagging: a softmax per token, accuracy (and span F1)."""

    name = "tagging"
    Config = Config
    task_class = zoo.tasks.Tagger
    DATA_FILES = (
        *Recipe.DATA_FILES,
        "pretrained",
        "word_vectors",
        "gazetteer",
    )

    def check(self, config):
        datasets.check_name(config.dataset, datasets.TAGGING)
        flags.check_choice("tagset", config.tagset, TAGSETS)
        datasets.check_tagset(config)
        arguments.check_training(config)
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
        # A joined tag is a pair, and a treebank's rare pairs (EWT's dev:
        # `AUX|GW`, `DET|NNP`) need not be in train.
        model, labels = models.resolve_labels(
            config, seen, held_out, data.description, what="tags",
            kind="tagger", keep_unseen=config.tagset == "ud",
        )  # fmt: skip
        entities = datasets.is_bio(data.train)
        bilm, spelling = models.pretrained_bilm(config, model, "tagger")
        matrix = trained_rows = None
        if model is not None:
            models.refuse_word_vectors(config, "tagger")
            refuse_with_init(config)
            vocabulary = model.vocabulary
            check_init_pieces(config, data.train, vocabulary, self.load_data)
            characters = model.characters
            features = model.token_features
            head = "softmax" if model.crf is None else "crf"
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
            tokens, matrix, trained_rows = models.word_vectors(config, tokens)
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
            features = build_features(config, data.train)
        return State(
            data,
            entities,
            vocabulary,
            tags,
            model,
            characters,
            head,
            bilm,
            matrix,
            trained_rows,
            features,
        )

    def model_args(self, config, state):
        return dict(
            num_outputs=len(state.tags) + 1,  # column 0: padding
            vocabulary_size=state.vocabulary.vocabulary_size,
            labels=["", *state.tags],
            vocabulary=state.vocabulary,
            characters=state.characters,
            head=state.head,
            contextual=models.contextual_embedding(config, state.bilm),
            word_vectors=state.vectors,
            embedding_rows=state.trained_rows,
            token_features=state.features,
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
        word_vectors=None,
        embedding_rows=None,
        token_features=None,
    ):
        """A zoo backbone (with a `zoo.layers.CharacterEncoder` when
        `characters`, a `zoo.layers.CharacterVocabulary`, is given) under
        `zoo.heads.sequence_tagger`; `head` defaults to `--head` (`auto`
        is a softmax without data to tell entity tags); `word_vectors`,
        the rows of `--word-vectors`' frozen channel (`embedding_rows`
        of the trained embedding's); `token_features`,
        the `zoo.layers.TokenFeatures` of `--gazetteer` and
        `--word-shape`."""
        spelled = {}
        if word_vectors is not None:
            spelled["word_vectors"] = word_vectors
        if embedding_rows is not None:
            spelled["embedding_rows"] = embedding_rows
        if token_features is not None:
            spelled["token_features"] = token_features.num_features
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
        if vocabulary is None:  # arrays in (the search's hypermodel)
            return zoo.heads.sequence_tagger(backbone, num_outputs, head=head)
        preprocessor = zoo.tasks.TaggerPreprocessor(
            vocabulary,
            labels,
            characters=characters,
            token_features=token_features,
            # A tagger reads text by its corpus's conventions (Brown's 12
            # universal tags: `"en_brown"`; UD English: `"en_ud"`).
            conventions=config.text_conventions(),
        )
        return zoo.tasks.Tagger(backbone, preprocessor, head=head)

    def stack_input_width(self, config, state=None):
        """`Recipe`'s (the embedding, the biLM, the word vectors), and the
        character encoder's beside it when the tagger reads characters."""
        width = super().stack_input_width(config, state)
        if state is not None and state.features is not None:
            width += state.features.num_features
        if state is not None and state.characters is not None:
            width += zoo.layers.CharacterEncoder(
                state.characters.vocabulary_size,
                config.char_embedding_dim,
                config.char_units,
                kind=config.char_kind,
            ).output_dim
        return width

    def loss(self, reduction="sum_over_batch_size"):
        return keras.losses.SparseCategoricalCrossentropy(reduction=reduction)

    def compile(self, model, config, steps=0):
        """Adam; a CRF tagger's loss is its CRF's negative log-likelihood
        (its accuracy comes from Viterbi paths, in `callbacks`)."""
        crf = crf_of(model)
        if crf is None:
            return super().compile(model, config, steps)
        model.compile(optimizer=self.optimizer(config, steps), loss=crf.loss)
        return model

    def monitor(self, state):
        return "val_f1" if state.entities else "val_accuracy"

    def datasets(self, config, state, batch_size, pad_to=1):
        tag_ids = {t: i + 1 for i, t in enumerate(state.tags)}
        encode = state.vocabulary.ids
        preprocessor = zoo.tasks.TaggerPreprocessor(
            state.vocabulary,
            ["", *state.tags],
            characters=state.characters,
            token_features=state.features,
        )

        def collate(batch):
            ids = pipeline.pad([encode(words) for words, _ in batch])
            y = pipeline.pad([[tag_ids[t] for t in ts] for _, ts in batch])
            words = [words for words, _ in batch]
            x = preprocessor.encode(words, ids=ids)
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
            "token_features": (
                state.features.feature_names if state.features else []
            ),
            "gazetteer": (
                gazetteers.describe(config.gazetteer)
                if config.gazetteer
                else ""
            ),
            **models.describe_pretrained(config, model),
        }

    def evaluate(self, config, state, reloaded, scores):
        test = state.data.test
        predicted = reloaded.predict_tags([words for words, _ in test])
        metrics = {
            "test_accuracy": scoring.token_accuracy(test, predicted),
            "test_loss": float(scores["loss"]),
        }
        if state.entities:
            spans = scoring.span_scores(test, predicted)
            metrics.update({f"test_{k}": v for k, v in spans.items()})
        by_tagset = scoring.accuracy_by_tagset(test, predicted, reloaded)
        if by_tagset:
            metrics["test_accuracy_by_tagset"] = by_tagset
        example = reloaded.tag([config.example()])[0]
        metrics["example"] = [f"{w}/{t}" for w, t in example]
        return metrics

    def title(self, config, state):
        stack = settings.describe_stack(config)
        return f"{stack} tagger, {state.data.description}"

    def summary(self, metrics):
        tokens = metrics["split_tokens"]["test"]
        lines = [
            f"test accuracy: {metrics['test_accuracy']:.4f} ({tokens} tokens)"
        ]
        for name, accuracy in metrics.get(
            "test_accuracy_by_tagset", {}
        ).items():
            lines.append(f"test accuracy, tagset={name}: {accuracy:.4f}")
        if "test_f1" in metrics:
            lines.append(
                f"test entity F1: {metrics['test_f1']:.4f} (precision "
                f"{metrics['test_precision']:.4f}, recall "
                f"{metrics['test_recall']:.4f})"
            )
        lines.append("example: " + " ".join(metrics["example"]))
        return lines


TASK = TaggingTask()
# Train, evaluate and save a run (`recipes.task.Recipe.run`); a task model
# of a run folder or a preset (`recipes.task.Recipe.load`).
run = TASK.run
load = TASK.load


def crf_of(model):
    """The `zoo.layers.CRF` of a tagger (`zoo.tasks.Tagger.crf`, or the
    CRF layer of a tagger of arrays), or None for a softmax tagger."""
    if isinstance(model, zoo.tasks.Tagger):
        return model.crf
    found = [x for x in model.layers if isinstance(x, zoo.layers.CRF)]
    return found[0] if found else None
