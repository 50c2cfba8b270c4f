"""The one factory that turns settings into adapters (DESIGN §1: one code path).

A ``Runtime`` is built once per process (per Lambda container) and handed to the app; each
adapter is built on first use so a route pays only for what it touches (cold start).

Layer (DESIGN §2): above the service, below the surfaces. Only this module (and tests, bench)
imports ``tanda.adapters``; a use case takes the runtime as ``tanda.service.runtime.Runtime``, a
Protocol this class satisfies structurally.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tanda.auth import Authenticator
    from tanda.model_calls import ChatModel
    from tanda.pipeline.cross_check import CrossCheckPorts
    from tanda.pipeline.runners import Runner
    from tanda.pipeline.runners.cross_check import JobLauncher
    from tanda.pipeline.steps import AgentPorts, StepDeps
    from tanda.ports import Embedder, Progress, Reranker, SearchIndex, Store
    from tanda.retrieval.fusion import FusionConfig
    from tanda.settings import Settings


@dataclass
class Runtime:
    settings: Settings
    clock: Callable[[], float] = field(default=time.time)
    """Epoch seconds: when a turn starts, and what every step measures its deadline on."""

    @cached_property
    def authenticator(self) -> Authenticator:
        from tanda.auth import Authenticator

        return Authenticator.from_settings(self.settings)

    @cached_property
    def store(self) -> Store:
        spec = self.settings.store
        if spec == "sqlite":
            from tanda.adapters.sqlite_store import SqliteStore

            return SqliteStore(self.settings.home / "store.sqlite")
        if spec == "dynamodb":
            from tanda.adapters.dynamodb_store import DynamoStore

            return DynamoStore.from_settings(self.settings)
        raise ValueError(f"TANDA_STORE: unknown store {spec!r} (sqlite | dynamodb)")

    @cached_property
    def progress(self) -> Progress:
        """Progress events of answers run on the state machine: DynamoDB beside a DynamoDB store
        (the agent step and the stream function are different Lambdas), else one process's
        memory. The in-process runner needs neither: it hands the stream's callback to the
        agent step."""
        if self.settings.store == "dynamodb":
            from tanda.adapters.dynamodb_progress import DynamoProgress

            return DynamoProgress.from_settings(self.settings)
        from tanda.adapters.memory_progress import MemoryProgress

        return MemoryProgress()

    @cached_property
    def fusion(self) -> FusionConfig:
        from tanda.retrieval.fusion import FusionConfig

        return FusionConfig(k=self.settings.rrf_k, weights=dict(self.settings.rrf_weights))

    @cached_property
    def search_index(self) -> SearchIndex:
        spec = self.settings.index
        if spec == "sqlite":
            from tanda.adapters.sqlite_index import SqliteSearchIndex

            return SqliteSearchIndex(self.settings.home / "index.sqlite", fusion=self.fusion)
        if spec.startswith("opensearch:"):
            from tanda.adapters.opensearch_index import OpenSearchIndex

            return OpenSearchIndex.from_settings(self.settings)
        raise ValueError(f"TANDA_INDEX: unknown search index {spec!r} (sqlite | opensearch:URL)")

    @cached_property
    def model(self) -> ChatModel:
        return build_model(self.settings.model)

    @cached_property
    def ask_model(self) -> ChatModel | None:
        """The /v1/ask synthesis model: ``TANDA_ASK_MODEL``, else the answering model; ``None``
        when it is ``none`` (RAG not configured → 503 ``rag_unavailable``, ASK-04)."""
        spec = (self.settings.ask_model or "").strip()
        if not spec or spec == self.settings.model:  # `TANDA_ASK_MODEL=` is unset too
            return self.model
        if spec == "none":
            return None
        return build_model(spec)

    @cached_property
    def runner(self) -> Runner:
        """The one runner of this process (DESIGN §4): in-process (``TANDA_RUNNER=inprocess``)
        or the query state machine (``stepfunctions``)."""
        if self.settings.runner == "inprocess":
            from tanda.pipeline.runners.in_process import InProcessRunner

            return InProcessRunner(self.step_deps(), self.agent_ports())
        if self.settings.runner == "stepfunctions":
            from tanda.pipeline.runners.stepfunctions import StepFunctionsRunner

            return StepFunctionsRunner(
                _stepfunctions_client(self.settings),
                self.settings.query_state_machine_arn or "",
                self.progress,
            )
        raise ValueError(f"TANDA_RUNNER: unknown runner {self.settings.runner!r}")

    def step_deps(self) -> StepDeps:
        """What every step takes: the model, the settings, the clock."""
        from tanda.pipeline.steps import StepDeps

        return StepDeps(model=self.model, settings=self.settings, clock=self.clock)

    def agent_ports(self, progress_id: str | None = None) -> AgentPorts:
        """What the agent step reads through; with a ``progress_id`` (a stream answered on the
        state machine) its tool frames are published to ``progress`` under that id."""
        from tanda.pipeline.steps import AgentPorts

        sink = None
        if progress_id is not None:
            from tanda.pipeline.progress import publisher

            sink = publisher(self.progress, progress_id)
        return AgentPorts(
            index=self.search_index,
            embedder=self.embedder,
            reranker=self.reranker,
            progress=sink,
        )

    def cross_check_ports(self) -> CrossCheckPorts:
        """What the cross-check job steps read and write through (XC-2)."""
        from tanda.pipeline.cross_check import CrossCheckPorts

        return CrossCheckPorts(
            store=self.store,
            index=self.search_index,
            model=self.model,
            embedder=self.embedder,
            settings=self.settings,
        )

    @cached_property
    def cross_check_jobs(self) -> JobLauncher:
        """What runs cross-check jobs (DESIGN §4): the STANDARD state machine when
        ``TANDA_RUNNER=stepfunctions``, else this process's worker pool — started here, so
        that jobs a previous process left open are resumed (``tanda serve`` builds it when it
        starts)."""
        settings = self.settings
        if settings.runner == "stepfunctions":
            import boto3

            from tanda.pipeline.runners.cross_check import StepFunctionsJobs

            return StepFunctionsJobs(
                boto3.client("stepfunctions"), settings.cross_check_state_machine_arn or ""
            )
        from tanda.pipeline.runners.cross_check import CrossCheckWorkers

        workers = CrossCheckWorkers(
            self.cross_check_ports(),
            workers=settings.xc_workers,
            lease_s=settings.xc_lease_s,
            max_attempts=settings.xc_max_attempts,
        )
        workers.start()
        return workers

    @property
    def scripted(self) -> bool:
        return self.settings.model.startswith("scripted:")

    @property
    def scenarios(self) -> Collection[str] | None:
        """The scripted model's scenario names (``X-Tanda-Scenario``); ``None`` under any other
        model."""
        if not self.scripted:
            return None
        from tanda.adapters.scripted import ScriptedModel

        model = self.model
        return model.scenarios if isinstance(model, ScriptedModel) else None

    @cached_property
    def embedder(self) -> Embedder | None:
        from tanda.adapters.embedders import build_embedder

        return build_embedder(self.settings.embedder)

    @cached_property
    def reranker(self) -> Reranker | None:
        """The reranker of the floor (ASK-06); ``None`` when ``TANDA_RERANKER=none``."""
        from tanda.adapters.rerankers import build_reranker

        return build_reranker(self.settings.reranker, timeout_s=self.settings.reranker_timeout_s)


def build_model(spec: str) -> ChatModel:
    """The ``ChatModel`` a ``TANDA_MODEL`` value names."""
    if spec == "offline":
        from tanda.adapters.offline import OfflineModel

        return OfflineModel()
    if spec.startswith("scripted:"):
        from tanda.adapters.scripted import ScriptedModel

        return ScriptedModel.from_dir(spec.removeprefix("scripted:"))
    if spec.startswith("openai:"):
        from tanda.adapters.openai_compat import OpenAICompatModel

        return OpenAICompatModel.from_spec(spec)
    if spec.startswith("bedrock:"):
        from tanda.adapters.bedrock import BedrockModel

        return BedrockModel(spec.removeprefix("bedrock:"))
    raise ValueError(
        f"TANDA_MODEL: unknown model {spec!r} "
        "(offline | scripted:DIR | openai:URL[#MODEL] | bedrock:MODEL_ID)"
    )


def build_runtime(settings: Settings | None = None) -> Runtime:
    # The settings (pydantic-settings) load on the first invocation, not at a step's import
    # (cold start, issue 24).
    from tanda.settings import load_settings

    return Runtime(settings=settings or load_settings())


def _stepfunctions_client(settings: Settings) -> object:
    """The boto3 client the Step Functions runner starts executions with."""
    import boto3
    from botocore.config import Config

    from tanda.pipeline.runners.stepfunctions import READ_TIMEOUT_MARGIN_S

    return boto3.client(
        "stepfunctions",
        config=Config(
            read_timeout=settings.request_deadline_s + READ_TIMEOUT_MARGIN_S,
            connect_timeout=5,
            # A retried StartSyncExecution would answer twice: never retry it.
            retries={"max_attempts": 1, "mode": "standard"},
        ),
    )


@contextmanager
def scratch_search_index(path: Path) -> Iterator[SearchIndex]:
    """An embedded index of its own at ``path`` with the default fusion, closed on exit
    (``tanda eval retrieval`` ingests a BEIR corpus into one)."""
    from tanda.adapters.sqlite_index import SqliteSearchIndex

    index = SqliteSearchIndex(path)
    try:
        yield index
    finally:
        index.close()
