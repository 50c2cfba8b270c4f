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
from tanda.pipeline import steps
from tanda.wiring import Runtime, build_runtime


@cache
def runtime() -> Runtime:
    return build_runtime()


@instrumented("agent", kind="step")
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    adapters = runtime()
    state = steps.QueryInput.model_validate(event)
    output = steps.agent_step(
        state,
        index=adapters.search_index,
        model=adapters.model,
        settings=adapters.settings,
        embedder=adapters.embedder,
        reranker=adapters.reranker,
        progress=adapters.progress if state.progress_id else None,
    )
    return output.model_dump(mode="json")


snapstart.register(
    prime_modules=(
        *snapstart.AWS_ADAPTERS,
        "tanda.agent.run",
        "tanda.agent.tools",
        "tanda.annotate.aggregate",
        "tanda.judge.reader_context",
        "tanda.pipeline.answer_v2",
        "tanda.pipeline.progress",
    )
)
