"""`TF_CONFIG`, the cluster of a multi-worker job: written for local
workers (`for_worker`, what `python -m recipes.launch` gives each worker)
and checked before TensorFlow reads it (`check`: TensorFlow's
own resolver raises a bare `KeyError` or `JSONDecodeError`, or accepts
what the strategy then fails on). Standard library only; the recipes'
`--distribute multi-worker` reads it with TensorFlow's
`TFConfigClusterResolver` on TensorFlow (`recipes.distributed.
read_tf_config`) and with `Cluster.parse` on JAX.
"""

import dataclasses
import json

from harness import processes
from harness.errors import UsageError

ENV = "TF_CONFIG"
JOBS = ("chief", "worker")


def for_worker(addresses, index):
    """The `TF_CONFIG` of worker `index` of a cluster of `addresses`."""
    return json.dumps(
        {
            "cluster": {"worker": list(addresses)},
            "task": {"type": "worker", "index": index},
        }
    )


@dataclasses.dataclass(frozen=True)
class Cluster:
    """The cluster and task of `TF_CONFIG` as TensorFlow reads them (its
    `TFConfigClusterResolver`, which the strategy is given too): every
    address in replica order (the chief first) and this process's place
    in it."""

    jobs: dict
    task_type: str
    task_index: int
    resolver: object = dataclasses.field(default=None, compare=False)

    @classmethod
    def from_resolver(cls, resolver):
        return cls(
            jobs=resolver.cluster_spec().as_dict(),
            task_type=resolver.task_type,
            task_index=resolver.task_id,
            resolver=resolver,
        )

    @classmethod
    def parse(cls, text):
        """The cluster of `TF_CONFIG`'s value `text`, read here (`check`
        first): what a backend other than TensorFlow starts from."""
        check(text)
        values = json.loads(text)
        return cls(
            jobs={k: list(v) for k, v in values["cluster"].items()},
            task_type=values["task"]["type"],
            task_index=values["task"]["index"],
        )

    @property
    def addresses(self):
        return [a for job in JOBS for a in self.jobs.get(job, [])]

    @property
    def worker_index(self):
        """This process's position in `addresses` (0 is the chief)."""
        if self.task_type == "chief":
            return 0
        return len(self.jobs.get("chief", [])) + self.task_index

    @property
    def is_chief(self):
        return self.worker_index == 0

    @property
    def address(self):
        return self.jobs[self.task_type][self.task_index]


def _short(value, limit=120):
    text = value if isinstance(value, str) else json.dumps(value)
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def check(text):
    """`UsageError` naming the field, what it holds and what is allowed
    when `text` (the value of `TF_CONFIG`) is not a cluster of `chief`
    and `worker` jobs with distinct `host:port` addresses and a task of
    one of them."""
    if text is None or not text.strip():
        raise UsageError(
            "--distribute multi-worker needs the TF_CONFIG environment "
            'variable, e.g. {"cluster": {"worker": ["host1:12345", '
            '"host2:12345"]}, "task": {"type": "worker", "index": 0}}; '
            "it is not set (python -m recipes.launch sets it for local "
            "processes)"
        )
    try:
        values = json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(
            f"TF_CONFIG is not valid JSON ({error}); received {_short(text)}"
        ) from None
    if not isinstance(values, dict):
        raise UsageError(
            "TF_CONFIG must be a JSON object with 'cluster' and 'task'; "
            f"received {_short(text)}"
        )
    cluster = values.get("cluster")
    if not isinstance(cluster, dict) or not cluster:
        raise UsageError(
            "TF_CONFIG 'cluster' must map 'chief' and/or 'worker' to lists "
            f"of 'host:port' addresses; received {_short(cluster)}"
        )
    seen = {}
    for job, addresses in cluster.items():
        if job not in JOBS:
            raise UsageError(
                f"TF_CONFIG cluster job {job!r} is not supported by "
                f"--distribute multi-worker; allowed jobs: {', '.join(JOBS)}"
            )
        if (
            not isinstance(addresses, list)
            or not addresses
            or (job == "chief" and len(addresses) != 1)
        ):
            allowed = "one address" if job == "chief" else "a list of addresses"
            raise UsageError(
                f"TF_CONFIG cluster.{job} must be {allowed} ('host:port'); "
                f"received {_short(addresses)}"
            )
        for index, address in enumerate(addresses):
            where = f"cluster.{job}[{index}]"
            _check_address(where, address)
            if address in seen:
                raise UsageError(
                    f"TF_CONFIG {where} repeats the address {address!r} of "
                    f"{seen[address]}; every task needs its own host:port"
                )
            seen[address] = where
    task = values.get("task")
    if not isinstance(task, dict) or "type" not in task or "index" not in task:
        raise UsageError(
            'TF_CONFIG \'task\' must be {"type": "worker", "index": N} '
            f"(type chief or worker); received {_short(task)}"
        )
    task_type, index = task["type"], task["index"]
    if task_type not in cluster:
        raise UsageError(
            f"TF_CONFIG task.type {task_type!r} is not a job of the cluster; "
            f"allowed: {', '.join(j for j in JOBS if j in cluster)}"
        )
    if not isinstance(index, int) or isinstance(index, bool):
        raise UsageError(
            f"TF_CONFIG task.index must be an integer; received {index!r}"
        )
    count = len(cluster[task_type])
    if not 0 <= index < count:
        raise UsageError(
            f"TF_CONFIG task.index {index} is out of range: job "
            f"{task_type!r} has {count} address(es), so allowed: "
            f"0..{count - 1}"
        )


def _check_address(where, address):
    host, _, port = str(address).rpartition(":")
    if (
        not isinstance(address, str)
        or not host
        or not port.isdigit()
        or not 1 <= int(port) <= 65535
    ):
        raise UsageError(
            f"TF_CONFIG {where} must be 'host:port' with a port in "
            f"1..65535; received {address!r}"
        )


def check_own_port(cluster):
    """This task's port must be free here: TensorFlow's server binds it
    (and fails less clearly, or later, when it cannot)."""
    port = int(cluster.address.rpartition(":")[2])
    if processes.port_in_use(port):
        raise UsageError(
            f"TF_CONFIG cluster.{cluster.task_type}[{cluster.task_index}] = "
            f"{cluster.address}: port {port} is already in use on this "
            "machine; stop what holds it or give this task another port"
        )
