"""Step Functions task ``framing_check`` (infra/statemachines/query.asl.json).

Wiring only: the state is validated into its pydantic model, handed to
``tanda.pipeline.steps.framing_check_step`` with the adapters of a runtime built on the first
invocation (never at import: SnapStart, ``tanda.snapstart``), and returned as JSON. No web
framework is imported (cold start, DESIGN §2). Before a SnapStart snapshot the stage modules the
step runs are imported.
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


@instrumented("framing_check", kind="step")
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    # The task receives the whole state (no InputPath: moto's interpreter resolves the state's
    # TimeoutSecondsPath inconsistently against an InputPath-narrowed input).
    framing = event["work"]["framing"] if "work" in event else event
    output = steps.framing_check_step(
        steps.FramingInput.model_validate(framing), model=runtime().model
    )
    return output.model_dump(mode="json")


snapstart.register(prime_modules=(*snapstart.AWS_ADAPTERS, "tanda.judge.run"))
