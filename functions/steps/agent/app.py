"""Step Functions task ``agent`` (infra/statemachines/query.asl.json).

Wiring only: the state is validated into its pydantic model, handed to
``tanda.pipeline.steps.agent_step`` with the adapters of a runtime built on the first invocation
(never at import: SnapStart, ``tanda.snapstart``), and returned as JSON. No web framework is
imported (cold start, DESIGN §2). Before a SnapStart snapshot the stage modules the step runs are
imported.
"""

from functools import cache
from typing import Any

from tanda import snapstart
from tanda.observability import instrumented
from tanda.pipeline import request, steps
from tanda.wiring import Runtime, build_runtime, snapshot_primes


@cache
def runtime() -> Runtime:
    return build_runtime()


@instrumented("agent", kind="step")
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    turn = request.AnswerRequest.model_validate(event)
    adapters = runtime()
    output = steps.agent_step(turn, adapters.step_deps(), adapters.agent_ports(turn.progress_id))
    return output.model_dump(mode="json")


snapstart.register(prime_modules=snapshot_primes("steps/agent"))
