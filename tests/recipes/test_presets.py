"""Every preset that ships with the package loads offline from the
checkout on every backend and computes, on its fixed inputs, what its
metadata recorded when it was exported."""

import importlib

import numpy as np
import pytest

import zoo


@pytest.mark.every_backend
@pytest.mark.parametrize("name", zoo.presets.list())
def test_a_shipped_preset_computes_what_its_metadata_recorded(name):
    found = zoo.presets.verify(name)
    model = zoo.presets.from_preset(name, kind=found["kind"])
    assert model.count_params() == found["parameter_count"]
    task = importlib.import_module(found["recipe"]).TASK
    assets = {a: zoo.presets.asset(name, a) for a in task.RUN_ASSETS}
    fixed = task.preset_check(model, assets)
    recorded = found["fixed_inputs"]
    assert fixed.keys() == recorded.keys()
    for key, value in recorded.items():
        if isinstance(value, list) and value and isinstance(value[0], float):
            np.testing.assert_allclose(fixed[key], value, atol=2e-3)
        else:
            assert fixed[key] == value, key
