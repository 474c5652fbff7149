"""ULMFiT's `--fine-tune` (Howard and Ruder, 2018): the biLM fine-tuned on
the task's texts first (`LanguageModelStage`, a stage of the training
loop), then the classifier trained with discriminative rates and gradual
unfreezing (`fine_tune_optimizer`)."""

import json
import sys

import keras

import harness
import zoo
from harness import files
from harness import processes
from recipes import models
from recipes import settings

FINE_TUNE_TEXT = "fine_tune_text.txt"
FINE_TUNE_RUN = "language_model"
# The stage's settings, as `python -m recipes.language_model --config`
# reads them.
STAGE_CONFIG = "language_model.json"


class LanguageModelStage:
    """ULMFiT's first stage: the `--pretrained` biLM fine-tuned on the
    training texts (one a line in `FINE_TUNE_TEXT`) by
    `recipes.language_model` in `OUTPUT/language_model`, a run of its own
    (a rerun after a kill resumes or reuses it), for
    `--fine-tune-epochs`; the classifier then starts from it
    (`state.bilm`, and its perplexities in `state.fine_tune_metrics`)."""

    name = "fine-tune the biLM"

    def __init__(self, config, state):
        self.config = config
        self.state = state

    def run(self, output):
        config, state = self.config, self.state
        text = output / FINE_TUNE_TEXT
        lines = (" ".join(str(t).split()) for t, _ in state.data.train)
        files.write_text(text, "\n".join(line for line in lines if line))
        stage = {
            "output": str(output / FINE_TUNE_RUN),
            "corpora": "",
            "text_file": str(text),
            "init_from": config.pretrained,
            "epochs": config.fine_tune_epochs,
            "shards": 1,
            "lr_schedule": "slanted",
            "ema": config.ema,
            "seed": config.seed,
            "quick": config.quick,
            "tensorboard": False,
        }
        settings_file = output / STAGE_CONFIG
        files.write_text(settings_file, json.dumps(stage, indent=1))
        # The language-model recipe as its own command, as a user would
        # chain the two (the recipes stand alone: neither imports the
        # other); its run folder resumes or is reused on a rerun.
        command = [
            sys.executable, "-m", "recipes.language_model",
            "--config", str(settings_file),
            "--backend", keras.backend.backend(),
        ]  # fmt: skip
        print(
            f"--fine-tune: the biLM on the {len(state.data.train)} training "
            f"texts first ({output / FINE_TUNE_RUN})",
            flush=True,
        )
        with processes.Supervisor(kind="stage") as group:
            group.start("biLM", command)
            code = group.wait()
        if code != 0:
            raise harness.UsageError(
                f"--fine-tune: the biLM's stage ({' '.join(command[1:5])}) "
                f"exited with {processes.describe(code)}; its lines above "
                "say why (its --init-from is this run's --pretrained)"
            )
        metrics = json.loads(
            (output / FINE_TUNE_RUN / "metrics.json").read_text()
        )
        state.bilm = models.load_language_model(
            output / FINE_TUNE_RUN, "--fine-tune"
        )
        state.fine_tune_metrics = {
            k: metrics[k]
            for k in ("test_forward_perplexity", "test_backward_perplexity")
            if k in metrics
        }
        return [FINE_TUNE_TEXT, STAGE_CONFIG, FINE_TUNE_RUN]


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
        **settings.averaging(config),
    )
