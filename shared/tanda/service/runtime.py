"""What a use case needs from the process's runtime (DESIGN §2: the service sits below the one
factory and must not import it). ``tanda.wiring.Runtime`` satisfies this Protocol structurally;
tests may hand in anything else that does."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from tanda.contract.knowledge import ComponentStatus
    from tanda.model_calls import ChatModel
    from tanda.pipeline.cross_check import XcJobRef
    from tanda.pipeline.runners import Runner
    from tanda.pipeline.runners.cross_check import JobLauncher
    from tanda.ports import Embedder, Originals, Reranker, SearchIndex, Store
    from tanda.records.uploads import DocumentUpload
    from tanda.service.imports import ImportLauncher
    from tanda.service.uploads import UploadPorts
    from tanda.settings import Settings


class Runtime(Protocol):
    """The adapters and settings of one process, each built on first use."""

    @property
    def settings(self) -> Settings: ...

    @property
    def clock(self) -> Callable[[], float]:
        """Epoch seconds: when a turn starts (its deadline runs from there)."""
        ...

    @property
    def store(self) -> Store: ...

    @property
    def search_index(self) -> SearchIndex: ...

    @property
    def originals(self) -> Originals:
        """Where uploaded files are kept (issue 26)."""
        ...

    def upload_ports(self) -> UploadPorts:
        """What ``process_upload`` reads and writes through (issue 26)."""
        ...

    def upload_queued(self, upload: DocumentUpload) -> None:
        """An upload's bytes arrived (issue 26): embedded, wake the worker pool; on AWS the
        bucket's event queues it."""
        ...

    def process_upload_here(self, tenant_id: str, document_id: str) -> DocumentUpload | None:
        """Ingest one queued upload in this process (``tanda documents upload``), as the worker
        pool would."""
        ...

    @property
    def bulk_imports(self) -> ImportLauncher | None:
        """What starts bulk imports on AWS (issue 26); ``None`` embedded."""
        ...

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
    def runner(self) -> Runner:
        """What every answering route answers through (DESIGN §4)."""
        ...

    @property
    def cross_check_jobs(self) -> JobLauncher:
        """What runs cross-check jobs: the worker pool in-process, the state machine on AWS."""
        ...

    @property
    def runs_jobs_here(self) -> bool:
        """Whether cross-check jobs run in this process rather than on the state machine (the
        deployment mode is the factory's to know; a use case asks what it means)."""
        ...

    def run_job_here(self, ref: XcJobRef) -> bool:
        """Run one queued job in this process; ``False`` when it was not to take."""
        ...

    def job_runner_status(self) -> ComponentStatus:
        """What ``service_status`` says of the job runner (KB-01)."""
        ...
