"""Step Functions task ``judge_batch`` (infra/statemachines/query.asl.json), one Map iteration.

Wiring only: the state is validated into its pydantic model, handed to
``tanda.pipeline.steps.judge_batch_step`` with the adapters of a runtime built on the first
invocation (never at import: SnapStart, ``tanda.snapstart``), and returned as JSON. No web
framework is imported (cold start, DESIGN §2). Before a SnapStart snapshot the stage modules the
step runs are imported.
"""

from functools import cache
from typing import Any

from tanda import snapstart
from tanda.observability import instrumented
from tanda.pipeline import states, steps
from tanda.wiring import Runtime, build_runtime, snapshot_primes


@cache
def runtime() -> Runtime:
    return build_runtime()


@instrumented("judge_batch", kind="step")
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    batch = states.JudgeBatchInput.model_validate(event)
    return steps.judge_batch_step(batch, runtime().step_deps()).model_dump(mode="json")


snapstart.register(prime_modules=snapshot_primes("steps/judge_batch"))
