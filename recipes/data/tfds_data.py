"""TensorFlow Datasets as a source for the recipes: `--dataset tfds:NAME`.

For users whose machines can download, or who have prepared a TFDS
`data_dir` elsewhere and copied it over. Nothing here is used by the
default datasets, which come from installed packages. The examples are
read once into Python lists so that every source reaches the recipes in
the same form (`(words, tags)` sentences or `(text, label)` pairs).

Splits: the dataset's own `train` and test split, and its validation
split if it has one (`validation`, `dev` or `valid`); otherwise the last
10% of `train` is held out for validation (TFDS slicing, deterministic).
"""

from recipes.data.errors import DataError

DEV_NAMES = ("validation", "dev", "valid")


def _tfds():
    try:
        import tensorflow_datasets as tfds
    except ImportError as error:
        raise DataError(
            "--dataset tfds:NAME needs tensorflow-datasets: "
            "pip install 'stacked-rnn-zoo[tfds]'"
        ) from error
    return tfds


def _text(value):
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _word(value):
    # The recipes split raw text on whitespace: a token must not hold any.
    return "_".join(_text(value).split()) or "_"


def load(name, data_dir=None, splits=None):
    """`({split: dataset}, info)` for the train, dev and test splits.

    `splits` names them explicitly (three TFDS split strings); by default
    they are read from the dataset's info as the module docstring says.
    """
    tfds = _tfds()
    try:
        builder = tfds.builder(name, data_dir=data_dir or None)
    except Exception as error:  # noqa: BLE001 - TFDS raises many kinds
        raise DataError(
            f"--dataset tfds:{name}: {_first_line(error)}"
        ) from error
    info = builder.info
    if splits is None:
        available = list(info.splits) if info.splits else []
        if not available:
            available = ["train", "validation", "test"]
        dev = next((s for s in DEV_NAMES if s in available), None)
        if "train" not in available or "test" not in available:
            raise DataError(
                f"--dataset tfds:{name} has splits {available}; the recipes "
                "need 'train' and 'test'"
            )
        if dev:
            splits = ("train", dev, "test")
        else:
            splits = ("train[:90%]", "train[90%:]", "test")
    try:
        datasets = tfds.load(
            name, split=list(splits), data_dir=data_dir or None
        )
    except Exception as error:  # noqa: BLE001 - download or prepare failed
        raise DataError(
            f"--dataset tfds:{name}: cannot load ({_first_line(error)}); "
            "without network access, prepare it elsewhere and pass "
            "--tfds-data-dir"
        ) from error
    return dict(zip(("train", "dev", "test"), datasets)), info


def _first_line(error):
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def _feature(info, name, key, kind):
    features = info.features
    if key not in features:
        raise DataError(
            f"--dataset tfds:{name} has no feature {key!r} ({kind}); its "
            f"features: {sorted(features.keys())}"
        )
    return features[key]


def _names(feature):
    """Label names of a ClassLabel (or a Sequence of them), else None."""
    inner = getattr(feature, "feature", feature)
    return list(inner.names) if hasattr(inner, "names") else None


def tagging(name, tokens="tokens", tags="pos", data_dir=None, splits=None):
    """`(train, dev, test)` lists of `(words, tags)` from a TFDS dataset."""
    tfds = _tfds()
    datasets, info = load(name, data_dir, splits)
    _feature(info, name, tokens, "--tfds-tokens-feature")
    names = _names(_feature(info, name, tags, "--tfds-tags-feature"))
    result = []
    for split, ds in datasets.items():
        sentences = []
        for index, example in enumerate(tfds.as_numpy(ds)):
            words = [_word(w) for w in example[tokens]]
            labels = [
                names[int(t)] if names else _text(t) for t in example[tags]
            ]
            if len(words) != len(labels):
                raise DataError(
                    f"tfds:{name} {split} example {index}: {len(words)} "
                    f"tokens but {len(labels)} {tags!r} tags"
                )
            if words:
                sentences.append((words, labels))
        result.append(sentences)
    return tuple(result)


def classification(name, text=None, label=None, data_dir=None, splits=None):
    """`(train, dev, test)` lists of `(text, label)` from a TFDS dataset.

    `text` and `label` default to the dataset's supervised keys.
    """
    tfds = _tfds()
    datasets, info = load(name, data_dir, splits)
    keys = info.supervised_keys or (None, None)
    text = text or keys[0] or "text"
    label = label or keys[1] or "label"
    _feature(info, name, text, "--tfds-text-feature")
    names = _names(_feature(info, name, label, "--tfds-label-feature"))
    result = []
    for ds in datasets.values():
        result.append(
            [
                (
                    _text(example[text]),
                    names[int(example[label])]
                    if names
                    else _text(example[label]),
                )
                for example in tfds.as_numpy(ds)
            ]
        )
    return tuple(result)
