"""The recipes' tasks as tuning problems: data, model and objective.

A `Problem` reuses a recipe's own functions (data loading, vocabulary,
`build_model`, compile, `tf.data` pipeline), so that a trial trains
exactly the model the recipe would train with those settings.
"""

import dataclasses
import typing

import keras_tuner as kt

from recipes import _common
from recipes import classification
from recipes import datasets
from recipes import seq2seq
from recipes import tagging
from tuning.hypermodel import SEARCHABLE

RECIPES = {
    "tagging": tagging,
    "classification": classification,
    "seq2seq": seq2seq,
}


@dataclasses.dataclass
class Problem:
    """What a search needs from a recipe's task."""

    task: str
    config: typing.Any
    description: str
    objective: kt.Objective
    build: typing.Callable  # choices -> compiled keras.Model
    data: typing.Callable  # batch_size -> (train, validation)
    callbacks: list
    config_for: typing.Callable  # choices -> the recipe's Config


def config_for(config, choices):
    """The recipe config with a trial's choices in place."""
    return dataclasses.replace(
        config, **{k: choices[k] for k in SEARCHABLE if k in choices}
    )


def _cached(make):
    """`make(batch_size)`, built once per batch size."""
    cache = {}

    def data(batch_size):
        if batch_size not in cache:
            cache[batch_size] = make(batch_size)
        return cache[batch_size]

    return data


def tagging_problem(config):
    tagging.check(config)
    data = tagging.load_data(config)
    entities = datasets.is_bio(data.train)
    _, tags = tagging.resolve_tags(
        dataclasses.replace(config, init_from=""), data
    )
    vocabulary = tagging.vocabulary_of(data.train, config)
    tag_ids = {t: i + 1 for i, t in enumerate(tags)}

    def build(choices):
        model = tagging.build_model(
            config_for(config, choices), vocabulary, tags
        )
        return _common.compile_per_token(model, choices["learning_rate"])

    def make(batch_size):
        return (
            tagging.make_dataset(data.train, tag_ids, batch_size, config.seed),
            tagging.make_dataset(data.dev, tag_ids, batch_size),
        )

    metric = "val_f1" if entities else "val_accuracy"
    return Problem(
        task="tagging",
        config=config,
        description=data.description,
        objective=kt.Objective(metric, "max"),
        build=build,
        data=_cached(make),
        callbacks=[tagging.SpanF1(data.dev)] if entities else [],
        config_for=lambda choices: config_for(config, choices),
    )


def classification_problem(config):
    classification.check(config)
    data = classification.load_data(config)
    _, labels = classification.resolve_classes(
        dataclasses.replace(config, init_from=""), data
    )
    texts = [t for t, _ in data.train]
    vocabulary = classification.vocabulary_of(config, texts)
    label_ids = {label: i for i, label in enumerate(labels)}

    def build(choices):
        model = classification.build_model(
            config_for(config, choices), texts, labels, vocabulary=vocabulary
        )
        return classification.compile_model(model, choices["learning_rate"])

    def make(batch_size):
        return (
            classification.make_dataset(
                data.train, label_ids, batch_size, config.seed
            ),
            classification.make_dataset(data.dev, label_ids, batch_size),
        )

    return Problem(
        task="classification",
        config=config,
        description=data.description,
        objective=kt.Objective("val_macro_f1", "max"),
        build=build,
        data=_cached(make),
        callbacks=[],
        config_for=lambda choices: config_for(config, choices),
    )


def seq2seq_problem(config):
    seq2seq.check(config)
    _, (train, dev, _) = seq2seq.load_data(config)
    vocab = seq2seq.Vocabulary.from_entries(train)
    train_pairs = seq2seq.pairs(vocab, train, config.max_word_length)
    dev_pairs = seq2seq.pairs(vocab, dev, config.max_word_length)

    def build(choices):
        model = seq2seq.build_model(config_for(config, choices), vocab)
        return _common.compile_per_token(model, choices["learning_rate"])

    def make(batch_size):
        return (
            seq2seq.make_dataset(train_pairs, batch_size, config.seed),
            seq2seq.make_dataset(dev_pairs, batch_size),
        )

    return Problem(
        task="seq2seq",
        config=config,
        description="CMUdict grapheme-to-phoneme",
        objective=kt.Objective("val_accuracy", "max"),
        build=build,
        data=_cached(make),
        callbacks=[],
        config_for=lambda choices: config_for(config, choices),
    )


PROBLEMS = {
    "tagging": tagging_problem,
    "classification": classification_problem,
    "seq2seq": seq2seq_problem,
}
