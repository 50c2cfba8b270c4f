"""Step Functions task ``framing_check`` (infra/statemachines/query.asl.json).

Wiring only: the state is validated into its pydantic model and handed to
``tanda.pipeline.steps``. No web framework is imported (cold start, DESIGN §2). Before a SnapStart
snapshot the stage modules the step runs are imported (``tanda.snapstart``).
"""

from typing import Any

from tanda import snapstart
from tanda.observability import instrumented
from tanda.pipeline.steps import handle_framing_check


@instrumented("framing_check", kind="step")
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return handle_framing_check(event)


snapstart.register(prime_modules=(*snapstart.AWS_ADAPTERS, "tanda.judge.run"))
