"""ULMFiT's `--fine-tune` (Howard and Ruder, 2018): the biLM fine-tuned on
the task's texts first (`LanguageModelStage`, a stage of the training
loop), then the classifier trained with discriminative rates and gradual
unfreezing (`fine_tune_optimizer`)."""

import zoo
from harness import files
from recipes import checkpoints
from recipes import models
from recipes import settings
from recipes.language_model import config as lm_config
from recipes.language_model import task as lm_task

FINE_TUNE_TEXT = "fine_tune_text.txt"
FINE_TUNE_RUN = "language_model"


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
        stage_config = lm_config.Config(
            output=str(output / FINE_TUNE_RUN),
            corpora="",
            text_file=str(text),
            init_from=config.pretrained,
            epochs=config.fine_tune_epochs,
            shards=1,
            lr_schedule="slanted",
            ema=config.ema,
            seed=config.seed,
            quick=config.quick,
            tensorboard=False,
        )
        print(
            f"--fine-tune: the biLM on the {len(state.data.train)} training "
            f"texts first ({output / FINE_TUNE_RUN})",
            flush=True,
        )
        try:
            metrics = lm_task.run(stage_config)
        except checkpoints.BackupError as error:
            # The stage's own flags are the language model's: say it in
            # the classifier's (the biLM came from --pretrained).
            raise checkpoints.BackupError(
                f"--fine-tune, the biLM's stage in {output / FINE_TUNE_RUN}: "
                + str(error).replace(
                    f"--init-from {config.pretrained}",
                    f"--pretrained {config.pretrained}",
                )
            ) from None
        state.bilm = models.load_language_model(
            output / FINE_TUNE_RUN, "--fine-tune"
        )
        state.fine_tune_metrics = {
            k: metrics[k]
            for k in ("test_forward_perplexity", "test_backward_perplexity")
            if k in metrics
        }
        return [FINE_TUNE_TEXT, FINE_TUNE_RUN]


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
