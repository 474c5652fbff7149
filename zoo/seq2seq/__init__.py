"""Stacked encoder-decoder (sequence-to-sequence) models over token ids.

A replacement for TensorFlow Addons' `seq2seq` for stacked RNNs, in
Keras 3 only:

- `Seq2Seq` / `build_seq2seq`: encoder and decoder `zoo.layers.StackedRNN`
  stacks, a state bridge (`"copy"`, `"zeros"`, `"dense"`), optional
  Luong / Bahdanau attention, teacher-forced training;
  `encoder_model()` and `decoder_step_model()` give the inference halves,
  sharing weights.
- `greedy_decode`, `beam_search`: batched decoders, the one NumPy loop
  of each (`search`) over the model's compiled encoder and decoder step;
  `compiled_decoder` checks the options once; `sequence_log_prob` scores
  given outputs.
- `shift_targets`: decoder inputs and targets for teacher forcing.
- `PaddingMask`, `ApplyMask`, `StateBridge`, `SourceAttention`: the
  registered layers that join the stacks.

Id conventions: 0 is padding in both vocabularies (sequences are
right-padded); start and end ids are >= 1; id 1 is the suggested
out-of-vocabulary id.
"""

from zoo.seq2seq.decoding import beam_search
from zoo.seq2seq.decoding import compiled_decoder
from zoo.seq2seq.decoding import greedy_decode
from zoo.seq2seq.decoding import sequence_log_prob
from zoo.seq2seq.layers import ApplyMask
from zoo.seq2seq.layers import PaddingMask
from zoo.seq2seq.layers import SourceAttention
from zoo.seq2seq.layers import StateBridge
from zoo.seq2seq.layers import bridge_sources
from zoo.seq2seq.model import Seq2Seq
from zoo.seq2seq.model import build_seq2seq
from zoo.seq2seq.model import shift_targets

__all__ = [
    "ApplyMask",
    "PaddingMask",
    "Seq2Seq",
    "SourceAttention",
    "StateBridge",
    "beam_search",
    "bridge_sources",
    "build_seq2seq",
    "compiled_decoder",
    "greedy_decode",
    "sequence_log_prob",
    "shift_targets",
]
