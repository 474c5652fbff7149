"""OpenNMT-py's RNN encoder-decoder on the translation recipe's split,
pieces and scorer, beside the recipe's run.

    python -m benchmarks.translation_peer runs/translation \\
        --onmt .venv-opennmt --work runs/onmt_peer

Reads the recipe run's `config.json` (it is written when the run
starts, so the peer can train while the recipe does), loads the same
split (`recipes.translation.task.load_pairs`) and the same SentencePiece
models (`recipes.data.parallel.subword_models`: the data cache's, learned
on the training side), writes the pieces as OpenNMT's text files (the
training pairs the recipe leaves out as too long left out here too),
and runs OpenNMT-py's own commands from its environment (`--onmt`, see
`benchmarks/opennmt/README.md`): `onmt_build_vocab`, `onmt_train` (a
bidirectional LSTM encoder, an LSTM decoder with global `general`
attention, as many layers as the recipe, `--hidden-size` chosen for a
comparable parameter count, Adam at the recipe's learning rate, the
recipe's dropout, batch and number of passes), `onmt_translate` (beam
search of the recipe's width and length limit). The pieces it writes are
joined back into text by the same `Subwords` and scored by the same
`recipes.scoring.translation_scores` (sacrebleu BLEU and chrF).

Resumable: each finished step leaves its files in `--work`; a killed
training continues from its last checkpoint (`-train_from`, saved every
`--checkpoint-steps`). Prints the peer's numbers and, once the recipe's
`metrics.json` exists, both side by side; writes them to `--output`
(default `benchmarks/results/translation.json`).
"""

import argparse
import json
import math
import os
import pathlib
import re
import subprocess
import sys
import time

import harness
from harness import files
from recipes import scoring
from recipes.translation import task as translation
from recipes.translation.config import Config

SIDES = ("src", "tgt")
SPLITS = ("train", "valid", "test")


def add_run_arguments(parser, work_help):
    """The recipe's run folder, `--onmt` and `--work` (shared with
    `benchmarks.translation_decoding`)."""
    parser.add_argument("run", help="the recipe's run folder")
    parser.add_argument(
        "--onmt",
        default=".venv-opennmt",
        help="OpenNMT-py's virtual environment (default: %(default)s)",
    )
    parser.add_argument(
        "--work",
        default="runs/onmt_peer",
        help=f"{work_help} (default: %(default)s)",
    )


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.translation_peer",
        description=__doc__.split("\n\n")[0],
    )
    add_run_arguments(parser, "the peer's folder")
    parser.add_argument(
        "--hidden-size",
        type=int,
        default=384,
        help="OpenNMT's hidden_size (the encoder's two directions share "
        "it; default %(default)s: about the recipe default's 11 M "
        "parameters)",
    )
    parser.add_argument(
        "--epochs",
        type=int,
        default=0,
        help="passes over the training pairs (default: the run's --epochs)",
    )
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--checkpoint-steps", type=int, default=200)
    parser.add_argument(
        "--output", default="benchmarks/results/translation.json"
    )
    return parser.parse_args(argv)


def write_data(config, work):
    """The split as piece files; returns the state and the number of
    training pairs."""
    state = translation.TASK.prepare(config)
    data = work / "data"
    data.mkdir(parents=True, exist_ok=True)
    parts = {
        "train": translation.encoded(state, state.train, config, limit=True),
        "valid": translation.encoded(state, state.dev, config, limit=False),
    }
    for split, pairs in parts.items():
        for index, (side, pieces) in enumerate(
            zip(SIDES, (state.source, state.target))
        ):
            names = pieces.pieces()
            lines = [" ".join(names[i] for i in pair[index]) for pair in pairs]
            _write_lines(data / f"{split}.{side}", lines)
    names = state.source.pieces()
    test = [
        " ".join(names[i] for i in state.source.encode([p.source])[0])
        for p in state.test
    ]
    _write_lines(data / "test.src", test)
    return state, len(parts["train"])


def _write_lines(path, lines):
    text = "".join(f"{line}\n" for line in lines)
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def yaml_config(config, work, args, train_steps):
    layers = config.num_layers
    return f"""# written by benchmarks/translation_peer.py
save_data: {work}/samples
src_vocab: {work}/vocab.src
tgt_vocab: {work}/vocab.tgt
src_vocab_size: {config.vocabulary_size}
tgt_vocab_size: {config.vocabulary_size}
overwrite: true
data:
  corpus_1:
    path_src: {work}/data/train.src
    path_tgt: {work}/data/train.tgt
  valid:
    path_src: {work}/data/valid.src
    path_tgt: {work}/data/valid.tgt
model_type: text
encoder_type: brnn
decoder_type: rnn
rnn_type: LSTM
global_attention: general
word_vec_size: {config.embedding_dim}
hidden_size: {args.hidden_size}
layers: {layers}
dropout: [{config.inter_layer_dropout}]
world_size: 1
save_model: {work}/model
save_checkpoint_steps: {args.checkpoint_steps}
keep_checkpoint: 2
train_steps: {train_steps}
valid_steps: {train_steps}
report_every: 50
batch_type: sents
batch_size: {config.batch_size}
valid_batch_size: {config.batch_size}
bucket_size: 8192
num_workers: 0
optim: adam
learning_rate: {config.learning_rate}
max_grad_norm: 5
seed: {config.seed}
"""


def check_inputs(work):
    """Refuses a `--work` folder whose files came from other data or
    settings (its `inputs.sha256`, written on first use, against the
    digest of `peer.yaml` and the data files now), so a reused folder
    never reports another peer's scores."""
    names = ["peer.yaml"] + sorted(
        f"data/{split}.{side}" for split in SPLITS for side in SIDES
        if (work / "data" / f"{split}.{side}").is_file()
    )  # fmt: skip
    digest = files.digest([(work / name).read_text("utf-8") for name in names])
    stored = work / "inputs.sha256"
    if not stored.is_file():
        stored.write_text(digest, encoding="utf-8")
    elif stored.read_text(encoding="utf-8").strip() != digest:
        raise harness.UsageError(
            f"--work {work}: it holds a peer trained on other data or "
            "settings (its inputs.sha256 differs); pass another --work, or "
            "delete the folder to train this one there"
        )


def _env(args):
    env = dict(os.environ)
    env.update(
        OMP_NUM_THREADS=str(args.threads),
        MKL_NUM_THREADS=str(args.threads),
        TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD="1",
        PYTHONWARNINGS="ignore::FutureWarning",
    )
    return env


def _run(args, command, log):
    tool = pathlib.Path(args.onmt) / "bin" / command[0]
    if not tool.is_file():
        raise harness.UsageError(
            f"--onmt {args.onmt}: no {command[0]} there (install OpenNMT-py "
            "as benchmarks/opennmt/README.md says)"
        )
    with open(log, "a", encoding="utf-8") as out:
        done = subprocess.run(
            [str(tool), *command[1:]],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=_env(args),
        )
    if done.returncode:
        raise harness.UsageError(
            f"{command[0]} failed (exit {done.returncode}); see {log}"
        )


def _last_checkpoint(work):
    found = [
        (int(m.group(1)), path)
        for path in work.glob("model_step_*.pt")
        if (m := re.fullmatch(r"model_step_(\d+)\.pt", path.name))
    ]
    return max(found, default=(0, None))


def train(args, work, train_steps):
    """`onmt_train` to `train_steps`, resumed from the last checkpoint;
    returns the wall seconds of all its sessions."""
    times = work / "train_seconds.json"
    spent = json.loads(times.read_text()) if times.is_file() else []
    step, checkpoint = _last_checkpoint(work)
    if step < train_steps:
        command = ["onmt_train", "-config", str(work / "peer.yaml")]
        if checkpoint is not None:
            command += ["-train_from", str(checkpoint)]
        started = time.perf_counter()
        _run(args, command, work / "train.log")
        spent.append(round(time.perf_counter() - started, 1))
        files.write_json(times, spent)
    return sum(spent)


def params(work):
    text = (work / "train.log").read_text(encoding="utf-8", errors="replace")
    found = re.findall(r"number of parameters: (\d+)", text)
    return int(found[-1]) if found else None


def translate_command(config, checkpoint, source, output):
    """`onmt_translate`'s command line: beam search of the recipe's
    width and length limit, batches of 64 (shared with
    `benchmarks.translation_decoding`)."""
    return [
        "onmt_translate",
        "-model",
        str(checkpoint),
        "-src",
        str(source),
        "-output",
        str(output),
        "-beam_size",
        str(config.beam_width),
        "-max_length",
        str(config.max_target_length),
        "-batch_size",
        "64",
    ]


def read_translations(state, output):
    """The texts of the pieces `onmt_translate` wrote to `output`, joined
    by the recipe's `Subwords` (an unknown piece as id 1)."""
    pieces = output.read_text(encoding="utf-8").splitlines()
    ids = {p: i for i, p in enumerate(state.target.pieces())}
    return state.target.decode(
        [[ids.get(p, 1) for p in line.split()] for line in pieces]
    )


def translate(args, config, state, work, train_steps):
    output = work / "test.pred"
    if not output.is_file():
        started = time.perf_counter()
        _run(
            args,
            translate_command(
                config,
                work / f"model_step_{train_steps}.pt",
                work / "data" / "test.src",
                str(output) + ".partial",
            ),
            work / "translate.log",
        )
        seconds = time.perf_counter() - started
        files.write_json(work / "translate_seconds.json", round(seconds, 1))
        os.replace(str(output) + ".partial", output)
    seconds = json.loads((work / "translate_seconds.json").read_text())
    return read_translations(state, output), seconds


def run_config(run):
    """The recipe's `Config` from `run/config.json`."""
    values = json.loads((run / "config.json").read_text(encoding="utf-8"))
    fields = Config.__dataclass_fields__
    return Config(**{k: v for k, v in values.items() if k in fields})


def main(argv=None):
    args = parse_args(argv)
    run = pathlib.Path(args.run)
    config = run_config(run)
    work = pathlib.Path(args.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    state, kept = write_data(config, work)
    epochs = args.epochs or config.epochs
    train_steps = epochs * math.ceil(kept / config.batch_size)
    (work / "peer.yaml").write_text(
        yaml_config(config, work, args, train_steps), encoding="utf-8"
    )
    check_inputs(work)
    built = (work / "vocab.done").is_file() or (
        _last_checkpoint(work)[1] is not None  # trained: the vocabulary was
    )
    if not built:
        _run(
            args,
            ["onmt_build_vocab", "-config", str(work / "peer.yaml"),
             "-n_sample", "-1"],
            work / "vocab.log",
        )  # fmt: skip
        (work / "vocab.done").write_text("", encoding="utf-8")
    seconds = train(args, work, train_steps)
    texts, decode_seconds = translate(args, config, state, work, train_steps)
    scores = scoring.translation_scores(texts, [p.target for p in state.test])
    target_pieces = sum(
        len(pair[1])
        for pair in translation.encoded(state, state.train, config, limit=True)
    )
    peer = {
        "system": "OpenNMT-py 3.5.1 rnn (brnn encoder, global general "
        "attention)",
        "params": params(work),
        "hidden_size": args.hidden_size,
        "train_steps": train_steps,
        "epochs": epochs,
        "train_seconds": round(seconds, 1),
        "train_target_pieces_per_second": round(
            epochs * target_pieces / max(seconds, 1e-9), 1
        ),
        "test_bleu": round(scores["bleu"], 2),
        "test_chrf": round(scores["chrf"], 2),
        "decode_seconds": decode_seconds,
        "decode_sentences_per_second": round(
            len(texts) / max(decode_seconds, 1e-9), 2
        ),
        "threads": args.threads,
    }
    result = {"command": " ".join(["python -m benchmarks.translation_peer",
                                   *(argv or sys.argv[1:])]),
              "run": str(run), "peer": peer}  # fmt: skip
    metrics_file = run / "metrics.json"
    if metrics_file.is_file():
        ours = json.loads(metrics_file.read_text())
        result["recipe"] = {
            "params": ours["params"],
            "epochs": ours["epochs_run"],
            "train_seconds": ours["train_seconds"],
            "train_target_pieces_per_second": round(
                ours["epochs_run"]
                * target_pieces
                / max(ours["train_seconds"], 1e-9),
                1,
            ),
            "test_bleu": ours["test_bleu"],
            "test_chrf": ours["test_chrf"],
            "decode_seconds": ours["beam_decode_seconds"],
            "decode_sentences_per_second": ours["beam_sentences_per_second"],
            "backend": ours["backend"],
        }
    for name in ("recipe", "peer"):
        if name in result:
            row = result[name]
            print(
                f"{name:>7}: BLEU {row['test_bleu']:.2f}, chrF "
                f"{row['test_chrf']:.2f}, {row['params']} params, "
                f"{row['train_target_pieces_per_second']} target pieces/s "
                f"training, {row['decode_sentences_per_second']} "
                "sentences/s decoding (beam)"
            )
    files.write_json(args.output, result)
    print(f"wrote {args.output}")
    return result


if __name__ == "__main__":
    harness.run_cli(main, sys.argv[1:])
