"""How the recipes score predictions (and what the classical peers in
`benchmarks/baselines.py` are scored with, on the same splits).

- tagging: token accuracy, and entity span precision, recall and F1
  (seqeval's default, conlleval-compatible span matching);
- grapheme-to-phoneme: the phoneme error rate (edit distance to the
  closest reference pronunciation) and the word error rate (no reference
  matched);
- translation: corpus BLEU and chrF of detokenised text (sacrebleu).
"""

from harness import extras


def token_accuracy(sentences, predicted):
    """The share of tokens whose predicted tag is the true one;
    `sentences` are `(words, tags)`, `predicted` a tag list per sentence."""
    pairs = [
        (p, t)
        for (_, tags), row in zip(sentences, predicted)
        for p, t in zip(row, tags)
    ]
    return sum(p == t for p, t in pairs) / max(len(pairs), 1)


def accuracy_by_tagset(sentences, predicted, tagger):
    """`{str(tagset): accuracy}` in each view of the tags `tagger` answers
    in (`zoo.tasks.Tagger.views`: with `"en_ud"`, `None` UD's 17 tags,
    `universal` the 12, `ptb` Penn Treebank's), `predicted` and the gold
    tags both being its labels; `{}` for a tagger whose one view is its
    labels as they are."""
    views = tagger.views()
    if list(views) == [None] and views[None] == list(tagger.labels):
        return {}
    scores = {}
    for name, view in views.items():
        tag = dict(zip(tagger.labels, view))
        gold = [(words, [tag[t] for t in tags]) for words, tags in sentences]
        scores[str(name)] = token_accuracy(
            gold, [[tag[t] for t in tags] for tags in predicted]
        )
    return scores


def span_scores(sentences, predicted):
    """Entity span `{"precision", "recall", "f1"}` of the BIO tags
    `predicted` against `sentences` (`(words, tags)`), by seqeval."""
    # seqeval is the `recipes` extra's; only entity scoring needs it.
    extras.require("recipes", "seqeval", what="entity span F1")
    from seqeval.metrics import f1_score
    from seqeval.metrics import precision_score
    from seqeval.metrics import recall_score

    truth = [list(tags) for _, tags in sentences]
    return {
        name: float(score(truth, predicted))
        for name, score in (
            ("precision", precision_score),
            ("recall", recall_score),
            ("f1", f1_score),
        )
    }


def edit_distance(a, b):
    """Levenshtein distance of two sequences (a dozen lines; no package
    needed for it)."""
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(
                min(
                    previous[j] + 1,
                    current[j - 1] + 1,
                    previous[j - 1] + (x != y),
                )
            )
        previous = current
    return previous[-1]


def phoneme_scores(predictions, references):
    """`(per, wer)` in %: `predictions` (word -> phonemes) against
    `references` (word -> list of pronunciations). PER sums the edit
    distance to each word's closest reference over the summed lengths of
    those references; WER is the share of words matching no reference."""
    edits = length = wrong = 0
    for word, predicted in predictions.items():
        options = references[word]
        best = min(options, key=lambda ref: edit_distance(predicted, ref))
        distance = edit_distance(predicted, best)
        edits += distance
        length += len(best)
        wrong += tuple(predicted) not in {tuple(r) for r in options}
    return 100.0 * edits / max(length, 1), 100.0 * wrong / max(
        len(predictions), 1
    )


def translation_scores(hypotheses, references):
    """`{"bleu", "chrf"}` of detokenised `hypotheses` against one
    reference each, by sacrebleu's corpus BLEU (its `13a` tokeniser,
    what WMT reports) and chrF; the same call scores the recipe and
    its peer."""
    extras.require("translation", "sacrebleu", what="BLEU and chrF")
    import sacrebleu

    hypotheses, references = list(hypotheses), [list(references)]
    return {
        "bleu": float(sacrebleu.corpus_bleu(hypotheses, references).score),
        "chrf": float(sacrebleu.corpus_chrf(hypotheses, references).score),
    }
