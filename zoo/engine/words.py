"""NumPy forms of the zoo's word-level layers: `CharacterEncoder` (its
recurrent and convolutional kinds, and both side by side), the ELMo biLM
(`BiLMEncoder`, `ContextualEmbedding`) and `ScalarMix`.

The character encoder runs once over every real word of every sentence
of a batch, as one batch of words (a chunk of `CHUNK_WORDS` at a time
where there are more, as in one enormous line): padded words are
skipped (their vector is zeros, as Keras makes it) and the characters
are cut to the batch's longest real word, which changes nothing (right
padding is skipped by the recurrent kind, and reads like "same" padding
for the convolution).
The biLM's forward and backward stacks run side by side
(`zoo.engine.stacks.Lockstep`), and the mix of its layers is summed
straight into one array, never concatenated layer by layer.
"""

import numpy as np

from zoo.engine import functions as fn
from zoo.engine.layers import Layer
from zoo.engine.layers import check_ids as _check_ids
from zoo.engine.layers import lookup
from zoo.engine.stacks import Lockstep
from zoo.engine.stacks import StackPlan
from zoo.layers.bilm import BiLMEncoder
from zoo.layers.characters import CharacterEncoder
from zoo.layers.contextual_embedding import ContextualEmbedding
from zoo.layers.scalar_mix import ScalarMix

FLOAT = fn.FLOAT
# What masked characters read before the max-pool: below any tanh.
_BELOW_TANH = FLOAT(-2.0)
# The character encoder reads at most this many words at once: a batch
# of 64 sentences of 64 words in one go, one line of 200,000 words in
# chunks (every word at once would hold 900 MB of the character stack's
# projections).
CHUNK_WORDS = 4096


def _unsupported(layer, why):
    return NotImplementedError(
        f"zoo.engine has no NumPy form of {type(layer).__name__} "
        f"{layer.name!r}: {why}."
    )


class Convolution:
    """A `keras.layers.Conv1D` as `CharacterEncoder` uses it: stride 1,
    `"same"` padding, as one matmul over the stacked shifted inputs."""

    def __init__(self, conv):
        if (
            tuple(conv.strides) != (1,)
            or tuple(conv.dilation_rate) != (1,)
            or conv.padding != "same"
            or conv.groups != 1
            or conv.data_format != "channels_last"
        ):
            raise _unsupported(conv, "only stride 1, 'same' padding")
        kernel = fn.array(conv.kernel)  # (width, in, out)
        self.width = kernel.shape[0]
        self.kernel = kernel.reshape(-1, kernel.shape[-1])
        self.bias = fn.array(conv.bias) if conv.use_bias else None
        self.activation = fn.activation(conv.activation, conv.name)

    def __call__(self, x):
        count, steps, features = x.shape
        left = (self.width - 1) // 2
        padded = np.zeros((count, steps + self.width - 1, features), FLOAT)
        padded[:, left : left + steps] = x
        columns = np.concatenate(
            [padded[:, j : j + steps] for j in range(self.width)], axis=-1
        )
        y = columns.reshape(count * steps, columns.shape[-1]) @ self.kernel
        if self.bias is not None:
            y += self.bias
        return fn.apply(self.activation, y.reshape(count, steps, y.shape[-1]))


class Characters(Layer):
    """`zoo.layers.CharacterEncoder`: `(batch, words, chars)` ids to
    `(batch, words, width)` vectors, masked where a word has no
    character."""

    def __init__(self, layer):
        super().__init__(layer)
        self.table = fn.array(layer.embedding.embeddings)
        self.output_dim = layer.output_dim
        self.stack = None
        self.lookup = False
        if layer.stack is not None:
            self.stack = StackPlan(layer.stack)
            # Alone, the stack may read ids (`StackPlan.use_table`); beside
            # the convolutions both read the one lookup.
            if not layer.convolutions:
                self.lookup = self.stack.use_table(self.table)
        self.convolutions = [Convolution(c) for c in layer.convolutions]

    def encode(self, ids):
        """`(vectors, word_mask)` for `(batch, words, chars)` ids."""
        ids = np.asarray(ids)
        batch, words, chars = ids.shape
        flat = ids.reshape(batch * words, chars)
        char_mask = flat != 0
        word_mask = char_mask.any(axis=1)
        vectors = np.zeros((batch * words, self.output_dim), FLOAT)
        real = np.flatnonzero(word_mask)
        if real.size:
            width = chars - int(np.argmax(char_mask[real].any(axis=0)[::-1]))
            # A chunk of words at a time: the memory of a batch of any
            # size stays bounded (`CHUNK_WORDS`); a word's vector is its
            # own, whatever words it is read beside.
            for start in range(0, real.size, CHUNK_WORDS):
                rows = real[start : start + CHUNK_WORDS]
                vectors[rows] = self._vectors(
                    flat[rows, :width], char_mask[rows, :width]
                )
        vectors = vectors.reshape(batch, words, vectors.shape[-1])
        return vectors, word_mask.reshape(batch, words)

    def _vectors(self, ids, used):
        """The vectors of `(words, chars)` ids of real words (`used`: the
        characters that are not padding)."""
        if self.lookup:  # the stack reads ids (`StackPlan.use_table`)
            _check_ids(ids, len(self.table), self.name)
            return self.stack(ids, used)
        x = lookup(self.table, ids, self.name)
        parts = []
        if self.stack is not None:
            parts.append(self.stack(x, used))
        if self.convolutions:
            parts.append(self._convolve(x, used))
        return parts[0] if len(parts) == 1 else np.concatenate(parts, -1)

    def _convolve(self, x, char_mask):
        keep = char_mask[..., None]
        for convolution in self.convolutions:
            x = convolution(x * keep)
        return np.where(keep, x, _BELOW_TANH).max(axis=1)

    def __call__(self, args, kwargs, mask):
        vectors, word_mask = self.encode(args[0])
        if mask is not None and np.ndim(mask) == 2:
            word_mask = word_mask & np.asarray(mask, bool)
        return vectors, word_mask


def _reverse_index(mask):
    """`zoo.layers.bilm.reverse_padded`'s gather, time-major: each row
    reversed within its real steps."""
    steps = mask.shape[0]
    lengths = mask.sum(axis=0)
    positions = np.arange(steps)[:, None]
    return np.where(positions < lengths, lengths - 1 - positions, positions)


class Encoder(Layer):
    """`zoo.layers.BiLMEncoder`: its `num_layers + 1` layers (`layers`),
    or ELMo's mix of them (`mix`)."""

    def __init__(self, layer):
        super().__init__(layer)
        self.characters = Characters(layer.characters)
        projection = layer.projection
        self.kernel = fn.array(projection.kernel)
        self.bias = fn.array(projection.bias) if projection.use_bias else None
        self.activation = fn.activation(projection.activation, layer.name)
        self.lockstep = Lockstep(
            [StackPlan(layer.forward_stack), StackPlan(layer.backward_stack)]
        )
        self.units = layer.units
        self.count = layer.num_layers + 1

    def run(self, ids):
        """`(x, forward, backward, mask, index)`: time-major projected
        characters, each stack's layers (the backward ones in its reversed
        reading order), the time-major mask and the reversal's gather
        index."""
        vectors, mask = self.characters.encode(ids)
        x = vectors.transpose(1, 0, 2).reshape(-1, vectors.shape[-1])
        x = x @ self.kernel
        if self.bias is not None:
            x += self.bias
        x = fn.apply(self.activation, x)
        steps, batch = mask.shape[1], mask.shape[0]
        x = x.reshape(steps, batch, x.shape[-1])
        maskt = np.ascontiguousarray(mask.T)
        index = _reverse_index(maskt)
        columns = np.arange(batch)
        reversed_x = x[index, columns]
        full = bool(maskt.all())
        (forward, _, _), (backward, _, _) = self.lockstep.run(
            [x, reversed_x], None if full else maskt
        )
        return x, forward, backward, maskt, (index, columns)

    def layers(self, ids):
        x, forward, backward, maskt, index = self.run(ids)
        result = [np.concatenate([x, x], axis=-1)]
        for f, b in zip(forward, backward):
            result.append(np.concatenate([f, b[index]], axis=-1))
        return [np.ascontiguousarray(y.transpose(1, 0, 2)) for y in result]

    def mix(self, ids, weights, gamma):
        """`gamma * sum_l weights[l] * layer_l`, `(batch, words, 2 units)`,
        and the word mask."""
        x, forward, backward, maskt, (index, columns) = self.run(ids)
        units = self.units
        steps = len(x)
        mixed = np.empty((*x.shape[:2], 2 * units), FLOAT)
        # A block of steps at a time: a long sentence's terms are never
        # all held at once (`fn.BLOCK_BYTES`).
        size = fn.block_steps(2 * units * x.shape[1])
        for start in range(0, steps, size):
            at = slice(start, start + size)
            left, right = mixed[at, :, :units], mixed[at, :, units:]
            np.multiply(x[at], weights[0], out=left)
            right[...] = left
            for weight, f, b in zip(weights[1:], forward, backward):
                left += weight * f[at]
                right += weight * b[index[at], columns]
        mixed *= gamma
        return np.ascontiguousarray(mixed.transpose(1, 0, 2)), maskt.T

    def __call__(self, args, kwargs, mask):
        layers = self.layers(args[0])
        word_mask = np.asarray(args[0]).any(axis=-1)
        return layers, [word_mask] * self.count


class Contextual(Layer):
    """`zoo.layers.ContextualEmbedding`: the biLM's layers mixed, with the
    encoder's word mask."""

    def __init__(self, layer):
        super().__init__(layer)
        self.encoder = Encoder(layer.encoder)
        weights = fn.array(layer.mix.scalar_parameters)
        self.weights = fn.softmax(weights)
        self.gamma = fn.array(layer.mix.gamma)

    def __call__(self, args, kwargs, mask):
        return self.encoder.mix(args[0], self.weights, self.gamma)


class Mix(Layer):
    """`zoo.layers.ScalarMix`: `gamma * sum_l softmax(s)_l x_l`."""

    takes_mask = True

    def __init__(self, layer):
        super().__init__(layer)
        self.weights = fn.softmax(fn.array(layer.scalar_parameters))
        self.gamma = fn.array(layer.gamma)

    def __call__(self, args, kwargs, mask):
        inputs = [np.asarray(x, FLOAT) for x in args[0]]
        mixed = inputs[0] * self.weights[0]
        for weight, x in zip(self.weights[1:], inputs[1:]):
            mixed += weight * x
        mixed *= self.gamma
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        return mixed, mask


FACTORIES = {
    CharacterEncoder: Characters,
    BiLMEncoder: Encoder,
    ContextualEmbedding: Contextual,
    ScalarMix: Mix,
}
