"""Step Functions task ``xc_fail`` (infra/statemachines/cross_check.asl.json): store the job failed
with its code, refunded in the same write (XC-2).

Wiring only: the state is validated into its pydantic model, handed to its step
``tanda.pipeline.cross_check.fail_cross_check`` with the ports of a runtime
built on the first invocation (never at import: SnapStart, ``tanda.snapstart``), and returned as
JSON.
"""

from functools import cache
from typing import Any

from tanda import snapstart
from tanda.observability import instrumented
from tanda.pipeline import cross_check
from tanda.wiring import build_runtime, snapshot_primes


@cache
def ports() -> cross_check.CrossCheckPorts:
    return build_runtime().cross_check_ports()


@instrumented("xc_fail", kind="step")
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return cross_check.fail_cross_check(
        ports(), cross_check.XcFailure.model_validate(event)
    ).model_dump(mode="json")


snapstart.register(prime_modules=snapshot_primes("steps/xc_fail"))
