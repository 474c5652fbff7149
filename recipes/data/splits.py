"""Seeded train/dev/test splits that are the same on every machine.

Corpora that come without an official split are cut here. The order is
shuffled with `random.Random(seed)`, whose sequence Python guarantees
across platforms and versions for a given seed, and the cut points are
rounded fractions of the count: train gets `round(f0 * n)`, dev
`round(f1 * n)` and test the rest.

`split_items` cuts a list of examples; `split_groups` cuts whole groups
(all passages of one document, all pronunciations of one word) so that no
group has items in two splits. `quick_subset` and `cut_splits` take the
seeded samples that `--quick`, `--train-examples` and `--eval-examples`
train and evaluate on.
"""

import collections
import random

from recipes.data.errors import DataError

NAMES = ("train", "dev", "test")


def _check_fractions(fractions):
    try:
        values = [float(f) for f in fractions]
    except (TypeError, ValueError):
        values = None
    if (
        values is None
        or len(values) != 3
        or any(not v > 0 for v in values)
        or abs(sum(values) - 1.0) > 1e-9
    ):
        raise ValueError(
            "`fractions` must be three positive numbers summing to 1; "
            f"received {fractions!r}."
        )
    return values


def _cut(order, fractions, what):
    """Cuts a shuffled list into three non-empty parts."""
    values = _check_fractions(fractions)
    n = len(order)
    first = round(values[0] * n)
    second = first + round(values[1] * n)
    parts = order[:first], order[first:second], order[second:]
    for name, part in zip(NAMES, parts):
        if not part:
            raise DataError(
                f"the {name} split is empty ({n} {what}, fractions "
                f"{tuple(fractions)}); use more data or other fractions"
            )
    return parts


def split_items(items, fractions=(0.8, 0.1, 0.1), seed=0, key=None):
    """Splits `items` into `(train, dev, test)` lists.

    Without `key` the input order is shuffled (so the same list gives the
    same split); with `key`, items are first ordered by `key(item)` (a
    stable sort), so the split no longer depends on the input order. The
    items themselves are never compared.

    Raises:
        ValueError: `fractions` is not three positive numbers summing to 1.
        DataError: a split would be empty.
    """
    items = list(items)
    _check_fractions(fractions)
    indices = list(range(len(items)))
    if key is not None:
        indices.sort(key=lambda i: key(items[i]))
    random.Random(seed).shuffle(indices)
    parts = _cut(indices, fractions, "items")
    return tuple([items[i] for i in part] for part in parts)


def split_groups(items, group, fractions=(0.8, 0.1, 0.1), seed=0):
    """Splits `items` so that all items of one group share a split.

    `group(item)` gives an item's group key (keys must be sortable). The
    distinct keys are sorted, shuffled with `seed` and cut by group count;
    each split lists its groups' items, group by group in shuffled order,
    and within a group in input order.

    Raises:
        ValueError: `fractions` is not three positive numbers summing to 1.
        DataError: a split would have no group.
    """
    _check_fractions(fractions)
    members = {}
    for item in items:
        members.setdefault(group(item), []).append(item)
    keys = sorted(members)
    random.Random(seed).shuffle(keys)
    count = sum(len(m) for m in members.values())
    parts = _cut(keys, fractions, f"groups ({count} items)")
    return tuple([x for k in part for x in members[k]] for part in parts)


def cut_splits(parts, config, quick_sizes, labels_of=None):
    """`(train, dev, test)` cut to `--quick`'s `quick_sizes` and to
    `--train-examples` / `--eval-examples` (seeded samples, in order, by
    `quick_subset`, the training sample by `config.sample_seed`; the
    smaller size wins). With `labels_of` (an item's
    labels), the training sample holds every label of the cut dev and
    test splits that the whole training split has (`covering_subset`)."""
    limits = (config.train_examples, config.eval_examples, config.eval_examples)
    sizes = [
        min([n for n in (quick if config.quick else 0, limit) if n] or [0])
        for quick, limit in zip(quick_sizes, limits)
    ]
    seeds = (getattr(config, "sample_seed", 0), 0, 0)
    train, dev, test = (
        quick_subset(part, size, seed) if size else part
        for part, size, seed in zip(parts, sizes, seeds)
    )
    if labels_of is not None and sizes[0]:
        needed = {
            label
            for part in (dev, test)
            for i in part
            for label in labels_of(i)
        }
        train = covering_subset(parts[0], sizes[0], labels_of, needed, seeds[0])
    return train, dev, test


def _sample(count, size, seed):
    """Sorted indices of a seeded sample of `size` of `count` items."""
    return sorted(random.Random(seed).sample(range(count), size))


def quick_subset(items, size, seed=0):
    """A seeded sample of `size` items (in their order), for `--quick`:
    a sample, not the first ones, so that every class and genre shows up.
    """
    if len(items) <= size:
        return list(items)
    return [items[i] for i in _sample(len(items), size, seed)]


def covering_subset(items, size, labels_of, needed, seed=0):
    """`quick_subset(items, size, seed)`, mended where it lacks a label of
    `needed` that some item has: for each such label (in sorted order)
    the first item holding it in a second seeded order takes the place of
    the last item of the sample whose labels of `needed` are all held by
    another, while there is one. The size stays `size`; a sample that
    holds them all is `quick_subset`'s, unchanged. Why: a small sample of
    a corpus with rare tags (WNUT-16 has 21) misses some, and a model
    cannot learn a tag it never sees; a learning curve is drawn over
    samples that hold every tag the test scores."""
    if len(items) <= size:
        return list(items)
    keep = _sample(len(items), size, seed)

    def held(i):
        return set(labels_of(items[i])) & needed

    counts = collections.Counter(label for i in keep for label in held(i))
    missing = sorted(needed - set(counts))
    if not missing:
        return [items[i] for i in keep]
    order = list(range(len(items)))
    random.Random(seed + 1).shuffle(order)
    chosen = set(keep)
    for label in missing:
        if counts[label]:
            continue
        joining = next((i for i in order if label in labels_of(items[i])), None)
        leaving = next(
            (
                i
                for i in reversed(keep)
                if i in chosen and all(counts[x] > 1 for x in held(i))
            ),
            None,
        )
        if joining is None or leaving is None:
            continue
        chosen.remove(leaving)
        counts.subtract(held(leaving))
        chosen.add(joining)
        counts.update(held(joining))
    return [items[i] for i in sorted(chosen)]
