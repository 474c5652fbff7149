"""Runs recipes with `--distribute mirrored` on several local devices,
and the same recipe on one device with the same global batch, then prints
what the test compares, as JSON on the last line.

    python -m tests.recipes.distributed_check tagging CORPUS_DIR OUT_DIR
    python -m tests.recipes.distributed_check others CORPUS_DIR OUT_DIR
    python -m tests.recipes.distributed_check tagging CORPUS OUT --alone \
        --per-replica 8
    TF_CONFIG=... python -m tests.recipes.distributed_check keras-72388

Devices must be set up before TensorFlow (or JAX) initialises them, so
this runs in its own process: two logical CPU devices on TensorFlow
(`tf.config.set_logical_device_configuration`); on JAX the caller sets
`XLA_FLAGS=--xla_force_host_platform_device_count=N` instead.

`keras-72388` is one worker of a multi-worker cluster (`TF_CONFIG`, one
CPU device): Keras's `fit` on a plain model, then on
`recipes.trainer.Trainer` with `rank_one_logs`.
"""

import csv
import json
import pathlib
import sys

import keras

# Every run here: two epochs of a small model, no TensorBoard logs.
TINY = {"epochs": 2, "units": 8, "embedding_dim": 8, "tensorboard": False}


def logical_cpus(count):
    import tensorflow as tf

    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration()] * count
    )


def log_rows(output):
    with (pathlib.Path(output) / "log.csv").open() as handle:
        return [
            {k: float(v) for k, v in row.items() if k != "epoch"}
            for row in csv.DictReader(handle)
        ]


def weights_difference(first, second):
    import numpy as np

    a = keras.saving.load_model(first, safe_mode=True, compile=False)
    b = keras.saving.load_model(second, safe_mode=True, compile=False)
    return max(
        float(np.abs(x - y).max())
        for x, y in zip(a.get_weights(), b.get_weights())
    )


def tagging(corpus, out, per_replica=4, one_device=True):
    from recipes import tagging

    # No dropout: masks drawn per replica differ from one device's.
    common = dict(
        TINY,
        corpus_dir=corpus,
        learning_rate=0.01,
        inter_layer_dropout=0.0,
        embedding_dropout=0.0,
    )
    out = pathlib.Path(out)
    mirrored = tagging.run(
        tagging.Config(
            output=str(out / "mirrored"), batch_size=per_replica, **common
        ),
        distribute="mirrored",
    )
    replicas = mirrored["distribute"]["replicas"]
    result = {"distribute": mirrored["distribute"]}
    result["mirrored"] = log_rows(out / "mirrored")
    result["mirrored_test"] = [mirrored["test_loss"], mirrored["test_accuracy"]]
    if one_device:
        single = tagging.run(
            tagging.Config(
                output=str(out / "one"),
                batch_size=per_replica * replicas,
                **common,
            ),
        )
        result["one"] = log_rows(out / "one")
        result["one_test"] = [single["test_loss"], single["test_accuracy"]]
        result["weights_difference"] = weights_difference(
            out / "mirrored" / "model.keras", out / "one" / "model.keras"
        )
    return result


def others(corpus, out):
    """The classifier and the G2P model train and save under mirrored."""
    from recipes import classification
    from recipes import g2p
    from recipes.data import cmudict
    from tests.recipes.test_classification import write_csv
    from tests.recipes.test_g2p_recipe import tiny_config
    from tests.recipes.test_g2p_recipe import write_dictionary

    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    words = write_dictionary(out / "cmudict.dict")
    cmudict.load = lambda stress=False, **kw: cmudict.read_cmudict(
        words, stress=stress
    )
    csv_path = write_csv(out / "texts.csv")
    metrics = classification.run(
        classification.Config(
            dataset="csv",
            train_file=str(csv_path),
            output=str(out / "classification"),
            batch_size=8,
            **TINY,
        ),
        distribute="mirrored",
    )
    spoken = g2p.run(tiny_config(out / "g2p", epochs=2), distribute="mirrored")
    return {
        "classification": {
            k: metrics[k] for k in ("test_accuracy", "distribute")
        },
        "seq2seq": {k: spoken[k] for k in ("test_per", "distribute")},
    }


def keras_72388():
    """Keras's `fit` under a `MultiWorkerMirroredStrategy` of 2 workers
    (this process is one of them): the error of a model built in the
    strategy's scope (None if it trains), the error of the recipes'
    `Trainer` without `rank_one_logs` (tensorflow/tensorflow#72388), and
    the losses of the `Trainer` with it (the workaround)."""
    import numpy as np
    import tensorflow as tf

    from recipes import distributed

    cluster = distributed.read_tf_config()
    strategy = tf.distribute.MultiWorkerMirroredStrategy(
        cluster_resolver=cluster.resolver
    )
    x = np.linspace(-1, 1, 48, dtype="float32").reshape(16, 3)
    y = x.sum(axis=1, keepdims=True)
    data = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)

    def dense():
        return keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])

    def error_of(model):
        try:
            model.fit(data, epochs=1, verbose=0)
        except ValueError as error:
            return str(error)
        return None

    def trainer(rank_one_logs):
        with strategy.scope():
            body = dense()
        model = trainer.Trainer(
            body, strategy=strategy, rank_one_logs=rank_one_logs
        )
        with strategy.scope():
            model.compile(optimizer="sgd", loss="mse")
            model(x[:1])
            model.optimizer.build(model.trainable_variables)
        return model

    with strategy.scope():
        in_scope = dense()
        in_scope.compile(optimizer="sgd", loss="mse")
    result = {
        "worker": cluster.worker_index,
        "in_scope_error": error_of(in_scope),
        "scalar_logs_error": error_of(trainer(rank_one_logs=False)),
    }
    history = trainer(rank_one_logs=True).fit(data, epochs=2, verbose=0)
    result["rank_one_loss"] = [float(v) for v in history.history["loss"]]
    return result


def main(argv):
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=("tagging", "others", "keras-72388"))
    parser.add_argument("corpus", nargs="?")
    parser.add_argument("out", nargs="?")
    parser.add_argument("--per-replica", type=int, default=4)
    parser.add_argument(
        "--alone",
        action="store_true",
        help="no one-device run (on JAX, whose recipes train only under "
        "--distribute)",
    )
    args = parser.parse_args(argv)
    if args.what == "keras-72388":
        print(json.dumps(keras_72388()))
        return
    if keras.backend.backend() == "tensorflow":
        logical_cpus(2)
    if args.what == "tagging":
        result = tagging(
            args.corpus,
            args.out,
            per_replica=args.per_replica,
            one_device=not args.alone,
        )
    else:
        result = others(args.corpus, args.out)
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
