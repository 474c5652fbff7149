#!/usr/bin/env bash
# One prepared GPU run of benchmarks/gpu.py (see its docstring).
#
#   bash benchmarks/gpu.sh prepare     here, once: the Keras wheels -> .whl/
#   bash benchmarks/gpu.sh [ARGS...]   on the device machine, in one call:
#       run(command="bash benchmarks/gpu.sh", carry=[".whl"], timeout_s=590)
#
# The device machine's image has PyTorch and JAX but neither TensorFlow nor
# Keras; Keras and the two of its dependencies the image lacks (namex,
# optree) travel as Python 3.12 x86-64 wheels in the git-ignored .whl/ and
# are installed into /tmp/site. ARGS go to gpu.py. With $OUT set (the device
# tool's output folder), the log goes to $OUT/gpu.log and the JSON and PNG
# are copied there too.
set -u
cd "$(dirname "$0")/.." || exit 1

if [ "${1:-}" = prepare ]; then
    PY=${PYTHON:-.venv/bin/python}
    mkdir -p .git/info
    grep -qxF '/.whl/' .git/info/exclude 2>/dev/null ||
        echo '/.whl/' >>.git/info/exclude
    pins=$("$PY" - <<'PY'
import importlib.metadata as m
print(" ".join(f"{n}=={m.version(n)}" for n in ("keras", "namex", "optree")))
PY
    ) || exit 1
    rm -f .whl/*.whl
    # shellcheck disable=SC2086
    "$PY" -m pip download --no-deps --only-binary=:all: \
        --python-version 3.12 --implementation cp \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
        --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
        --platform manylinux1_x86_64 -d .whl $pins || exit 1
    ls -l .whl
    exit 0
fi

if ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile \
        --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
elif ! python3 -c "import keras" 2>/dev/null; then
    echo "no Keras and no .whl/: run 'bash benchmarks/gpu.sh prepare' here" \
        "and carry .whl"
    exit 1
fi
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm \
    --format=csv 2>/dev/null
set -o pipefail
if [ -n "${OUT:-}" ]; then
    python3 benchmarks/gpu.py --copy-to "$OUT" "$@" 2>&1 | tee "$OUT/gpu.log"
else
    python3 benchmarks/gpu.py "$@"
fi
