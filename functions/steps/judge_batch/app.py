"""Step Functions task ``judge_batch`` (infra/statemachines/query.asl.json).

Wiring only: the state is validated into its pydantic model and handed to
``tanda.pipeline.steps``. No web framework is imported (cold start, DESIGN §2). Before a SnapStart
snapshot the stage modules the step runs are imported (``tanda.snapstart``).
"""

from typing import Any

from tanda import snapstart
from tanda.observability import instrumented
from tanda.pipeline.steps import handle_judge_batch


@instrumented("judge_batch", kind="step")
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return handle_judge_batch(event)


snapstart.register(
    prime_modules=(
        *snapstart.AWS_ADAPTERS,
        "tanda.judge.run",
        "tanda.judge.reader_context",
        "tanda.annotate.aggregate",
    )
)
