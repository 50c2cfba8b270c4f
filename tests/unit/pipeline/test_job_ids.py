"""Cross-check job ids sort by creation even within one millisecond (XC-2: the listing is
newest first and pages by id)."""

from __future__ import annotations

from tanda.pipeline.cross_check import new_job_id
from tanda.records.jobs import JOB_ID_PREFIX


def test_ids_opened_in_the_same_millisecond_sort_in_the_order_they_were_opened() -> None:
    now = 1_900_000_000.123
    ids = [new_job_id(now) for _ in range(200)]
    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)


def test_an_id_names_its_millisecond_and_a_later_millisecond_sorts_after() -> None:
    earlier = new_job_id(1_950_000_000.000)
    later = new_job_id(1_950_000_000.002)
    assert earlier.startswith(JOB_ID_PREFIX) and len(earlier) == len(later) == 3 + 12 + 16
    assert int(later[3:15], 16) == 1_950_000_000_002
    assert earlier < later
