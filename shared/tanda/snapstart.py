"""Lambda SnapStart: what a function does before its snapshot and after a restore (issue 12).

With SnapStart, Lambda runs a function's init once per published version, snapshots the
execution environment, and resumes later cold starts from that snapshot. Everything init leaves in
memory is shared by every environment restored from it, so:

- **before the snapshot** (:func:`prime`): import what the first request would otherwise import
  lazily — the use case, the adapters an AWS deployment selects, the AWS SDK — so a restored
  environment does not pay for it. Which modules, per function, is the factory's to say
  (``tanda.wiring.snapshot_primes``); this module only imports the names it is handed. Imports
  only: nothing reads the settings, opens a connection or builds an SDK client here
  (credentials and sockets would be stale after a restore), which is also why the entry modules
  keep building the runtime on the first request. A primed module may read its package's own
  files too (a ``before_snapshot()`` function: the AWS SDK's service models);
- **after a restore** (:func:`reseed`): the ``random`` module was seeded once, at init; every
  restored environment would draw the same retry jitter, so it is seeded again.

The Python runtime calls hooks registered with ``snapshot_restore_py`` (part of the python3.12+
managed runtimes, and only there: locally :func:`register` does nothing). The stream functions
run uvicorn under the Lambda Web Adapter, which owns the runtime API; it POSTs two paths of the
app instead (:func:`install_lwa_hooks`, paths in ``template.yaml``).
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastapi import FastAPI

# The Lambda Web Adapter's hook paths (AWS_LWA_SNAPSTART_*_PATH in template.yaml); the adapter
# answers 403 to these paths when they come from outside.
LWA_BEFORE_CHECKPOINT_PATH = "/_snapstart/before-checkpoint"
LWA_AFTER_RESTORE_PATH = "/_snapstart/after-restore"


def prime(modules: Sequence[str]) -> None:
    """Import ``modules`` now, before the snapshot, instead of on the first request; a module
    with a ``before_snapshot()`` function has it called too (``tanda.adapters.aws_sdk``: the
    SDK's own model files, read once — files of a package, never settings or a connection)."""
    for name in modules:
        module = importlib.import_module(name)
        hook = getattr(module, "before_snapshot", None)
        if callable(hook):
            hook()


def reseed() -> None:
    """Seed ``random`` again from the OS: a restored environment must not share the snapshot's
    sequence with every other one restored from it."""
    random.seed()


def register(prime_modules: Sequence[str] = ()) -> bool:
    """Register :func:`prime` (of ``prime_modules``) and :func:`reseed` with the Python
    runtime's SnapStart hooks. Returns whether a runtime with hooks was found."""
    try:
        from snapshot_restore_py import register_after_restore, register_before_snapshot
    except ImportError:  # not on Lambda, nor the aws extra: there is no snapshot to prepare
        return False
    register_before_snapshot(prime, tuple(prime_modules))
    register_after_restore(reseed)
    return True


def install_lwa_hooks(app: FastAPI, prime_modules: Sequence[str] = ()) -> None:
    """Serve the Lambda Web Adapter's SnapStart hooks on ``app`` (stream functions)."""
    modules = tuple(prime_modules)

    @app.post(LWA_BEFORE_CHECKPOINT_PATH, include_in_schema=False, status_code=204)
    def before_checkpoint() -> None:
        prime(modules)

    @app.post(LWA_AFTER_RESTORE_PATH, include_in_schema=False, status_code=204)
    def after_restore() -> None:
        reseed()
