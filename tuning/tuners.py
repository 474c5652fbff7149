"""keras-tuner's tuners, recording which worker ran each trial.

Each trial folder gets a `worker.json` (the tuner id, host and process),
which `tuning.report` puts in the trial table: in a distributed search it
shows how the trials were split across workers.
"""

import os
import socket
import time

import keras_tuner as kt

from recipes import common


class _RecordWorker:
    def pre_create_trial(self):
        if self._is_worker():
            # An oracle that answers IDLE (Hyperband between brackets) is
            # asked again at once: pace the workers' requests.
            time.sleep(0.5)
        super().pre_create_trial()

    def run_trial(self, trial, *args, **kwargs):
        common.write_json(
            os.path.join(self.get_trial_dir(trial.trial_id), "worker.json"),
            {
                "tuner_id": self.tuner_id,
                "host": socket.gethostname(),
                "pid": os.getpid(),
                "started": time.time(),
            },
        )
        return super().run_trial(trial, *args, **kwargs)


class RandomSearch(_RecordWorker, kt.RandomSearch):
    pass


class BayesianOptimization(_RecordWorker, kt.BayesianOptimization):
    pass


class Hyperband(_RecordWorker, kt.Hyperband):
    pass
