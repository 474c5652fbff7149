"""`TaggerEnsemble`: several trained taggers (seeds, checkpoints) that
tag as one, their outputs averaged before the tags are chosen."""

import numpy as np

from zoo import engine
from zoo.tasks.tagger import SentenceTagging
from zoo.tasks.tagger import Tagger
from zoo.tasks.tagger import best_tags
from zoo.tasks.task import check_list


class TaggerEnsemble(SentenceTagging):
    """Taggers over the same tags, used as one: each word's outputs are
    averaged over the members (softmax probabilities; a CRF tagger's
    emission scores, decoded by Viterbi over the members' averaged
    transition scores), then the best tag is taken.

    Each member reads the words with its own vocabulary, characters and
    token features, so runs with different vocabularies can join. Not a
    `keras.Model`: save the members, and build the ensemble again from
    them (`TaggerEnsemble.from_presets`). Each member serves on its own
    runner, with its current weights; a CRF ensemble's transition scores
    are read at each call (a few small arrays).

    Args:
        taggers: two or more `zoo.tasks.Tagger`s with the same labels and
            the same kind of head.

    Example:
    ```python
    runs = ["runs/wnut_s0", "runs/wnut_s1", "runs/wnut_s2"]
    ensemble = zoo.tasks.TaggerEnsemble(
        [keras.saving.load_model(f"{run}/model.keras") for run in runs]
    )
    ensemble.tag(["Taylor Swift plays Madison Square Garden tonight"])
    ```
    """

    def __init__(self, taggers):
        check_list("taggers", taggers, "a list of zoo.tasks.Tagger")
        taggers = list(taggers)
        for i, tagger in enumerate(taggers):
            if not isinstance(tagger, Tagger):
                raise TypeError(
                    f"`taggers[{i}]` must be a zoo.tasks.Tagger; received "
                    f"{type(tagger).__name__}."
                )
        if len(taggers) < 2:
            raise ValueError(
                "`taggers` must hold at least two taggers to average; "
                f"received {len(taggers)}."
            )
        labels = list(taggers[0].labels)
        conventions = taggers[0].preprocessor.conventions
        for i, tagger in enumerate(taggers[1:], 1):
            if list(tagger.labels) != labels:
                raise ValueError(
                    f"`taggers[{i}]` tags with {list(tagger.labels)[1:]}, "
                    f"`taggers[0]` with {labels[1:]}: an ensemble's members "
                    "must share their labels."
                )
            if tagger.preprocessor.conventions != conventions:
                raise ValueError(
                    f"`taggers[{i}]` reads text by the conventions "
                    f"{tagger.preprocessor.conventions!r}, `taggers[0]` "
                    f"by {conventions!r}: an ensemble's members must "
                    "share them."
                )
            if (tagger.crf is None) != (taggers[0].crf is None):
                raise ValueError(
                    f"`taggers[{i}]` and `taggers[0]` differ in their "
                    "heads (a CRF and a softmax): their outputs cannot be "
                    "averaged."
                )
        self.taggers = taggers
        self.labels = labels

    @classmethod
    def from_presets(cls, presets, **kwargs):
        """An ensemble of `zoo.tasks.Tagger.from_preset(p)` for each `p`
        (a shipped preset's name or a preset folder)."""
        check_list("presets", presets, "a list of presets")
        return cls([Tagger.from_preset(p, **kwargs) for p in presets])

    def text_conventions(self):
        """The members' training corpus's conventions, or None."""
        return self.taggers[0].text_conventions()

    def batch_tag_ids(self, sentences):
        outputs = [t.infer(t.encode(sentences)) for t in self.taggers]
        real = self.taggers[0].vocabulary.encode(sentences) > 0
        decode = None  # a CRF ensemble: Viterbi over averaged transitions
        if self.taggers[0].crf is not None:
            decode = engine.crf_decoder([t.crf for t in self.taggers])
        return best_tags(np.mean(outputs, axis=0), real, decode)
