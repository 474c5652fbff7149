"""The README's quickstart runs as written, with the values it shows."""

import pathlib
import re

import keras

README = pathlib.Path(__file__).parent.parent / "README.md"


def test_quickstart_runs_and_its_numbers_hold(capsys):
    text = README.read_text()
    block = re.search(r"## Quickstart\s+```python\n(.*?)```", text, re.S)
    assert block, "no quickstart block"
    namespace = {}
    exec(compile(block.group(1), "README quickstart", "exec"), namespace)
    zoo = namespace["zoo"]
    assert zoo.count_params("lstm", 128, 256, num_layers=2) == 919552
    assert zoo.stacked_lstm(2, 256, input_dim=128).count_params() == 919552
    assert zoo.width_for_budget("lstm", 128, 4, 1_600_000) == 230
    assert isinstance(namespace["tagger"], keras.Model)
    assert isinstance(namespace["elmo"], zoo.layers.ContextualEmbedding)
    assert namespace["bilm"].count_params() == 9_852_208
    assert "lstm" in capsys.readouterr().out


def test_ready_to_use_runs_as_shown():
    text = README.read_text()
    block = re.search(r"## Ready to use\s.*?```python\n(.*?)```", text, re.S)
    assert block, "no ready-to-use block"
    namespace = {}
    code = block.group(1)
    exec(compile(code, "README ready to use", "exec"), namespace)
    zoo = namespace["zoo"]
    tagged = zoo.pos_tag("The quick brown fox jumps over the lazy dog.")
    shown = re.search(r"# (\[\('The'.*?), \.\.\.\]", code).group(1)
    assert repr(tagged).startswith(shown)
    phones = zoo.G2p()(["keras", "zoo"])
    assert len(phones) == 2 and all(phones)
    assert any(p[-1].isdigit() for p in phones[0])  # stress digits
    tagger = namespace["tagger"]
    assert isinstance(tagger, zoo.Tagger)
    assert [w for w, _ in tagger(["Time flies ."])[0]] == ["Time", "flies", "."]
