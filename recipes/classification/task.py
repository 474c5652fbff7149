"""The classification recipe's `Recipe`: BBC News, tweets, Brown genres
or your files in, a `zoo.tasks.TextClassifier` out."""

import dataclasses

import keras
import numpy as np

import harness
import zoo
from harness import flags
from recipes import arguments
from recipes import models
from recipes import pipeline
from recipes import settings
from recipes.classification import finetune
from recipes.classification.config import BOUNDARIES
from recipes.classification.config import EXAMPLE_WORDS
from recipes.classification.config import EXAMPLES
from recipes.classification.config import POOLINGS
from recipes.classification.config import QUICK_EXAMPLES
from recipes.classification.config import USER_EXAMPLES
from recipes.classification.config import Config
from recipes.data import datasets
from recipes.task import Recipe

# The layer of the wide part's logits (`zoo.heads.sequence_classifier`).
WIDE = "wide_logits"


def _cut(config):
    """`--max-length` as a slice's end: None (whole texts) for 0."""
    return config.max_length or None


def _examples(config, state):
    """`[(text, gold label or None), ...]` to classify after a run."""
    if config.dataset in EXAMPLES:
        return [(text, None) for text in EXAMPLES[config.dataset]]
    chosen = []
    for text, label in state.data.test[:USER_EXAMPLES]:
        words = text.split() if isinstance(text, str) else list(text)
        cut = " ".join(words[:EXAMPLE_WORDS])
        chosen.append(
            (cut + (" ..." if len(words) > EXAMPLE_WORDS else ""), label)
        )
    return chosen


def wide_optimizer(model, config, steps):
    """`zoo.optimizers.DiscriminativeAdam` with two groups: the wide
    logits (`zoo.heads.sequence_classifier`'s `"wide_logits"`) at
    `--wide-learning-rate`, every other variable at `--learning-rate`,
    both under `--lr-schedule`."""
    deep = [
        variable.path
        for variable in model.trainable_variables
        if WIDE not in variable.path.split("/")
    ]
    top = dataclasses.replace(config, learning_rate=config.wide_learning_rate)
    return zoo.optimizers.DiscriminativeAdam(
        settings.learning_rate(top, steps),
        groups=[[WIDE], deep],
        decay=config.wide_learning_rate / config.learning_rate,
        **settings.averaging(config),
    )


@dataclasses.dataclass
class State:
    """What `ClassificationTask.prepare` found."""

    data: datasets.Data
    vocabulary: zoo.layers.TokenVocabulary
    labels: list
    init_model: keras.Model = None
    characters: zoo.layers.CharacterVocabulary = None
    bilm: keras.Model = None
    fine_tune_metrics: dict = None  # the fine-tuned biLM's perplexities
    vectors: np.ndarray = None  # --word-vectors' rows
    trained_rows: int = None  # ids with a trained embedding row


class ClassificationTask(Recipe):
    """Text classification: one softmax per text, accuracy and macro F1."""

    name = "classification"
    Config = Config
    task_class = zoo.tasks.TextClassifier
    curve_metric = "macro_f1"
    DATA_FILES = (*Recipe.DATA_FILES, "pretrained", "word_vectors")

    def check(self, config):
        datasets.check_name(config.dataset, datasets.CLASSIFICATION)
        flags.check_choice("pooling", config.pooling, POOLINGS)
        arguments.check_training(config)
        for name in ("max_vocabulary", "attention_units"):
            flags.check_range(name, getattr(config, name), low=1)
        flags.check_range("max_length", config.max_length, low=0)
        flags.check_range(
            "bigram_buckets",
            config.bigram_buckets,
            low=0,
            high=zoo.layers.bag_of_words.MAX_BIGRAM_BUCKETS,
        )
        flags.check_range("head_dropout", config.head_dropout, low=0, high=0.95)
        flags.check_range(
            "label_smoothing", config.label_smoothing, low=0, high=0.5
        )
        flags.check_positive("wide_learning_rate", config.wide_learning_rate)
        if config.wide and config.wide_learning_rate < config.learning_rate:
            raise harness.UsageError(
                "--wide-learning-rate must be at least --learning-rate "
                f"({config.learning_rate}); received "
                f"{config.wide_learning_rate}"
            )
        if config.wide and config.fine_tune:
            raise harness.UsageError(
                "--wide and --fine-tune do not combine (each sets its own "
                "learning rates); pass one of them"
            )
        flags.check_range("fine_tune_epochs", config.fine_tune_epochs, low=1)
        if config.fine_tune and not config.pretrained:
            raise harness.UsageError(
                "--fine-tune needs --pretrained (the biLM to fine-tune: a "
                "shipped preset such as en_bilm, or a language-model run)"
            )

    def load_data(self, config):
        """`datasets.Data` of `(text, label)`, cut down by `--quick`."""
        return datasets.load_classification(config).cut(config, QUICK_EXAMPLES)

    def prepare(self, config):
        data = self.load_data(config)
        seen = {label for _, label in data.train}
        held_out = {label for p in (data.dev, data.test) for _, label in p}
        model, labels = models.resolve_labels(
            config, seen, held_out, data.description, kind="classifier"
        )
        if model is None and len(seen) < 2:
            raise harness.UsageError(
                f"the training data have {len(seen)} label(s) "
                f"{sorted(seen)}; a classifier needs at least 2"
            )
        bilm, characters = models.pretrained_bilm(config, model, "classifier")
        if model is not None:
            models.refuse_word_vectors(config, "classifier")
            return State(
                data, model.vocabulary, labels, model, model.characters
            )
        tokens = zoo.text.build_vocabulary(
            [
                zoo.text.tokenize(text, strip_punctuation=True)[: _cut(config)]
                for text, _ in data.train
            ],
            strip_punctuation=True,
            max_tokens=config.max_vocabulary,
        )
        tokens, matrix, trained_rows = models.word_vectors(config, tokens)
        vocabulary = zoo.layers.TokenVocabulary(
            tokens, strip_punctuation=True, name="vocabulary"
        )
        return State(
            data,
            vocabulary,
            labels,
            None,
            characters,
            bilm,
            vectors=matrix,
            trained_rows=trained_rows,
        )

    def stages(self, config, state):
        """With `--fine-tune`, ULMFiT's first stage
        (`recipes.classification.finetune.LanguageModelStage`)."""
        if not config.fine_tune:
            return []
        return [finetune.LanguageModelStage(config, state)]

    def compile(self, model, config, steps=0):
        """Adam; with `--fine-tune`, ULMFiT's discriminative rates and
        gradual unfreezing (`fine_tune_optimizer`); with `--wide`, the
        wide part at its own rate (`wide_optimizer`). The loss smooths
        the targets by `--label-smoothing`. The metrics are weighted, so
        the rows a batch is padded with (weight 0, on JAX) do not count."""
        if config.fine_tune:
            optimizer = finetune.fine_tune_optimizer(model, config, steps)
        elif config.wide:
            optimizer = wide_optimizer(model, config, steps)
        else:
            optimizer = self.optimizer(config, steps)
        model.compile(
            optimizer=optimizer,
            loss=self.loss(label_smoothing=config.label_smoothing),
            weighted_metrics=self.metrics(),
        )
        return model

    def model_args(self, config, state):
        wide = None
        if config.wide:
            wide = zoo.layers.TfIdf(
                state.vocabulary.vocabulary_size,
                bigram_buckets=config.bigram_buckets,
                name="bag_of_words",
            ).adapt(
                [
                    state.vocabulary.text_ids(text)[: _cut(config)]
                    for text, _ in state.data.train
                ]
            )
        return dict(
            wide=wide,
            num_outputs=len(state.labels),
            vocabulary_size=state.vocabulary.vocabulary_size,
            labels=state.labels,
            vocabulary=state.vocabulary,
            characters=state.characters,
            contextual=models.contextual_embedding(config, state.bilm),
            word_vectors=state.vectors,
            embedding_rows=state.trained_rows,
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
        contextual=None,
        wide=None,
        word_vectors=None,
        embedding_rows=None,
    ):
        """A zoo backbone under `zoo.heads.sequence_classifier` (its
        `--pooling`, dropout and softmax); it is trained on one-hot
        classes (`loss`), for the macro F1. With `contextual` (a
        `zoo.layers.ContextualEmbedding`), the backbone also reads the
        characters that `characters` spells; with `wide` (an adapted
        `zoo.layers.TfIdf`, `--wide`), a linear model of the text's bag of
        words adds its logits to the stack's; with `word_vectors`
        (`--word-vectors`' rows), a frozen channel of pretrained vectors
        joins the embedding, which has `embedding_rows` trained rows."""
        last = config.pooling == "last"
        extra = {} if contextual is None else {"contextual": contextual}
        if word_vectors is not None:
            extra["word_vectors"] = word_vectors
        if embedding_rows is not None:
            extra["embedding_rows"] = embedding_rows
        backbone = models.backbone(
            config,
            vocabulary_size,
            return_sequences=not last,
            input_dim=input_dim,
            **extra,
        )
        head = dict(
            pooling=config.pooling,
            attention_units=config.attention_units,
            dropout=config.head_dropout,
            seed=config.seed,
            wide=wide,
        )
        if vocabulary is None:  # arrays in (the search's hypermodel)
            return zoo.heads.sequence_classifier(backbone, num_outputs, **head)
        preprocessor = zoo.tasks.TextClassifierPreprocessor(
            vocabulary, labels, characters=characters
        )
        return zoo.tasks.TextClassifier(backbone, preprocessor, **head)

    def loss(self, reduction="sum_over_batch_size", label_smoothing=0.0):
        return keras.losses.CategoricalCrossentropy(
            reduction=reduction, label_smoothing=label_smoothing
        )

    def metrics(self):
        return [
            keras.metrics.CategoricalAccuracy(name="accuracy"),
            keras.metrics.F1Score(average="macro", name="macro_f1"),
        ]

    def monitor(self, state):
        return "val_macro_f1"

    def datasets(self, config, state, batch_size, pad_to=1):
        label_ids = {label: i for i, label in enumerate(state.labels)}
        vocabulary = state.vocabulary
        eye = np.eye(len(state.labels), dtype="float32")

        characters = state.characters
        preprocessor = zoo.tasks.TextClassifierPreprocessor(
            vocabulary, state.labels, characters=characters
        )

        def collate(batch):
            x = pipeline.pad([ids for ids, _, _ in batch])
            if characters is not None:
                words = [words for _, words, _ in batch]
                x = x, characters.encode(words, width=x.shape[1])
            y = eye[[label_ids[label] for _, _, label in batch]]
            return x, y, np.ones(len(batch), "float32")

        def example(text, label):
            ids = vocabulary.text_ids(text)[: _cut(config)]
            words = None
            if characters is not None:
                words = preprocessor.words(text)[: _cut(config)]
            return ids, words, label

        data = state.data
        return pipeline.split_batches(
            [
                [example(text, label) for text, label in part]
                for part in (data.train, data.dev, data.test)
            ],
            lambda example: len(example[0]),
            collate,
            batch_size,
            BOUNDARIES,
            config.seed,
            pad_to,
            fixed_target_width=True,  # one-hot classes
        )

    def describe(self, config, state, model):
        return {
            "dataset": config.dataset,
            "description": state.data.description,
            "labels": state.labels,
            "split_examples": state.data.sizes(),
            "vocabulary_size": state.vocabulary.vocabulary_size,
            **models.describe_pretrained(config, model),
            **(
                {"fine_tune_language_model": state.fine_tune_metrics}
                if config.fine_tune
                else {}
            ),
        }

    def evaluate(self, config, state, reloaded, scores):
        examples = _examples(config, state)
        predictions = reloaded.classify(
            [text for text, _ in examples], max_length=_cut(config)
        )
        return {
            "test_accuracy": float(scores["accuracy"]),
            "test_macro_f1": float(scores["macro_f1"]),
            "test_loss": float(scores["loss"]),
            "examples": [
                {
                    "text": text,
                    "label": label,
                    "probability": round(p, 4),
                    **({} if gold is None else {"gold": str(gold)}),
                }
                for (text, gold), (label, p) in zip(examples, predictions)
            ],
        }

    def title(self, config, state):
        return (
            f"{settings.describe_stack(config)}, {config.pooling} pooling, "
            f"{state.data.description}"
        )

    def summary(self, metrics):
        lines = [
            f"test accuracy: {metrics['test_accuracy']:.4f}, macro F1: "
            f"{metrics['test_macro_f1']:.4f} "
            f"({metrics['split_examples']['test']} examples)"
        ]
        for example in metrics["examples"]:
            lines.append(
                f"  {example['label']:>14} ({example['probability']:.2f})  "
                f"{example['text']}"
                + (f"  [gold: {example['gold']}]" if "gold" in example else "")
            )
        return lines


TASK = ClassificationTask()
# Train, evaluate and save a run (`recipes.task.Recipe.run`); a task model
# of a run folder or a preset (`recipes.task.Recipe.load`).
run = TASK.run
load = TASK.load


def classify(model, texts):
    """`[(label, probability), ...]` for raw strings, by a classifier (a
    `zoo.tasks.TextClassifier`)."""
    return model.classify(texts)
