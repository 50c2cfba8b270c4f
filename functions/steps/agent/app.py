"""Step Functions task ``agent`` (infra/statemachines/query.asl.json).

Wiring only: the state is validated into its pydantic model and handed to
``tanda.pipeline.steps``. No web framework is imported (cold start, DESIGN §2). Before a SnapStart
snapshot the stage modules the step runs are imported (``tanda.snapstart``).
"""

from typing import Any

from tanda import snapstart
from tanda.observability import instrumented
from tanda.pipeline.steps import handle_agent


@instrumented("agent", kind="step")
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return handle_agent(event)


snapstart.register(
    prime_modules=(
        *snapstart.AWS_ADAPTERS,
        "tanda.agent.run",
        "tanda.agent.tools",
        "tanda.annotate.aggregate",
        "tanda.judge.reader_context",
        "tanda.pipeline.answer_v2",
    )
)
