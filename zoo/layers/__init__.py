"""Custom Keras layers of the zoo; each one is registered for saving.

`StackLayer` is no layer: it is the record of one layer of a
`StackedRNN` (`StackedRNN.stack_layers`).
"""

from zoo.layers.bag_of_words import TfIdf
from zoo.layers.bilm import BiLMEncoder
from zoo.layers.characters import CharacterEncoder
from zoo.layers.contextual_embedding import ContextualEmbedding
from zoo.layers.crf import CRF
from zoo.layers.crf import CRFLoss
from zoo.layers.embedding_dropout import EmbeddingDropout
from zoo.layers.highway_wrapper import HighwayWrapper
from zoo.layers.pooling import SequencePooling
from zoo.layers.residual_wrapper import ResidualWrapper
from zoo.layers.sampled_softmax import SampledSoftmax
from zoo.layers.scalar_mix import ScalarMix
from zoo.layers.stacked_rnn import StackedRNN
from zoo.layers.stacked_rnn import StackLayer
from zoo.layers.token_embedding import TokenEmbedding
from zoo.layers.token_features import TokenFeatures
from zoo.layers.variational_dropout import VariationalDropout
from zoo.layers.vocabulary import CharacterVocabulary
from zoo.layers.vocabulary import LabelNames
from zoo.layers.vocabulary import TokenVocabulary
from zoo.layers.weight_drop import WeightDropGRU
from zoo.layers.weight_drop import WeightDropLSTM
from zoo.layers.weight_drop import WeightDropSimpleRNN

__all__ = [
    "BiLMEncoder",
    "CRF",
    "CRFLoss",
    "CharacterEncoder",
    "CharacterVocabulary",
    "ContextualEmbedding",
    "EmbeddingDropout",
    "HighwayWrapper",
    "LabelNames",
    "ResidualWrapper",
    "SampledSoftmax",
    "ScalarMix",
    "SequencePooling",
    "StackLayer",
    "StackedRNN",
    "TfIdf",
    "TokenEmbedding",
    "TokenFeatures",
    "TokenVocabulary",
    "VariationalDropout",
    "WeightDropGRU",
    "WeightDropLSTM",
    "WeightDropSimpleRNN",
]
