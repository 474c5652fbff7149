"""The classical peers' word-vector features (`benchmarks.baselines`):
what the feature CRF of `--task ner-glove` takes from vectors, on a
vectors file written here."""

import pytest

from benchmarks import baselines
from tests.recipes.test_vectors import write_vectors

pytest.importorskip("sklearn")
pytestmark = pytest.mark.backend_free


def test_the_crf_gets_clusters_for_the_window_and_values_for_the_word(
    tmp_path,
):
    embedding = baselines.EmbeddingFeatures(
        str(write_vectors(tmp_path / "v.txt"))
    )
    assert embedding.sizes == [6, 6, 6]  # at most one cluster a word
    features = baselines.sentence_features(["The", "Wolf", "zzz"], embedding)
    wolf = features[1]
    assert {f"0:c{k}" for k in embedding.sizes} <= set(wolf)
    assert wolf["e1"] == pytest.approx(0.8)  # the word's own values
    assert "-1:c6" in wolf and "-1:e0" not in wolf  # neighbours: clusters
    assert wolf["1:novec"] is True  # zzz has no vector
    # Two words of one cluster share the feature; others do not.
    assert features[0]["0:c6"] != wolf["0:c6"]
