"""The process's shared thread pools survive a fork: a forked child (a pre-forking server, the
mutation tester's workers) inherits a pool object but none of its threads, so a task submitted to
it there would never run and every check would read as late."""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest

from tanda.agent.tools import _tool_pool
from tanda.judge.strict_judge import _call_pool
from tanda.pipeline.runners.in_process import _check_pool


@pytest.mark.parametrize("pool", [_check_pool, _call_pool, _tool_pool])
def test_a_shared_pool_runs_tasks_in_a_forked_child(pool: Callable[[], ThreadPoolExecutor]) -> None:
    # Given the pool built and used in this process (its threads started),
    assert pool().submit(lambda: 1).result(timeout=5) == 1

    # when a forked child submits a task to it,
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through its exit status
        try:
            ran = pool().submit(lambda: 1).result(timeout=5) == 1
        except Exception:
            ran = False
        os._exit(0 if ran else 1)

    # then the task runs there (the child exits 0 within the 5 s it waits).
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
