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
    from tanda.contract.knowledge import ComponentStatus
    from tanda.model_calls import ChatModel
    from tanda.pipeline.cross_check import CrossCheckPorts, XcJobRef
    from tanda.pipeline.runners import Runner
    from tanda.pipeline.runners.cross_check import CrossCheckWorkers, JobLauncher
    from tanda.pipeline.steps import AgentPorts, StepDeps
    from tanda.ports import Embedder, Originals, Progress, Reranker, SearchIndex, Store
    from tanda.records.uploads import DocumentUpload
    from tanda.retrieval.fusion import FusionConfig
    from tanda.service.imports import ImportLauncher
    from tanda.service.uploads import UploadPorts
    from tanda.settings import Settings
    from tanda.sources import SourceConnector

RUNNERS = ("inprocess", "stepfunctions")
"""The deployment modes (``TANDA_RUNNER``): everything runs in this process (embedded), or the
answers and the cross-check jobs run on state machines whose tasks are other Lambdas (AWS).
Only this module reads ``settings.runner``; callers ask the runtime what the mode means for
them (:attr:`Runtime.runs_jobs_here`, :meth:`Runtime.job_runner_status`)."""


# --- what each Lambda function imports before its SnapStart snapshot (tanda.snapstart) ---------
# Module names, imported by ``tanda.snapstart.prime`` in the snapshot instead of on the first
# request. They live here, beside the code that imports them lazily: the adapters an AWS
# deployment selects are this factory's choice (tests/unit/test_snapstart.py checks that every
# name imports and sits where this module may import it). Names only: nothing is built
# (tanda.adapters.aws_sdk also reads the SDK's own model files: no setting, no client).

_AWS_ADAPTERS: tuple[str, ...] = (
    "tanda.wiring",
    "tanda.settings",  # read by build_runtime on the first request
    "tanda.adapters.dynamodb_store",
    "tanda.adapters.dynamodb_progress",
    "tanda.pipeline.runners.stepfunctions",
    "tanda.adapters.opensearch_index",
    "tanda.adapters.s3_originals",
    "tanda.adapters.offline",
    "tanda.adapters.bedrock",
    "tanda.adapters.openai_compat",
    "tanda.adapters.embedders",
    "tanda.adapters.rerankers",
    "aws_lambda_powertools",
    "boto3",
    "tanda.adapters.aws_sdk",
)
"""What an AWS deployment of template.yaml builds on a first request, whichever the function:
the adapters (and the Step Functions runner) its settings can select there, and the SDK with
the model files of the services they call (issue 24: not read on the first request after a
restore)."""

_ROUTE: tuple[str, ...] = (
    *_AWS_ADAPTERS,
    "anyio._backends._asyncio",
    "tanda.auth",
    "tanda.auth.tokens",
    "tanda.auth.local",
    "tanda.auth.directory",
)
"""What the first request of every API route imports beyond its entry module: the above,
anyio's asyncio backend (Mangum and uvicorn run the app on asyncio; anyio loads it on first use)
and the partner credentials' checks. A route adds its use case."""

_ANSWER_STEP: tuple[str, ...] = (
    *_AWS_ADAPTERS,
    "tanda.pipeline.steps",
    "tanda.conversations.scope",
    "tanda.agent.source_tools",
    "tanda.agent.tool_loop",
    "tanda.agent.tools",
    "tanda.retrieval.question",
    "tanda.pipeline.routing",
    "tanda.judge.strict_judge",
    "tanda.judge.framing_check",
    "tanda.annotate.gate",
    "tanda.guard.policy_guard",
    "tanda.pipeline.proof",
    "tanda.pipeline.progress",
    "tanda.numbers",
)
"""A task of the query state machine (functions/steps/*): each step imports the stages it runs
when it first runs (issue 24: an on-demand cold start pays only for its own step), the progress
publisher (agent step of a stream) and the quantities the judge's numbers check reads likewise.
A snapshot holds them all."""

_JOB_STEP: tuple[str, ...] = (*_AWS_ADAPTERS, "tanda.pipeline.cross_check")
"""A task of the cross-check state machine; each adds the stage modules its step runs."""

_ANSWER_ROUTE: dict[str, tuple[str, ...]] = {
    "playground": (*_ROUTE, "tanda.service.playground"),
    "query_v1": (*_ROUTE, "tanda.service.answer_v1"),
    "query_v1_stream": (*_ROUTE, "tanda.service.answer_v1"),
    "query_v2": (*_ROUTE, "tanda.service.answer_v2"),
    "query_v2_stream": (*_ROUTE, "tanda.service.answer_v2"),
}

SNAPSHOT_PRIMES: dict[str, tuple[str, ...]] = {
    # liveness: instrumented() logs with Powertools; FastAPI runs the sync route on anyio
    "health": ("aws_lambda_powertools", "anyio._backends._asyncio"),
    "conversations": _ROUTE,
    "mcp": (
        *_ROUTE,
        "tanda.service.knowledge",
        "tanda.service.ask_v1",
        "tanda.ask.run",
        "tanda.service.cross_check",
        "tanda.pipeline.runners.cross_check",
        "mcp.server.streamable_http",
        "mcp.server.runner",
    ),
    **_ANSWER_ROUTE,
    "v1_ask": (*_ROUTE, "tanda.service.ask_v1", "tanda.ask.run"),
    "v1_cross_check": (
        *_ROUTE,
        "tanda.service.cross_check",
        "tanda.service.usage_v1",
        "tanda.pipeline.runners.cross_check",
    ),
    "v1_search": (*_ROUTE, "tanda.service.search_v1"),
    "v1_documents": (
        *_ROUTE,
        "tanda.service.documents",
        "tanda.service.document_uploads",
        "tanda.service.uploads",
        "tanda.service.imports",
        "tanda.pipeline.runners.bulk_ingest",
    ),
    "ingest": (
        *_AWS_ADAPTERS,
        "tanda.service.ingest_events",
        "tanda.service.uploads",
        "tanda.service.documents",
        "tanda.service.ingest",
        "aws_lambda_powertools.utilities.batch",
    ),
    "steps/agent": _ANSWER_STEP,
    "steps/framing_check": _ANSWER_STEP,
    "steps/guard": _ANSWER_STEP,
    "steps/judge_batch": _ANSWER_STEP,
    "steps/xc_fail": _JOB_STEP,
    "steps/xc_finish": (*_JOB_STEP, "tanda.crosscheck.findings", "tanda.crosscheck.reader"),
    "steps/xc_judge_batch": (*_JOB_STEP, "tanda.crosscheck.judge", "tanda.crosscheck.reader"),
    "steps/xc_open": (*_JOB_STEP, "tanda.adapters.dynamodb_store"),
    "steps/xc_prepare": (
        *_JOB_STEP,
        "tanda.crosscheck",
        "tanda.crosscheck.candidates",
        "tanda.crosscheck.reader",
    ),
}
"""Per Lambda function (its folder under ``functions/``), the modules its SnapStart snapshot
imports: what its first request would otherwise import lazily."""


def snapshot_primes(function: str) -> tuple[str, ...]:
    """The modules ``functions/<function>/app.py`` primes before its snapshot (KeyError for a
    function this map does not know: its publication fails instead of priming nothing)."""
    return SNAPSHOT_PRIMES[function]


@dataclass
class Runtime:
    settings: Settings
    clock: Callable[[], float] = field(default=time.time)
    """Epoch seconds: when a turn starts, and what every step measures its deadline on."""

    @cached_property
    def authenticator(self) -> Authenticator:
        from tanda.auth import Authenticator

        # Issue 27: the Store's keys and tenants beside the settings' (the bootstrap path),
        # built when first read: a request the settings answer alone (no credentials → 401)
        # builds no Store, and on AWS no SDK client (issue 24, first invoke after a restore).
        return Authenticator.from_settings(self.settings, store=lambda: self.store)

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
        """Where the agent step publishes an answer's tool frames and the stream reads them: the
        two meet only when the answer runs on the state machine (``TANDA_RUNNER=stepfunctions``:
        the agent step and the stream function are different Lambdas), so it is chosen by the
        runner — DynamoDB there, one process's memory otherwise. The in-process runner needs
        neither: it hands the stream's callback to the agent step."""
        if self._on_state_machines:
            from tanda.adapters.dynamodb_progress import DynamoProgress

            return DynamoProgress.from_settings(self.settings)
        from tanda.adapters.memory_progress import MemoryProgress

        return MemoryProgress()

    @property
    def _on_state_machines(self) -> bool:
        """The deployment mode: ``True`` on AWS (the state machines run the steps)."""
        runner = self.settings.runner
        if runner not in RUNNERS:
            raise ValueError(f"TANDA_RUNNER: unknown runner {runner!r}")
        return runner == "stepfunctions"

    @property
    def runs_jobs_here(self) -> bool:
        """Whether cross-check jobs run in this process (the worker pool of ``tanda serve``, or
        :meth:`run_job_here`) rather than on the STANDARD state machine."""
        return not self._on_state_machines

    def job_runner_status(self) -> ComponentStatus:
        """What ``service_status`` says of the job runner (KB-01): the in-process pool is
        available; the state machine is configured, not probed."""
        from tanda.contract.knowledge import ComponentStatus

        return ComponentStatus(
            status="configured" if self._on_state_machines else "available",
            detail=f"{self.settings.runner} runner of cross-check jobs",
        )

    @cached_property
    def fusion(self) -> FusionConfig:
        from tanda.retrieval.fusion import FusionConfig

        return FusionConfig(k=self.settings.rrf_k, weights=dict(self.settings.rrf_weights))

    @cached_property
    def search_index(self) -> SearchIndex:
        spec = self.settings.index
        if spec == "sqlite":
            from tanda.adapters.sqlite_index import SqliteSearchIndex

            return SqliteSearchIndex(
                self.settings.home / "index.sqlite",
                fusion=self.fusion,
                lexical=self.settings.lexical_engine,
            )
        if spec.startswith("opensearch:"):
            from tanda.adapters.opensearch_index import OpenSearchIndex

            return OpenSearchIndex.from_settings(self.settings)
        raise ValueError(f"TANDA_INDEX: unknown search index {spec!r} (sqlite | opensearch:URL)")

    @cached_property
    def originals(self) -> Originals:
        """Where uploaded files are kept (issue 26): the S3 uploads bucket when
        ``TANDA_UPLOADS_BUCKET`` names one (AWS), else ``TANDA_HOME/uploads``."""
        if self.settings.uploads_bucket:
            from tanda.adapters.s3_originals import S3Originals

            return S3Originals.from_settings(self.settings)
        from tanda.adapters.local_originals import LocalOriginals

        return LocalOriginals(self.settings.home / "uploads")

    @cached_property
    def bulk_imports(self) -> ImportLauncher | None:
        """What starts bulk imports (issue 26): the Distributed Map when
        ``TANDA_BULK_INGEST_STATE_MACHINE_ARN`` names it (AWS), else none (embedded)."""
        arn = self.settings.bulk_ingest_state_machine_arn
        if not arn:
            return None
        from tanda.pipeline.runners.bulk_ingest import StepFunctionsImports

        # A start is named after the import: a retried start returns the same execution.
        return StepFunctionsImports(
            _stepfunctions_client(self.settings, waits_for_answer=False), arn
        )

    def upload_ports(self) -> UploadPorts:
        """What ``process_upload`` reads and writes through (issue 26): the index, the Store,
        the originals, the embedder, the structure layers' model when they are built, and the
        cross-check pool's lease and attempts."""
        from tanda.service.uploads import UploadPorts

        return UploadPorts(
            store=self.store,
            index=self.search_index,
            originals=self.originals,
            embedder=self.embedder,
            layers_model=self.model if self.settings.structure_layers else None,
            clock=self.clock,
            lease_s=self.settings.xc_lease_s,
            max_attempts=self.settings.xc_max_attempts,
        )

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
        if self._on_state_machines:
            from tanda.pipeline.runners.stepfunctions import StepFunctionsRunner

            return StepFunctionsRunner(
                _stepfunctions_client(self.settings, waits_for_answer=True),
                self.settings.query_state_machine_arn or "",
                self.progress,
            )
        from tanda.pipeline.runners.in_process import InProcessRunner

        return InProcessRunner(self.step_deps(), self.agent_ports())

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
            sources=self.sources,
        )

    @cached_property
    def sources(self) -> SourceConnector | None:
        """Issue 25: the tenants' portals and MCP servers (``TANDA_PORTALS``,
        ``TANDA_MCP_SERVERS``); ``None`` when neither is configured."""
        if not self.settings.portals and not self.settings.mcp_servers:
            return None
        from tanda.adapters.sources import ConfiguredSources

        return ConfiguredSources(self.settings.portals, self.settings.mcp_servers)

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
        """What runs cross-check jobs (DESIGN §4): the STANDARD state machine on AWS, else this
        process's worker pool — started here, so that jobs a previous process left open are
        resumed (``tanda serve`` builds it when it starts)."""
        if self._on_state_machines:
            from tanda.pipeline.runners.cross_check import StepFunctionsJobs

            return StepFunctionsJobs(
                _stepfunctions_client(self.settings, waits_for_answer=False),
                self.settings.cross_check_state_machine_arn or "",
            )
        workers = self._job_workers(self.settings.xc_workers)
        workers.start()
        return workers

    def run_job_here(self, ref: XcJobRef) -> bool:
        """Run one queued job in this process (``tanda cross-check --wait``), holding its lease
        as the worker pool would; ``False`` when it was not to take (finished, or running under
        another live lease)."""
        return self._job_workers(1).run_job(ref)

    def _job_workers(self, workers: int) -> CrossCheckWorkers:
        from tanda.pipeline.runners.cross_check import CrossCheckWorkers

        return CrossCheckWorkers(
            self.cross_check_ports(),
            workers=workers,
            lease_s=self.settings.xc_lease_s,
            max_attempts=self.settings.xc_max_attempts,
            process_upload=self._process_upload,
        )

    def _process_upload(
        self, tenant_id: str, document_id: str, owner: str
    ) -> DocumentUpload | None:
        from tanda.service.uploads import process_upload

        return process_upload(self.upload_ports(), tenant_id, document_id, owner=owner)

    def upload_queued(self, upload: DocumentUpload) -> None:
        """Issue 26: embedded, the worker pool (the one of cross-check jobs) is woken to ingest
        it; on AWS the bucket's ObjectCreated event queues it, nothing to do here."""
        if self._on_state_machines:
            return
        launcher = self.cross_check_jobs
        wake = getattr(launcher, "wake", None)
        if callable(wake):
            wake()

    def process_upload_here(self, tenant_id: str, document_id: str) -> DocumentUpload | None:
        """Ingest one queued upload in this process (``tanda documents upload``), under a lease
        of its own as the worker pool's would be."""
        from tanda.pipeline.runners.cross_check import default_owner

        return self._process_upload(tenant_id, document_id, default_owner())

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
    if settings is None:
        from tanda.settings import load_settings

        settings = load_settings()
    return Runtime(settings=settings)


def _stepfunctions_client(settings: Settings, *, waits_for_answer: bool) -> object:
    """The one way a boto3 ``stepfunctions`` client is built; whether a start may be retried
    follows from what it starts:

    - an answer (``waits_for_answer``: ``StartSyncExecution`` of the EXPRESS query machine) is
      never retried — a retried start would answer twice — and the read waits for the answer's
      deadline;
    - a cross-check job (``StartExecution`` of the STANDARD machine) is named after the job, and
      Step Functions starts a name once: a retried start returns the same execution, so the
      SDK's own retries are kept.
    """
    from tanda.adapters.aws_sdk import client

    if not waits_for_answer:
        return client("stepfunctions")
    from botocore.config import Config

    from tanda.pipeline.runners.stepfunctions import READ_TIMEOUT_MARGIN_S

    return client(
        "stepfunctions",
        config=Config(
            read_timeout=settings.request_deadline_s + READ_TIMEOUT_MARGIN_S,
            connect_timeout=5,
            # botocore's ``max_attempts`` counts retries (1 = one retry); the total counts the
            # first call too: one call, no retry.
            retries={"total_max_attempts": 1, "mode": "standard"},
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
