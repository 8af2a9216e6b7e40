"""The paper-fit parameters of the flowflex and flex generators and their setups."""

import numpy as np
import pytest

from schedrelax.errors import InstanceError
from schedrelax.instances.generate import SETUPS, flowflex, generate


def test_max_procs_low_bounds_the_maxima():
    inst = flowflex(3, processors=100, max_procs_low=0.5)
    assert inst.max_procs.min() >= 50 and inst.max_procs.max() <= 100
    # 0.505 of 100 is 50.5: the smallest allowed maximum is 51.
    assert flowflex(3, processors=100, max_procs_low=0.505).max_procs.min() >= 51


def test_size_decades_zero_puts_every_flow_median_at_p():
    # With d = 0 each flow's median is P exactly; job sizes are lognormal(0, 0.5) around it, so the
    # log of sizes / P has mean near 0 over many jobs (sd 0.5 / sqrt(n)).
    inst = flowflex(5, processors=100, n_flows=20, jobs_per_flow=20, size_decades=0.0)
    logs = np.log(inst.size / 100.0)
    assert abs(logs.mean()) < 4 * 0.5 / np.sqrt(len(logs))


def test_integer_weights_are_whole_numbers_from_1_to_10():
    inst = flowflex(2, n_flows=20, cost="weighted_completion", integer_weights=True)
    w = np.array([fl.cost.weight for fl in inst.flows])
    assert np.all(w == np.round(w)) and w.min() >= 1 and w.max() <= 10
    sla = flowflex(2, n_flows=20, cost="sla", integer_weights=True)
    h = np.concatenate([fl.cost.heights for fl in sla.flows])
    assert np.all(h == np.round(h))


@pytest.mark.parametrize("params, field", [({"max_procs_low": 1.5}, "max_procs_low"),
                                           ({"size_decades": -1.0}, "size_decades"),
                                           ({"integer_weights": "yes"}, "integer_weights")])
def test_bad_fit_parameters_raise_naming_the_field(params, field):
    with pytest.raises(InstanceError, match=field):
        flowflex(0, **params)


def test_paper_fit_setups_are_registered_after_their_family_entry():
    names = list(SETUPS)
    assert names.index("flowflex-paper-fit") == names.index("flowflex") + 1
    assert names.index("flex-paper-fit") == names.index("flex") + 1
    inst = generate("malleable", "flex-paper-fit", 1)
    # total work 500 over 5 jobs on 10 slots: every job's slot demand reaches P.
    assert inst.size.sum() == pytest.approx(500.0)
    assert np.all(inst.max_procs == 10)
