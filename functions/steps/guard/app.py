"""Step Functions task ``guard`` (infra/statemachines/query.asl.json).

Wiring only: the state is validated into its pydantic model, handed to
``tanda.pipeline.steps.guard_step`` with the adapters of a runtime built on the first invocation
(never at import: SnapStart, ``tanda.snapstart``), and returned as JSON. No web framework is
imported (cold start, DESIGN §2). Before a SnapStart snapshot the stage modules the step runs are
imported.
"""

from functools import cache
from typing import Any

from tanda import snapstart
from tanda.observability import instrumented
from tanda.pipeline import steps
from tanda.wiring import Runtime, build_runtime


@cache
def runtime() -> Runtime:
    return build_runtime()


@instrumented("guard", kind="step")
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    output = steps.guard_step(steps.GuardInput.model_validate(event), model=runtime().model)
    return output.model_dump(mode="json")


snapstart.register(
    prime_modules=(
        *snapstart.AWS_ADAPTERS,
        "tanda.guard.run",
        "tanda.annotate.aggregate",
        "tanda.annotate.compose",
        "tanda.pipeline.notices",
    )
)
