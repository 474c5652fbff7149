"""Recipe training speed on TensorFlow, JAX and PyTorch, side by side.

    python benchmarks/recipe_speed.py [--steps 30] [--repeats 3]

Trains each recipe's *default model* (the one `python -m recipes.tagging
--pretrained none` and `python -m recipes.g2p` build; the tagger's
default biLM is timed on its own by `benchmarks/bilm_speed.py`) for a
fixed number of steps on its own batches (`recipes.task.Recipe`: the same
data pipeline the recipe feeds `fit`, here on the `--quick` subset of
the data so that loading is fast; the model and batch size are the
defaults), once per backend in a fresh process each (Keras fixes its
backend at import), alternating the backends round by round. Prints
examples/s (sentences or words per second; medians over the repeats) and
the ratio to TensorFlow, and writes
`benchmarks/results/recipes_cpu.json`.

Each worker builds and compiles the model, runs `--warmup` steps (JAX
compiles, TensorFlow traces) and then times `--steps` calls of
`train_on_batch`, the step that `fit` runs.
"""

import argparse
import dataclasses
import importlib
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

BACKENDS = ("tensorflow", "jax", "torch")
RESULTS = pathlib.Path("benchmarks/results")


def worker(task_name, steps, warmup):
    """Runs in a fresh process: times `steps` training steps; prints JSON."""
    # Keras and what imports it, only here: this process chose its
    # backend (KERAS_BACKEND) first; the parent never imports Keras.
    import keras

    from recipes import pipeline

    recipe = importlib.import_module(f"recipes.{task_name}")
    task = recipe.TASK
    # The stack without a biLM (its speed: benchmarks/bilm_speed.py).
    fields = {f.name for f in dataclasses.fields(recipe.Config)}
    extra = {"pretrained": "none"} if "pretrained" in fields else {}
    config = recipe.Config(
        quick=True, output="/tmp/unused", tensorboard=False, **extra
    )
    keras.utils.set_random_seed(0)
    state = task.prepare(config)
    model = task.compile(task.build(config, state), config)
    train, _, _ = task.datasets(
        config,
        state,
        config.batch_size,
        pad_to=pipeline.rows_multiple(
            config.batch_size, keras.backend.backend()
        ),
    )
    batches = [train[i % len(train)] for i in range(warmup + steps)]
    for x, y, w in batches[:warmup]:
        model.train_on_batch(x, y, sample_weight=w)
    examples = 0
    start = time.perf_counter()
    for x, y, w in batches[warmup:]:
        model.train_on_batch(x, y, sample_weight=w)
        examples += int((w.reshape(len(w), -1).sum(axis=1) > 0).sum())
    seconds = time.perf_counter() - start
    print(
        json.dumps(
            {
                "backend": keras.backend.backend(),
                "task": task_name,
                "examples_per_s": examples / seconds,
                "seconds": seconds,
                "steps": steps,
                "params": model.count_params(),
            }
        )
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tasks", default="tagging,seq2seq")
    parser.add_argument("--backends", default=",".join(BACKENDS))
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.worker, args.steps, args.warmup)
    root = pathlib.Path(__file__).resolve().parents[1]
    tasks = args.tasks.split(",")
    backends = args.backends.split(",")
    runs = []
    for repeat in range(args.repeats):
        for task in tasks:
            for backend in backends:
                env = {
                    **os.environ,
                    "KERAS_BACKEND": backend,
                    "PYTHONPATH": str(root),
                    "TF_CPP_MIN_LOG_LEVEL": "3",
                }
                result = subprocess.run(
                    [sys.executable, __file__, "--worker", task,
                     "--steps", str(args.steps), "--warmup", str(args.warmup)],
                    env=env, cwd=root, capture_output=True, text=True,
                )  # fmt: skip
                if result.returncode:
                    sys.exit(f"{task} on {backend}: {result.stderr[-800:]}")
                row = json.loads(result.stdout.strip().splitlines()[-1])
                row["repeat"] = repeat
                runs.append(row)
                print(
                    f"repeat {repeat} {task:>8} {backend:>10}: "
                    f"{row['examples_per_s']:8.1f} examples/s",
                    flush=True,
                )
    command = "python benchmarks/recipe_speed.py " + " ".join(sys.argv[1:])
    print(f"\n{command}\n")
    print("| task | backend | examples/s (median) | ratio to TensorFlow |")
    print("|---|---|---|---|")
    table = []
    for task in tasks:
        medians = {
            b: statistics.median(
                r["examples_per_s"]
                for r in runs
                if r["task"] == task and r["backend"] == b
            )
            for b in backends
        }
        base = medians.get("tensorflow")
        for b in backends:
            ratio = medians[b] / base if base else float("nan")
            row = {"task": task, "backend": b, "median": medians[b]}
            table.append({**row, "ratio": ratio})
            print(f"| {task} | {b} | {medians[b]:.1f} | {ratio:.2f} |")
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = root / RESULTS / "recipes_cpu.json"
    out.write_text(
        json.dumps({"command": command, "runs": runs, "table": table}, indent=2)
    )
    print(f"\nwrote {out.relative_to(root)}")


if __name__ == "__main__":
    main()
