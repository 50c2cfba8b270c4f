"""Thread pools shared by every request of the process (kernel): built on first use, and built
again in a forked child. A child inherits the pool object but none of its threads; a task
submitted there would wait forever, and every judge batch or tool call would read as late (a
pre-forking server, the mutation tester's workers)."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor


class SharedPool:
    """``get()`` is the process's pool of ``workers`` threads named ``name``."""

    def __init__(self, workers: int, name: str) -> None:
        self.workers = workers
        self.name = name
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        os.register_at_fork(after_in_child=self._forget)

    def get(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(
                    max_workers=self.workers, thread_name_prefix=self.name
                )
            return self._pool

    def _forget(self) -> None:
        # In the child: its threads are gone, and the lock may have been held by one of them.
        self._pool = None
        self._lock = threading.Lock()
