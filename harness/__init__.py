"""What running a job needs that is not a recipe, shared by `recipes`,
`tuning`, `diagnostics` and `benchmarks`:

- `harness.UsageError` and `harness.run_cli`: a user's mistake is one
  line on standard error and exit code 2, never a traceback;
- `harness.files`: JSON and CSV written atomically;
- `harness.rundir`: one job per folder (`FolderLock`) and the run
  directory a job and its reruns share (`RunDirectory`);
- `harness.flags`: settings from command-line flags and JSON/YAML files;
- `harness.processes`: the one process supervisor (`Supervisor`);
- `harness.tf_config`: `TF_CONFIG`, written for local workers and checked;
- `harness.plots`: matplotlib on its headless backend, learning curves.

Nothing here imports Keras, a backend or `zoo`: a tool that only
supervises processes or writes files starts in a fraction of a second,
and the imports run one way (zoo <- harness <- recipes <- tuning <-
diagnostics <- benchmarks).
"""

from harness.errors import UsageError
from harness.errors import run_cli

__all__ = ["UsageError", "run_cli"]
