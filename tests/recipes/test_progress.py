"""`recipes.progress.ProgressLog`: plain lines through an epoch and one
at its end, with a task's throughput, its words on the epoch's logs and
the run's ETA."""

import math

from recipes import progress
from recipes.language_model import task as lm_task


def run_epochs(log, epochs, steps, logs):
    for epoch in range(epochs):
        log.on_epoch_begin(epoch)
        for batch in range(steps):
            log.on_train_batch_end(batch, {"loss": 1.5})
        log.on_epoch_end(epoch, logs)


def test_lines_through_an_epoch_and_at_its_end():
    lines = []
    log = progress.ProgressLog(
        3,
        20,
        print_fn=lines.append,
        units=("words", 1000),
        describe=lambda logs: f"dev {logs['val_loss']:.2f}",
    )
    run_epochs(log, 3, 20, {"val_loss": 0.25})
    steps = [x for x in lines if " steps (" in x]
    ends = [x for x in lines if " done in " in x]
    assert len(steps) == 3 * 9  # a line every tenth, not at the last step
    assert steps[0].startswith("epoch 1/3: 2/20 steps (10%), loss 1.5000")
    assert len(ends) == 3
    assert ends[0].startswith("epoch 1/3 done in ")
    assert " words/s; dev 0.25; run ETA " in ends[0]
    assert "run ETA" not in ends[-1]  # nothing left after the last


def test_without_units_or_words_the_end_line_is_short():
    lines = []
    log = progress.ProgressLog(1, 4, print_fn=lines.append)
    run_epochs(log, 1, 4, {})
    assert lines[-1].startswith("epoch 1/1 done in ")
    assert ";" not in lines[-1]


def test_the_language_model_says_its_dev_perplexity():
    logs = {"val_forward_nll": math.log(120.0), "val_backward_nll": 5.0}
    said = lm_task._dev_perplexity(logs)
    assert said == (
        f"dev perplexity 120.0 forward, {math.exp(5.0):.1f} backward"
    )
    assert lm_task._dev_perplexity({"loss": 1.0}) == ""
