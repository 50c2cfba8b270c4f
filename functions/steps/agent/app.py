"""Step Functions task ``agent`` (infra/statemachines/query.asl.json).

Wiring only: the state is validated into its pydantic model and handed to
``tanda.pipeline.steps``. No web framework is imported (cold start, DESIGN §2).
"""

from typing import Any

from tanda.observability import instrumented
from tanda.pipeline.steps import handle_agent


@instrumented("agent", kind="step")
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return handle_agent(event)
