"""SynchPack-2's optional shift-back (paper 003 §4.2 substep 3.2, "We may also shift back future
tasks' schedules as far as the machine capacity allows"), a documented parameter: a hand-solved
case where it matters, and the guarantee that holds either way."""

import pytest

from schedrelax.algorithms import run
from schedrelax.instances import PackingInstance, PackingJob, PackingTask


def test_shift_back_moves_a_later_interval_into_free_room():
    # Capacity 1. A: a = 0.5, p = 1; B: a = 0.5, p = 4. LP2 puts B (p = 4) in a later interval than
    # A (an interval must be at least as long as its task). Substep 3.2 packs interval by interval
    # and B's interval starts when A's has completed: A [0, 1), B [1, 5), Σ C = 1 + 5 = 6. Shifted
    # back, B moves to time 0 (0.5 + 0.5 <= 1 beside A): B [0, 4), Σ C = 1 + 4 = 5.
    inst = PackingInstance([1.0], (PackingJob(tasks=(PackingTask(0.5, [0], 1.0),)),
                                   PackingJob(tasks=(PackingTask(0.5, [0], 4.0),))))
    off = run("synchpack2", inst, shift_back=False)
    on = run("synchpack2", inst, shift_back=True)
    assert off.evaluation.completion.tolist() == pytest.approx([1.0, 5.0])
    assert on.evaluation.completion.tolist() == pytest.approx([1.0, 4.0])
    assert (off.params["shift_back"], on.params["shift_back"]) == (False, True)
    # Theorem 2 either way: both are offline runs with the derandomised λ.
    assert off.guarantee == on.guarantee == 24.0
    assert off.lower_bound == on.lower_bound and off.objective <= 24 * off.lower_bound
