"""SnapStart hooks (``tanda.snapstart``, issue 12): priming imports before the snapshot, a fresh
``random`` sequence after every restore, for the Python runtime and the Lambda Web Adapter."""

from __future__ import annotations

import asyncio
import importlib.util
import random
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import snapshot_restore_py
from fastapi import FastAPI

from tanda import snapstart, wiring

PRIMED = "colorsys"  # a module nothing else here imports: forgetting it is harmless


@pytest.fixture
def runtime_hooks() -> Iterator[None]:
    """The runtime library's registries, emptied around the test as a fresh runtime has them."""
    before = list(snapshot_restore_py.get_before_snapshot())
    after = list(snapshot_restore_py.get_after_restore())
    snapshot_restore_py.get_before_snapshot().clear()
    snapshot_restore_py.get_after_restore().clear()
    yield
    snapshot_restore_py.get_before_snapshot()[:] = before
    snapshot_restore_py.get_after_restore()[:] = after


def run_hooks(registry: list[tuple[object, tuple[object, ...], dict[str, object]]]) -> None:
    # As the Python runtime does: each registered callable with its registered arguments.
    for func, args, kwargs in registry:
        func(*args, **kwargs)  # type: ignore[operator]


def forget(module: str) -> None:
    for name in [m for m in sys.modules if m == module or m.startswith(module + ".")]:
        del sys.modules[name]


def snapshot_sequence() -> list[float]:
    random.seed(1234)  # the state init left in the snapshot
    return [random.random() for _ in range(3)]


def test_register_hands_prime_and_reseed_to_the_python_runtime(runtime_hooks: None) -> None:
    # Given an entry module that registers its modules to prime,
    forget(PRIMED)
    assert snapstart.register(prime_modules=(PRIMED,)) is True

    # when the runtime runs the before-snapshot hooks, then the module is imported;
    run_hooks(snapshot_restore_py.get_before_snapshot())
    assert PRIMED in sys.modules

    # and when it runs the after-restore hooks, the snapshot's random sequence is not replayed.
    replayed = snapshot_sequence()
    random.seed(1234)
    run_hooks(snapshot_restore_py.get_after_restore())
    assert [random.random() for _ in range(3)] != replayed


def test_a_module_that_cannot_be_primed_fails_the_snapshot(runtime_hooks: None) -> None:
    # A wrong name must fail the version's publication (init error), not pass silently.
    snapstart.register(prime_modules=("tanda.no_such_module",))
    with pytest.raises(ModuleNotFoundError):
        run_hooks(snapshot_restore_py.get_before_snapshot())


def adapter_post(app: FastAPI, path: str) -> int:
    """POST ``path`` to the app as the adapter does (in process: unit tests have no sockets)."""

    async def post() -> int:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return (await client.post(path)).status_code

    return asyncio.run(post())


def test_the_lambda_web_adapter_hooks_prime_and_reseed_the_app() -> None:
    # Given a stream function's app with the adapter's hook paths installed,
    app = FastAPI()
    snapstart.install_lwa_hooks(app, prime_modules=(PRIMED,))
    forget(PRIMED)

    # when the adapter POSTs before the checkpoint, then the modules are imported;
    assert adapter_post(app, snapstart.LWA_BEFORE_CHECKPOINT_PATH) == 204
    assert PRIMED in sys.modules

    # and after a restore, the random sequence is a new one.
    replayed = snapshot_sequence()
    random.seed(1234)
    assert adapter_post(app, snapstart.LWA_AFTER_RESTORE_PATH) == 204
    assert [random.random() for _ in range(3)] != replayed


def test_the_hook_paths_stay_out_of_the_openapi_document() -> None:
    app = FastAPI()
    snapstart.install_lwa_hooks(app)
    assert not any(path.startswith("/_snapstart") for path in app.openapi()["paths"])


# --- what each function primes: one map, owned by the factory (issue 24) ----------------------

REPO = Path(__file__).resolve().parents[2]
FUNCTIONS = sorted(
    str(app.parent.relative_to(REPO / "functions")) for app in REPO.glob("functions/**/app.py")
)
SURFACES = ("tanda.api", "tanda.cli", "tanda.mcp")


def test_every_function_asks_the_factory_for_its_own_primes() -> None:
    # Given the Lambda functions under functions/, each has an entry in the factory's map, the
    # map names no other function, and each entry module asks for its own folder's entry.
    assert sorted(wiring.SNAPSHOT_PRIMES) == FUNCTIONS
    for function in FUNCTIONS:
        source = (REPO / "functions" / function / "app.py").read_text(encoding="utf-8")
        assert f'prime_modules=snapshot_primes("{function}")' in source, function


@pytest.mark.parametrize("function", FUNCTIONS)
def test_every_module_a_function_primes_exists_below_the_factory(function: str) -> None:
    # A name the snapshot cannot import would fail the version's publication; a surface named as
    # a string would be an import the contracts cannot see (the factory sits below them).
    for module in wiring.snapshot_primes(function):
        assert importlib.util.find_spec(module) is not None, module
        assert not module.startswith(SURFACES), module


def test_an_unknown_function_has_no_primes() -> None:
    with pytest.raises(KeyError):
        wiring.snapshot_primes("steps/no_such_step")
