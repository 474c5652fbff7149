"""`Task`: what the zoo's task models share (keras-hub's `Task`).

A task model is three parts, each a class with its own config: a
backbone (`zoo.Backbone`, a `zoo.Seq2Seq`, a `zoo.layers.BiLMEncoder`),
a preprocessor (`zoo.tasks.preprocessors`: the vocabularies and label
names) and the task's head, built in its constructor
(`Tagger(backbone, preprocessor, head="crf")`). The model's graph maps
ids to outputs, so it trains with `fit`, nests in other models and saves
to `.keras` like any Keras model; its preprocessor, saved with it,
turns raw text into those ids and the outputs into words, tags, classes
or phonemes, after `from_preset(...)` or a reload with `safe_mode=True`:

    tagger = zoo.tasks.Tagger.from_preset("pos_en_universal")
    tagger.tag(["The cat sat on the mat ."])   # [[("The", "DET"), ...]]
    tagger(["The cat sat on the mat ."])       # the same: raw text in
    tagger.predict(["The cat sat ."])          # the same
    tagger.save_to_preset("my_tagger")         # a preset folder

On arrays (token ids), `__call__` and `predict` are Keras's own. Raw
text is a string, or a list or tuple whose items are strings (or lists
of strings, pre-split words); anything else goes to Keras.

Raw text runs through the model's runner (`set_runner`, or
`from_preset(..., runner=...)`): `"numpy"`, `zoo.engine`'s NumPy forward
pass of the current weights, or `"keras"`, `zoo.inference_function`, the
forward pass compiled once for the backend (not `predict`'s per-call
machinery); `"auto"`, the default, takes NumPy where every layer has a
NumPy form. Either is made on first use and shared by the threads that
use the model.

`Task` is a mixin beside `keras.Model`, not its subclass, because the
tasks are of Keras's two kinds: the tagger, classifier and biLM are
functional models of their head on the backbone's graph, the
transcriber and translator subclassed models whose `call` is their
`zoo.Seq2Seq` backbone's; Keras makes a class functional by putting
`Functional` among its bases, which a shared base class would pass on
to both kinds.
"""

import os
import threading

import keras
import numpy as np

from zoo import engine
from zoo import inference
from zoo import presets
from zoo import validation as v
from zoo.kernels import dispatch
from zoo.tasks import convert
from zoo.tasks import preprocessors

# Re-entrant: a runner's check makes the function it checks.
_LOCK = threading.RLock()
# How a task model serves raw text (`Task.set_runner`).
RUNNERS = ("auto", "numpy", "keras")
_SHARED = {}
_SHARED_LOCK = threading.Lock()


def shared(cls, preset):
    """`cls.from_preset(preset)`, loaded once per process, class and
    preset (a name or a folder), and shared by every caller: what the
    one-line APIs (`zoo.pos_tag`, `zoo.G2p`) use. A model of `cls`
    passed as `preset` is returned as it is."""
    if isinstance(preset, cls):
        return preset
    key = (
        cls,
        os.fspath(preset) if isinstance(preset, os.PathLike) else preset,
    )
    with _SHARED_LOCK:
        if key not in _SHARED:
            _SHARED[key] = cls.from_preset(preset)
        return _SHARED[key]


def is_text(value):
    """Whether `value` is raw text for a task model: a string, or a
    non-empty list or tuple of strings or of lists of strings."""
    if isinstance(value, str):
        return True
    if not isinstance(value, (list, tuple)) or not value:
        return False
    return all(
        isinstance(item, str)
        or (
            isinstance(item, (list, tuple))
            and all(isinstance(word, str) for word in item)
        )
        for item in value
    )


def check_list(name, values, what="a list (one item per input)"):
    """Refuses a plain string (or bytes, or a non-list) where a list of
    inputs is expected: a string would be read as a list of characters."""
    if isinstance(values, (str, bytes)):
        raise TypeError(
            f"`{name}` must be {what}; received a single "
            f"{type(values).__name__} {values[:40]!r}. Wrap it in a list."
        )
    if not isinstance(values, (list, tuple)):
        raise TypeError(
            f"`{name}` must be {what}; received {type(values).__name__}."
        )


# The padded words (or tokens) a batch of raw text may hold, per row.
PADDED_WORDS = 128


def length_batches(lengths, batch_size):
    """The indices of inputs of `lengths`, sorted by length and cut into
    batches of at most `batch_size` rows and `batch_size * PADDED_WORDS`
    padded words: little padding, and a very long input goes alone
    rather than padding many short ones to its length."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batch = []
    for i in order:
        padded = (len(batch) + 1) * max(lengths[i], 1)
        full = len(batch) == batch_size
        if batch and (full or padded > batch_size * PADDED_WORDS):
            yield batch
            batch = []
        batch.append(i)
    if batch:
        yield batch


class Task:
    """The mixin of every `zoo.tasks` model (beside `keras.Model`): its
    backbone and preprocessor, presets, raw text in, and the runners.

    A subclass sets `preset_kind` (one of `zoo.presets.KINDS`) and
    `run_text(inputs, **kwargs)`, what raw text in `__call__` and
    `predict` does; `fixed_outputs()` is what a preset records about the
    model's outputs on a few fixed inputs (tested on every backend).
    """

    preset_kind = None
    # The files a preset of this class must list and hold (checked by
    # `zoo.presets.verify` before a byte is read); `preset_assets`: the
    # names under `assets/` it reads, none here.
    preset_files = (presets.CONFIG_FILE, presets.WEIGHTS_FILE)
    preset_assets = ()

    # ---- presets --------------------------------------------------------
    @classmethod
    def from_preset(cls, preset, *, runner="auto", **kwargs):
        """Loads a preset of this class (or a subclass): a shipped name
        (`zoo.presets.names()`) or a preset folder; checksums first, then
        `safe_mode=True`. `runner` is how raw text is served (`RUNNERS`;
        see `set_runner`); `kwargs` are the class's `from_preset`
        options (a `Transcriber`'s decoding settings)."""
        model = presets.from_preset(preset, cls=cls)
        model.set_runner(runner)
        return model.configure(**kwargs) if kwargs else model

    def configure(self, **kwargs):
        """Sets inference options after loading (none by default)."""
        if kwargs:
            raise TypeError(
                f"{type(self).__name__}.from_preset takes no option "
                f"{sorted(kwargs)[0]!r}"
            )
        return self

    def save_to_preset(
        self,
        folder,
        *,
        metadata=None,
        weights_dtype="float32",
        overwrite=False,
        assets=None,
    ):
        """Writes the model as a preset folder (`zoo.presets.save_preset`);
        returns its metadata. The model's outputs on `fixed_outputs()`'s
        inputs are recorded with it (after float16's rounding, if asked),
        unless `metadata` already holds `fixed_inputs`."""
        metadata = dict(metadata or {})
        if "fixed_inputs" not in metadata:
            fixed = self.fixed_outputs()
            if fixed is not None:
                metadata["fixed_inputs"] = fixed
        return presets.save_preset(
            self,
            folder,
            metadata,
            weights_dtype=weights_dtype,
            overwrite=overwrite,
            assets=assets,
        )

    @classmethod
    def load_preset_folder(cls, folder, found, preset):
        """The model of a verified preset folder (`found`: its metadata):
        its config built, its weights loaded; a preset of the first
        release's task layout (format 2) through `zoo.tasks.convert`."""
        if found.get("format_version") == convert.FORMAT_2:
            return convert.load(cls, folder, found, preset)
        model = presets.build_from_config(folder, preset)
        presets.load_weights(model, folder, preset)
        return model

    # ---- backbone and preprocessor ---------------------------------------
    # A task's `backbone` (the model under its head: a `zoo.Backbone` or
    # any functional Keras model; a `zoo.Seq2Seq` for a transcriber) and
    # its `preprocessor` (raw text to the model's inputs, outputs to
    # names: `zoo.tasks.preprocessors`) are attributes, set by
    # `set_parts` in each task's constructor; Keras tracks and saves both.

    # The class of this task's preprocessor (`zoo.tasks.preprocessors`).
    preprocessor_class = None

    @classmethod
    def checked_preprocessor(cls, preprocessor):
        """`preprocessor` (or its serialized config) if it is a
        `preprocessor_class`; else a `TypeError` naming the argument."""
        return preprocessors.check(
            "preprocessor", preprocessor, cls.preprocessor_class
        )

    def set_parts(self, backbone, preprocessor):
        """Keeps the two parts as `backbone` and `preprocessor`."""
        self.backbone = backbone
        self.preprocessor = preprocessor

    def parts_config(self):
        """The two parts serialized: what every task's config holds."""
        return {
            "backbone": keras.saving.serialize_keras_object(self.backbone),
            "preprocessor": keras.saving.serialize_keras_object(
                self.preprocessor
            ),
        }

    def head_config(self):
        """The task's other constructor arguments (its head's; a
        transcriber's decoding settings): JSON."""
        return dict(self.__dict__.get("_zoo_head", {}))

    def set_head_config(self, **arguments):
        """Keeps the head's constructor arguments for `get_config`."""
        object.__setattr__(self, "_zoo_head", arguments)

    def get_config(self):
        return {
            "name": self.name,
            "trainable": self.trainable,
            **self.parts_config(),
            **self.head_config(),
        }

    @staticmethod
    def parts_from_config(config):
        """`config` with its serialized parts deserialized."""
        config = dict(config)
        for key in ("backbone", "preprocessor"):
            if isinstance(config.get(key), dict):
                config[key] = keras.saving.deserialize_keras_object(config[key])
        return config

    @classmethod
    def from_config(cls, config):
        return cls(**cls.parts_from_config(config))

    def fixed_outputs(self):
        """What a preset records of the model's outputs on a few fixed
        inputs (JSON), or None."""
        return None

    # ---- raw text -------------------------------------------------------
    def run_text(self, inputs, **kwargs):
        """What raw text does in `__call__` and `predict`."""
        raise NotImplementedError

    def __call__(self, *args, **kwargs):
        if args and is_text(args[0]):
            return self.run_text(*args, **kwargs)
        return super().__call__(*args, **kwargs)

    def predict(self, x, *args, **kwargs):
        """Raw text: `run_text(x)` (the task's results); arrays: Keras's
        `predict`."""
        if is_text(x):
            batch_size = kwargs.get("batch_size") or (args[:1] or [None])[0]
            options = {"batch_size": batch_size} if batch_size else {}
            return self.run_text(x, **options)
        return super().predict(x, *args, **kwargs)

    # ---- serving ----------------------------------------------------------
    def set_runner(self, runner):
        """Chooses how raw text (and `infer`) is served; returns the model.

        - `"numpy"`: `zoo.engine`, the NumPy forward pass: no
          compilation, the same on every backend, the fastest at batch 1
          (`benchmarks/presets_speed.py`). A model with a layer that has
          no NumPy form (its class's `serving_form` is `"keras"`, e.g.
          `zoo.layers.TfIdf`) is refused with a `ValueError` naming it.
        - `"keras"`: `zoo.inference_function`, the backend's compiled
          forward pass.
        - `"auto"` (the default): `"numpy"` where every layer has a
          NumPy form, else `"keras"`; `runner` says which it chose.

        Both runners serve the model's current weights: the NumPy one
        holds a float32 copy and makes it again whenever the backend
        says a weight changed (`set_weights`, `load_weights`, `fit`, an
        assignment to a variable: `zoo.kernels`' `weights_probe`).
        Whether the model was compiled plays no part.
        """
        v.check_choice("runner", runner, RUNNERS)
        before = self.__dict__.get("_zoo_runner", "auto")
        with _LOCK:
            self.__dict__["_zoo_runner"] = runner
            object.__setattr__(self, "_zoo_compiled", {})
        if runner == "numpy":
            reason = self._numpy_refusal()
            if reason is not None:
                self.__dict__["_zoo_runner"] = before  # the choice stands
                raise ValueError(
                    f"runner='numpy' cannot serve {type(self).__name__} "
                    f"{self.name!r}: {reason} Use runner='keras' (or "
                    "'auto')."
                )
        return self

    @property
    def runner(self):
        """The runner that serves this model now: `"numpy"` or `"keras"`
        (`set_runner`; `"auto"` resolved on first use)."""
        asked = self.__dict__.get("_zoo_runner", "auto")
        if asked != "auto":
            return asked
        return self.cached_function(
            "auto",
            lambda: "keras" if self._numpy_refusal() else "numpy",
        )

    def _numpy_refusal(self):
        """Why the NumPy runner cannot serve this model (one sentence), or
        None: a layer whose class declares no NumPy form, else what the
        engine refused while making the model's function (kept)."""
        reason = engine.unsupported(self)
        if reason is not None:
            return reason
        try:
            self.numpy_check()
        except NotImplementedError as error:
            return str(error)
        return None

    def numpy_function(self):
        """The NumPy runner's forward pass of the current weights
        (`zoo.engine.function`)."""
        return self.fresh_function("engine", lambda: engine.function(self))

    def numpy_check(self):
        """Makes (and keeps) what the NumPy runner serves this model with;
        a `NotImplementedError` names what it cannot run."""
        self.numpy_function()

    def refresh(self):
        """Makes the NumPy runner copy the weights again on its next call.
        Needed only where the backend cannot see a change (see
        `weights_probe`): a TensorFlow variable updated by another
        model's optimizer."""
        with _LOCK:
            cache = self.__dict__.get("_zoo_compiled") or {}
            object.__setattr__(
                self,
                "_zoo_compiled",
                {k: x for k, x in cache.items() if not isinstance(x, _Fresh)},
            )
        return self

    def cached_function(self, key, make):
        """`make()`, made once per model and `key` and kept (thread-safe):
        what the runners make once (a compiled function, a decoder)."""
        cache = self.__dict__.get("_zoo_compiled")
        if cache is None or key not in cache:
            with _LOCK:
                cache = self.__dict__.get("_zoo_compiled")
                if cache is None:
                    cache = {}
                    # Untracked: a cache, not state Keras should save.
                    object.__setattr__(self, "_zoo_compiled", cache)
                if key not in cache:
                    cache[key] = make()
        return cache[key]

    def fresh_function(self, key, make):
        """`make()` of the model's current weights: made once, and made
        again after any weight changed (the NumPy runner's snapshots)."""
        return self.cached_function(key, lambda: _Fresh(self, make)).get()

    def infer(self, inputs):
        """The model's outputs (NumPy) for model inputs (an array, or a
        tuple or list of them), dropout off, token ids checked first, by
        the model's `runner`; under a `keras.distribution` (JAX's data
        parallelism), `predict_on_batch` on rows padded to a multiple of
        the devices."""
        if isinstance(inputs, tuple):
            inputs = list(inputs)  # a model with several inputs
        distribution = keras.distribution.distribution()
        if distribution is not None:
            return _on_devices(self, inputs, distribution)
        if self.runner == "keras":
            run = self.cached_function(
                "keras", lambda: inference.inference_function(self)
            )
            return run(inputs)
        inference.check_ids(
            self.cached_function("ids", self._id_checks), inputs
        )
        return self.numpy_function()(inputs)

    def _id_checks(self):
        return inference.id_checks(self)


class Words:
    """What a task whose preprocessor reads words shares (a tagger, a
    classifier, a biLM): its vocabulary and characters."""

    @property
    def vocabulary(self):
        """The preprocessor's `zoo.layers.TokenVocabulary`."""
        return self.preprocessor.vocabulary

    @property
    def characters(self):
        """The preprocessor's `zoo.layers.CharacterVocabulary`, or None."""
        return self.preprocessor.characters


class _Fresh:
    """What `make()` made of a model's weights, made again once the
    backend's `weights_probe` says they changed."""

    def __init__(self, model, make):
        self.make = make
        self.probe = dispatch.active().weights_probe(model)
        self.lock = threading.Lock()
        self.token, self.value = self.probe(), make()

    def get(self):
        token = self.probe()
        if token != self.token:
            with self.lock:
                if token != self.token:
                    # The token first: a write during `make` makes the
                    # next call build again rather than keep a mix.
                    self.token, self.value = token, self.make()
        return self.value


def _on_devices(model, inputs, distribution):
    arrays = inputs if isinstance(inputs, list) else [inputs]
    rows = len(arrays[0])
    extra = -rows % distribution.device_mesh.devices.size
    padded = [
        np.concatenate([a, np.zeros((extra, *a.shape[1:]), a.dtype)])
        for a in map(np.asarray, arrays)
    ]
    outputs = model.predict_on_batch(padded if len(padded) > 1 else padded[0])
    return keras.ops.convert_to_numpy(outputs)[:rows]
