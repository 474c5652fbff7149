"""What is particular to one language, apart from the generic task models.

`zoo.tasks` holds models that know no language (a tagger, a classifier,
a transcriber, a translator); what only makes sense for one language
lives here, one package per language, and may use `zoo.tasks` (never
the other way round):

- `zoo.languages.en`: English. `G2p` (text to ARPAbet phonemes: the
  dictionary, homographs by part of speech, numbers read out, the
  network for the rest), its pronouncing dictionary (`lexicon`), number
  and abbreviation reading (`verbalize`) and the builders of a G2P
  preset's assets (`lexicon.write`, `homographs`).
"""
