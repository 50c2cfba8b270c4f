"""What a use case needs from the process's runtime (DESIGN §2: the service sits below the one
factory and must not import it). ``tanda.wiring.Runtime`` satisfies this Protocol structurally;
tests may hand in anything else that does."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from tanda.model_calls import ChatModel
    from tanda.pipeline.runners.cross_check import JobLauncher
    from tanda.pipeline.runners.stepfunctions import StepFunctionsRunner
    from tanda.ports import Embedder, Progress, Reranker, SearchIndex, Store
    from tanda.settings import Settings


class Runtime(Protocol):
    """The adapters and settings of one process, each built on first use."""

    @property
    def settings(self) -> Settings: ...

    @property
    def store(self) -> Store: ...

    @property
    def search_index(self) -> SearchIndex: ...

    @property
    def model(self) -> ChatModel: ...

    @property
    def ask_model(self) -> ChatModel | None:
        """The /v1/ask synthesis model; ``None`` when none is configured (ASK-04)."""
        ...

    @property
    def embedder(self) -> Embedder | None: ...

    @property
    def reranker(self) -> Reranker | None:
        """The reranker of the floor (ASK-06); ``None`` when none is configured."""
        ...

    @property
    def progress(self) -> Progress:
        """Where the agent step publishes tool frames when the answer runs on the runner."""
        ...

    @property
    def runner(self) -> StepFunctionsRunner | None:
        """The Step Functions runner, or ``None`` to answer in-process."""
        ...

    @property
    def cross_check_jobs(self) -> JobLauncher:
        """What runs cross-check jobs: the worker pool in-process, the state machine on AWS."""
        ...
