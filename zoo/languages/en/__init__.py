"""English: text to phonemes, and the data it reads.

- `g2p`: `G2p`, English text to ARPAbet phonemes on the shipped presets
  (`zoo.G2p`; `TRANSCRIBER` is its default network preset);
- `lexicon`: pronouncing dictionaries in CMUdict's format, read
  (`read`, `Lexicon`) and written (`write`, a G2P preset's
  `cmudict.dict.gz`);
- `homographs`: the heteronym and tense tables of a G2P preset
  (`homographs.json`, `tenses.json`), built from a dictionary and a
  tagged corpus; `g2p` reads them;
- `verbalize`: numbers, money and abbreviations as the words said;
- `brown`: the Brown corpus's conventions (`"en_brown"`), which a tagger
  trained on it reads running text with; registered on import;
- `ud`: UD English's conventions (`"en_ud"`): a tagger trained on the UD
  treebanks answers in UD's 17 tags, the 12 universal ones or Penn
  Treebank's; registered on import;
- `tagging`: `pos_tag` and `pos_tag_sents` (`zoo.pos_tag`) on the shipped
  English tagger presets (`TAGGER` the default);
- `tokens`: `split_words`, raw English text split into words as UD
  English splits it (`zoo.text.tokenize`, then `don't` -> `do` `n't`).

Each asset's builder is beside its reader; the corpora themselves are
loaded by the recipes (`recipes.g2p`).
"""

from zoo.languages.en import brown  # noqa: F401  (registers "en_brown")
from zoo.languages.en import ud  # noqa: F401  (registers "en_ud")
from zoo.languages.en.g2p import TRANSCRIBER
from zoo.languages.en.g2p import G2p
from zoo.languages.en.tagging import TAGGER
from zoo.languages.en.tagging import pos_tag
from zoo.languages.en.tagging import pos_tag_sents
from zoo.languages.en.tokens import split_words

__all__ = [
    "G2p",
    "TAGGER",
    "TRANSCRIBER",
    "pos_tag",
    "pos_tag_sents",
    "split_words",
]
