"""keras-tuner's tuners, recording which worker ran each trial and how
its epochs went.

Each trial folder gets a `worker.json` (the tuner id, host and process),
which `tuning.report` puts in the trial table: in a distributed search it
shows how the trials were split across workers; and a `history.json`
(every epoch's metrics, per execution, with the objective's name), since
keras-tuner's own `trial.json` keeps only the best epoch's values.
"""

import os
import socket
import time

import keras_tuner as kt

from harness import files


class _RecordWorker:
    def pre_create_trial(self):
        if self._is_worker():
            # An oracle that answers IDLE (Hyperband between brackets) is
            # asked again at once: pace the workers' requests.
            time.sleep(0.5)
        super().pre_create_trial()

    def run_trial(self, trial, *args, **kwargs):
        files.write_json(
            os.path.join(self.get_trial_dir(trial.trial_id), "worker.json"),
            {
                "tuner_id": self.tuner_id,
                "host": socket.gethostname(),
                "pid": os.getpid(),
                "started": time.time(),
            },
        )
        results = super().run_trial(trial, *args, **kwargs)
        executions = results if isinstance(results, list) else [results]
        files.write_json(
            os.path.join(self.get_trial_dir(trial.trial_id), "history.json"),
            {
                "objective": self.oracle.objective.name,
                "executions": [
                    {
                        name: [float(x) for x in values]
                        for name, values in result.history.items()
                    }
                    for result in executions
                    if hasattr(result, "history")
                ],
            },
        )
        return results


class RandomSearch(_RecordWorker, kt.RandomSearch):
    pass


class BayesianOptimization(_RecordWorker, kt.BayesianOptimization):
    pass


class Hyperband(_RecordWorker, kt.Hyperband):
    pass


class GridSearch(_RecordWorker, kt.GridSearch):
    pass
