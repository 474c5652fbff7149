"""`ShardedBatches`: a pass over a large corpus cut into epochs."""

from recipes import pipeline
from recipes.data.errors import DataError


class ShardedBatches(pipeline.Batches):
    """`pipeline.Batches` whose epoch `e` is part `e % shards` of a pass
    over the training batches (each pass shuffled anew, by `seed + pass`),
    so that an epoch of a large corpus takes minutes: the backup, the dev
    evaluation and early stopping come that often. Every epoch has the
    same number of batches (a pass's last `len % shards` are left out)."""

    def __init__(self, *args, shards=1, **kwargs):
        self.shards = int(shards)
        super().__init__(*args, **kwargs)
        batches = sum(-(-len(b) // self.batch_size) for b in self._buckets)
        if batches < self.shards:
            raise DataError(
                f"--shards {self.shards}: the training text makes only "
                f"{batches} batches of {self.batch_size}; give fewer shards "
                "or more text"
            )

    def _batches(self):
        epoch = self.epoch
        self.epoch = epoch // self.shards  # the pass
        try:
            every = super()._batches()
        finally:
            self.epoch = epoch
        size = max(len(every) // self.shards, 1)
        part = epoch % self.shards
        return every[part * size : (part + 1) * size]
