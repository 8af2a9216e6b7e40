"""online_metrics: weighted flow time beside weighted completion time, and the queue lengths,
on a hand-solved schedule."""

from __future__ import annotations

import numpy as np
import pytest

from schedrelax.instances import RelatedInstance, RelatedJob
from schedrelax.online.metrics import online_metrics
from schedrelax.schedules import Schedule, verify


def test_flow_time_and_queue_by_hand():
    # One machine of speed 1; job 0 (size 2, weight 1) at 0, job 1 (size 2, weight 2) at 1;
    # job 0 runs [0, 2], job 1 [2, 4]. C = (2, 4), F = (2, 3): Σ w F = 2 + 2·3 = 8, Σ w C = 2 + 8 = 10.
    # Span [0, 4]: mean jobs in system (2 + 3)/4 = 1.25; job 1 waits [1, 2]: mean waiting 1/4;
    # two jobs in system during [1, 2].
    inst = RelatedInstance(speeds=[1.0], jobs=(RelatedJob([2.0], 1.0, 0.0), RelatedJob([2.0], 2.0, 1.0)))
    s = Schedule(np.array([0, 1]), np.array([0, 0]), np.array([0, 0]), np.array([0.0, 2.0]), np.array([2.0, 4.0]),
                 np.array([1.0, 1.0]))
    verify(inst, s)
    m = online_metrics(inst, s)
    assert m["weighted_flow_time"] == pytest.approx(8.0)
    assert m["weighted_completion"] == pytest.approx(10.0)
    assert m["mean_jobs_in_system"] == pytest.approx(1.25)
    assert m["mean_jobs_waiting"] == pytest.approx(0.25)
    assert m["max_jobs_in_system"] == 2.0
    assert m["weighted_average_delay"] == pytest.approx(8.0 / 3.0)


def test_a_completion_at_an_arrival_is_not_two_jobs_in_system():
    # Job 0 [0, 2], job 1 arrives at 2 and runs [2, 4]: never more than one job in the system.
    inst = RelatedInstance(speeds=[1.0], jobs=(RelatedJob([2.0]), RelatedJob([2.0], 1.0, 2.0)))
    s = Schedule(np.array([0, 1]), np.array([0, 0]), np.array([0, 0]), np.array([0.0, 2.0]), np.array([2.0, 4.0]),
                 np.array([1.0, 1.0]))
    m = online_metrics(inst, s)
    assert m["max_jobs_in_system"] == 1.0 and m["mean_jobs_in_system"] == pytest.approx(1.0)
    assert m["mean_jobs_waiting"] == 0.0
