"""The test suite's own machinery: `make test` runs each tier with
`pytest -n N --dist loadgroup`, and the diagnostics' tests rely on
`xdist_group` to run a module's expensive fixture (a whole study, a
trained stack) once, on one worker."""

import re
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.backend_free


def test_loadgroup_sends_a_group_to_one_worker(tmp_path):
    # pytest 9.2 broke this silently (pytest-xdist issue 1386, see the
    # pin in pyproject.toml): every test of a group ran on any worker, and
    # a module fixture ran once per worker.
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_grouped.py").write_text(
        textwrap.dedent(
            """
            import pytest

            pytestmark = pytest.mark.xdist_group("one")

            @pytest.mark.parametrize("i", range(6))
            def test_member(i):
                pass
            """
        )
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup",
         "-v", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    workers = re.findall(r"\[(gw\d+)\] .*PASSED .*test_member", done.stdout)
    assert len(workers) == 6, done.stdout
    assert len(set(workers)) == 1, done.stdout
