"""stacked-rnn-zoo: stacked SimpleRNN, GRU and LSTM networks for Keras 3.

Importing `zoo` registers every custom layer (for `.keras` loading with
`safe_mode=True`) and every named model variant.

Besides the names below, its public modules: `zoo.options` (every option,
declared once), `zoo.cells` (every cell's facts, in one table),
`zoo.layers`, `zoo.heads`, `zoo.language_model` (the ELMo-style
biLM), `zoo.languages` (what is particular to one language: English's
`G2p` and its data in `zoo.languages.en`), `zoo.metrics` (the mean per
weighted step), `zoo.seq2seq`,
`zoo.tasks` (the trained task models, which read raw text: `Tagger`,
`TextClassifier`, `Transcriber`, `BiLM`; their presets in
`zoo.presets`), `zoo.text`,
`zoo.reference` (the NumPy equations), `zoo.validation` (the argument
checks: each error names the argument, the value and what is allowed) and
`zoo.walk` (every layer nested in a model).
"""

from zoo import _backend

# Before Keras is imported: a missing backend is one clear ImportError.
_backend.check()

from zoo import cells
from zoo import fused  # noqa: F401  (`zoo.fused.disabled()`)
from zoo import heads
from zoo import language_model  # noqa: F401  (registers its layers)
from zoo import languages
from zoo import layers
from zoo import metrics
from zoo import models  # noqa: F401  (registers the variants)
from zoo import optimizers
from zoo import options
from zoo import presets
from zoo import reference
from zoo import schedules
from zoo import seq2seq
from zoo import subwords
from zoo import tasks
from zoo import text
from zoo import validation
from zoo import walk
from zoo._package import PACKAGE
from zoo.builders import Backbone
from zoo.builders import stacked_gru
from zoo.builders import stacked_lstm
from zoo.builders import stacked_rnn
from zoo.builders import stacked_simple_rnn
from zoo.fast_path import fast_path_report
from zoo.inference import inference_function
from zoo.languages.en import G2p
from zoo.languages.en import pos_tag
from zoo.languages.en import pos_tag_sents
from zoo.layers import CRF
from zoo.layers import CharacterEncoder
from zoo.layers import CRFLoss
from zoo.layers import EmbeddingDropout
from zoo.layers import HighwayWrapper
from zoo.layers import ResidualWrapper
from zoo.layers import ScalarMix
from zoo.layers import SequencePooling
from zoo.layers import StackedRNN
from zoo.layers import VariationalDropout
from zoo.layers import WeightDropGRU
from zoo.layers import WeightDropLSTM
from zoo.layers import WeightDropSimpleRNN
from zoo.params import count_params
from zoo.params import width_for_budget
from zoo.registry import create_model
from zoo.registry import list_models
from zoo.registry import register_model
from zoo.seq2seq import Seq2Seq
from zoo.seq2seq import beam_search
from zoo.seq2seq import build_seq2seq
from zoo.seq2seq import greedy_decode
from zoo.summary import summary
from zoo.tasks import BiLM
from zoo.tasks import Tagger
from zoo.tasks import TextClassifier
from zoo.tasks import Transcriber
from zoo.walk import reset_states

__version__ = "0.1.0"

__all__ = [
    "BiLM",
    "CRF",
    "CRFLoss",
    "CharacterEncoder",
    "PACKAGE",
    "EmbeddingDropout",
    "G2p",
    "HighwayWrapper",
    "ResidualWrapper",
    "ScalarMix",
    "Seq2Seq",
    "SequencePooling",
    "StackedRNN",
    "Tagger",
    "TextClassifier",
    "Transcriber",
    "VariationalDropout",
    "WeightDropGRU",
    "WeightDropLSTM",
    "WeightDropSimpleRNN",
    "beam_search",
    "build_seq2seq",
    "cells",
    "count_params",
    "create_model",
    "fast_path_report",
    "greedy_decode",
    "heads",
    "inference_function",
    "languages",
    "layers",
    "list_models",
    "metrics",
    "optimizers",
    "pos_tag",
    "pos_tag_sents",
    "options",
    "presets",
    "reference",
    "schedules",
    "register_model",
    "reset_states",
    "seq2seq",
    "Backbone",
    "stacked_gru",
    "stacked_lstm",
    "stacked_rnn",
    "stacked_simple_rnn",
    "subwords",
    "summary",
    "tasks",
    "text",
    "validation",
    "walk",
    "width_for_budget",
]
