"""`Recipe`: what a recipe declares (its data, model, objective and
evaluation); `recipes.training.train_and_evaluate` does the rest, and
`tuning` searches over the same recipes.

    metrics = recipes.tagging.TASK.run(config)

A recipe is a `Recipe` (each package's `TASK`, e.g. a `TaggingTask`): its
data, vocabulary and labels (`prepare`), its model, a `zoo.tasks` model
built from a zoo backbone and a preprocessor (`build`), its loss and
metrics (declared once), its batches, its evaluation and examples. (A
`zoo.tasks.Task` is the trained model; a `Recipe` is the job that
trains one.)
"""

import dataclasses
import os
import typing

import keras

import zoo
from harness import files
from recipes import models
from recipes import settings
from recipes import training


@dataclasses.dataclass(frozen=True)
class Stage:
    """A training stage that runs before a task's own `fit`: `run(output)`
    does it (a resumable run of its own under `output`) and returns the
    names it wrote there, which `metrics.json` lists."""

    name: str
    run: typing.Callable


class Recipe:
    """What a recipe declares; `train_and_evaluate` does the rest.

    Subclasses set `name`, `Config`, `curve_metric` and implement the
    methods below; `state` is whatever `prepare` returns.
    """

    name = "task"
    Config = settings.StackOptions
    # What the task trains and exports: a `zoo.tasks` class, and its kind.
    task_class = None
    curve_metric = "accuracy"
    monitor_mode = "max"  # `monitor`'s metric is maximised ("min": loss)
    # A `zoo.Seq2Seq` task: an encoder and a decoder stack (a parameter
    # budget counts both; the model reads token ids).
    encoder_decoder = False

    def check(self, config):
        """Raises `harness.UsageError` for a bad config (before any data)."""

    def prepare(self, config):
        """Data, vocabulary, labels (and a model to train on from)."""
        raise NotImplementedError

    # The settings naming files a run reads (a rerun checks they did not
    # change under its backup): their sizes and hashes name the file.
    DATA_FILES = ("train_file", "dev_file", "test_file", "init_from")

    def data_fingerprint(self, config, state):
        """What the run trains on, for a rerun to compare with its backup
        (`recipes.checkpoints.RunBackup`): the size and sha256 of each file
        in `DATA_FILES` the config names, and a digest of the examples
        `prepare` loaded (its `state.data`'s, or `state`'s, `train`, `dev`
        and `test`), which a package corpus's other version or split
        changes too."""
        data = getattr(state, "data", state)
        return {
            "files": self.data_files(config),
            "examples": files.digest(
                [getattr(data, part, None) for part in ("train", "dev", "test")]
            ),
        }

    def data_files(self, config):
        """`{"--flag path": {"bytes": ..., "sha256": ...}}` for each file
        in `DATA_FILES` the config names (a preset records them)."""
        named = {name: getattr(config, name, "") for name in self.DATA_FILES}
        return {
            f"--{name.replace('_', '-')} {path}": files.fingerprint(path)
            for name, value in named.items()
            for path in _named_files(value)
        }

    def write(self, output, state):
        """Writes what travels beside `model.keras`; returns the names."""
        return []

    def preset_assets(self, config, folder):
        """Files a preset of this task's runs carries beside its model
        (written into `folder`): `{name: path}`; none by default (a G2P
        preset's dictionary and heteronym table: `recipes.g2p`)."""
        return {}

    def stages(self, config, state):
        """The `Stage`s that run before this task's own training, in
        order (ULMFiT's language-model fine-tuning in
        `recipes.classification`); none by default."""
        return []

    def build(self, config, state):
        """The model to train, uncompiled: the saved model to train on
        from (`state.init_model`, `--init-from`), or `model_for` the
        data's vocabulary and labels (`model_args`) as the task's
        `zoo.tasks` class (`task_model`)."""
        init = getattr(state, "init_model", None)
        if init is not None:
            return init
        model = self.model_for(config, **self.model_args(config, state))
        return self.task_model(model, config, state)

    def model_args(self, config, state):
        """`model_for`'s arguments for the data in `state`:
        `num_outputs`, `vocabulary_size` and what the task adds."""
        raise NotImplementedError

    def task_model(self, model, config, state):
        """`model_for`'s model as the `zoo.tasks` class the task trains
        (`model_for` builds that class from a backbone and a
        preprocessor: the model as it is)."""
        return model

    def load(self, output):
        """The task model of a run's folder (or its `model.keras`) or a
        preset (a shipped name or a preset folder): raw text in, on every
        backend."""
        return models.load_task_model(output, "load", self.task_class)

    def model_for(
        self, config, num_outputs, *, vocabulary_size=None, input_dim=None
    ):
        """The task's model for problem facts alone, uncompiled: token ids
        below `vocabulary_size` (or float features of width `input_dim`)
        in, `num_outputs` tags, classes or target ids out. What `build`
        makes from the data, without their vocabulary and label names;
        `tuning.StackedRNNHyperModel` builds its trials with it when it
        is given arrays rather than a recipe's data."""
        raise NotImplementedError

    def stack_input_width(self, config, state=None):
        """The feature width entering the recurrent stack (what a
        parameter budget counts from): the embedding's, and beside it a
        `--pretrained` biLM's and `--word-vectors`' where `state` has
        them."""
        width = config.embedding_dim
        bilm = getattr(state, "bilm", None)
        if bilm is not None:
            width += zoo.language_model.encoder_of(bilm).output_dim
        vectors = getattr(state, "vectors", None)
        if vectors is not None:
            width += vectors.shape[1]
        return width

    def loss(self, reduction="sum_over_batch_size"):
        """A new loss object."""
        raise NotImplementedError

    def metrics(self):
        """New metric objects (named as the logs show them): accuracy per
        weighted step (`zoo.metrics.TokenMean`: per token, whatever the
        batches' padded widths, unlike Keras's `SparseCategoricalAccuracy`,
        which averages each row over its batch's width first)."""
        return [
            zoo.metrics.TokenMean(
                keras.metrics.sparse_categorical_accuracy, name="accuracy"
            )
        ]

    weighted = True  # metrics weighted by the batches' sample weights

    def monitor(self, state):
        """The validation metric early stopping maximises (or minimises,
        `monitor_mode = "min"`)."""
        return "val_accuracy"

    def datasets(self, config, state, batch_size, pad_to=1):
        """`(train, dev, test)` `pipeline.Batches`; test may be None."""
        raise NotImplementedError

    def progress(self, config, state, batches):
        """`recipes.progress.ProgressLog`'s `units` and `describe` for a
        log of this task's training (`batches`: the training batches)."""
        return {}

    def callbacks(self, config, state, predictor):
        """Callbacks that add validation metrics to the epoch logs."""
        return []

    def evaluate(self, config, state, reloaded, scores):
        """The task's metrics from the reloaded model and `scores` (the
        test split's `evaluate` logs, or `{}`)."""
        return {f"test_{k}": float(v) for k, v in scores.items()}

    def figures(self, config, state, reloaded, output):
        """Plots of the trained model written into `output` after its
        evaluation (an attention heat map: `recipes.translation`);
        returns their names. None by default (the learning curves are
        the loop's own)."""
        return []

    def describe(self, config, state, model):
        """Facts about the data and model for `metrics.json`."""
        return {}

    def title(self, config, state):
        """The plots' title (`run_title` adds what a reader must know)."""
        return self.name

    def run_title(self, config, state):
        """`title`, saying so when the run was a `--quick` smoke run."""
        title = self.title(config, state)
        if config.quick:
            title += " (--quick: a smoke run on a subset)"
        return title

    def summary(self, metrics):
        """Lines printed at the end of a run."""
        return []

    def run(self, config, callbacks=(), distribute="none", overwrite=False):
        """Trains, evaluates and saves this task's model; returns the
        metrics (`train_and_evaluate` on this task)."""
        return training.train_and_evaluate(
            self, config, callbacks, distribute, overwrite
        )

    def optimizer(self, config, steps=0):
        """Adam (`zoo.optimizers.Adam`: Keras's, fused on PyTorch) at
        `--learning-rate` under `--lr-schedule`, for a run of `steps`
        optimizer steps, averaging its weights with `--ema`."""
        return zoo.optimizers.Adam(
            settings.learning_rate(config, steps), **settings.averaging(config)
        )

    def compile(self, model, config, steps=0):
        """`optimizer`, the task's loss and metrics."""
        kind = "weighted_metrics" if self.weighted else "metrics"
        model.compile(
            optimizer=self.optimizer(config, steps),
            loss=self.loss(),
            **{kind: self.metrics()},
        )
        return model


def _named_files(value):
    """The files a data flag names: its value if that is a file, else
    each comma-separated part that is one (`--gazetteer a.tsv,b.tsv`)."""
    if not value:
        return []
    paths = files.split_paths(str(value))
    return [path for path in paths if os.path.isfile(path)]
