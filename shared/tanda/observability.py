"""Structured logs and EMF metrics for every Lambda function (Powertools), imported lazily.

What may be logged: route or step, ``trace_id``, API Gateway's request id, tenant, a key's public
``key_id``, status, latencies, counts, fallback reasons, model-call roles and outcomes. Never a
question, an answer, a passage, a prompt, a key, a token or a digest — the helpers here take only
those fields, so no caller can hand them text by accident.

Powertools is imported on the first invocation, not at module import (cold start), and only
where it is installed (Lambda's deps layer; the dev extra): without it the helpers do nothing.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache, wraps
from typing import Any, Protocol, TypeVar

NAMESPACE = "tanda"
SERVICE = "tanda"

# What is written, by name: template.yaml's alarms and dashboard watch these, and
# tests/infra/test_operations.py checks each one they name is one this module writes (issue 27).
# Every metric carries the ``service`` dimension (Powertools adds it) and one of these two.
ROUTE_DIMENSION = "route"
STEP_DIMENSION = "step"
SERVICE_DIMENSION = "service"
# instrumented(): one of each per invocation of a route or a step.
LATENCY = "Latency"
ERRORS = "Errors"
# record_answer(): one of each per answer, under its route.
ANSWER_LATENCY = "AnswerLatency"
MODEL_CALLS = "ModelCalls"
FALLBACKS = "Fallbacks"
VERDICT_PREFIX = "Verdict."
# 1 for the answer's verification (V2-16), 0 for the others: their Average is each one's share.
VERIFICATION_PREFIX = "Verification."
VERIFICATIONS = ("full", "partial", "none")  # tanda.contract.Verification (a test compares)
# For an answer the judge examined: 1 when a statement of it was left unverified for that
# reason (V2-10), else 0 — the Average is the share of judged answers it hit.
JUDGE_UNAVAILABLE = "JudgeUnavailable"
JUDGE_DEADLINE = "JudgeDeadline"
JUDGE_FAILURES = {"judge_unavailable": JUDGE_UNAVAILABLE, "deadline": JUDGE_DEADLINE}
# record_ingest(): one per document an ingest function handled (issue 26), under ``step=ingest``:
# 1 when it failed, else 0 (the Average is the failed share), and its time.
INGEST_STEP = "ingest"
INGEST_FAILED = "IngestFailed"
INGEST_LATENCY = "IngestLatency"
INGEST_PATHS = ("queue", "bulk")
# record_playground_run()
PLAYGROUND_RUNS = "PlaygroundRuns"
PLAYGROUND_ROUTE = "playground"

Handler = TypeVar("Handler", bound=Callable[..., Any])


class _CallRecord(Protocol):
    role: str
    outcome: str


@cache
def logger() -> Any | None:
    try:
        from aws_lambda_powertools import Logger
    except ImportError:  # pragma: no cover - embedded runs without the aws extra
        return None
    return Logger(service=os.environ.get("POWERTOOLS_SERVICE_NAME", SERVICE))


def metrics() -> Any | None:
    """A new EMF emitter for one invocation's metrics (Powertools' ``EphemeralMetrics``): its
    metrics and dimensions are its own. Powertools' ``Metrics`` keeps them in class attributes
    shared by every instance in the process, so two handlers in flight in one process (the state
    machine's tasks under moto, a Map's batches) wrote into one set — "Dimension 'step' has
    already been added" — and one flush could carry the other's figures under its name."""
    emitter = _ephemeral_metrics()
    if emitter is None:
        return None
    return emitter(
        namespace=os.environ.get("POWERTOOLS_METRICS_NAMESPACE", NAMESPACE),
        service=SERVICE,
    )


@cache
def _ephemeral_metrics() -> Any | None:
    try:
        from aws_lambda_powertools.metrics import EphemeralMetrics
    except ImportError:  # pragma: no cover
        return None
    return EphemeralMetrics


def request_id_of(event: Any) -> str | None:
    """API Gateway's request id of this invocation — the access log's ``request_id``
    (``$context.requestId``) — or None for an invocation API Gateway did not make."""
    if isinstance(event, dict):
        request_id = (event.get("requestContext") or {}).get("requestId")
        if request_id:
            return str(request_id)
    return None


def trace_id_of(event: Any) -> str | None:
    """The API Gateway request id, else the X-Ray trace header of this invocation."""
    return request_id_of(event) or os.environ.get("_X_AMZN_TRACE_ID")


class _Caller:
    __slots__ = ("key_id", "tenant")

    def __init__(self) -> None:
        self.tenant: str | None = None
        self.key_id: str | None = None


# Who the current invocation's credentials named (issue 27). The variable holds a mutable record
# rather than the tenant itself: the app answers in a task (Mangum, uvicorn) and authenticates in
# a worker thread, each running in a *copy* of this context — a value set there would never reach
# the log line written here, a record set here and filled in there does.
_caller: ContextVar[_Caller | None] = ContextVar("tanda_caller", default=None)


def note_caller(tenant_id: str, *, key_id: str | None = None) -> None:
    """Record the tenant the current request's credentials were resolved to (and the public
    ``key_id`` of the key that named it, if any) for this invocation's log line. Called by
    ``tanda.auth.Authenticator`` once a credential is accepted — never with a key, a token or a
    digest. Outside an invocation (``tanda serve``, the CLI) it does nothing."""
    caller = _caller.get()
    if caller is not None:
        caller.tenant = tenant_id
        caller.key_id = key_id


@contextmanager
def _invocation() -> Iterator[_Caller]:
    """A fresh caller record for one invocation, dropped after it: a tenant never outlives the
    request that authenticated it (the next invocation of a warm function starts empty)."""
    caller = _Caller()
    token = _caller.set(caller)
    try:
        yield caller
    finally:
        _caller.reset(token)


def _is_error(status: int | str) -> bool:
    return status == "error" or (isinstance(status, int) and status >= 500)


def instrumented(name: str, *, kind: str = "route") -> Callable[[Handler], Handler]:
    """Wrap a Lambda handler: one structured log line and one latency metric per invocation,
    with ``kind`` (route/step), ``name``, ``trace_id``, API Gateway's ``request_id``, the
    status, and the ``tenant`` (and ``key_id``) the request authenticated as — none when it was
    refused or needs no credentials — and nothing of the body or the credentials."""

    def wrap(handler: Handler) -> Handler:
        @wraps(handler)
        def invoke(event: Any, context: Any) -> Any:
            log, emf = logger(), metrics()
            trace_id = trace_id_of(event)
            if log is not None:
                log.append_keys(**{kind: name, "trace_id": trace_id})
            started = time.perf_counter()
            status: int | str = "error"
            with _invocation() as caller:
                try:
                    result = handler(event, context)
                    status = result.get("statusCode", "ok") if isinstance(result, dict) else "ok"
                    return result
                finally:
                    latency_ms = (time.perf_counter() - started) * 1000
                    if log is not None:
                        log.info(
                            "invocation",
                            extra={
                                "request_id": request_id_of(event),
                                "status": status,
                                "latency_ms": latency_ms,
                                "tenant": caller.tenant,
                                "key_id": caller.key_id,
                            },
                        )
                    if emf is not None:
                        emf.add_dimension(name=kind, value=name)
                        emf.add_metric(name=LATENCY, unit="Milliseconds", value=latency_ms)
                        if _is_error(status):
                            emf.add_metric(name=ERRORS, unit="Count", value=1)
                        emf.flush_metrics()

        return invoke  # type: ignore[return-value]

    return wrap


REQUEST_CONTEXT_HEADER = b"x-amzn-request-context"
"""Where the Lambda Web Adapter hands a stream function API Gateway's request context (JSON)."""


class RequestLog:
    """ASGI middleware of the stream functions (uvicorn behind the Lambda Web Adapter, which
    :func:`instrumented` cannot wrap): the same ``invocation`` line per HTTP request — ``route``,
    ``request_id`` (from the adapter's ``x-amzn-request-context`` header), ``status``,
    ``latency_ms`` until the last byte of the stream, ``tenant`` and ``key_id`` — and no metric
    (their routes are watched through API Gateway's metrics). Nothing else of the headers is
    read."""

    def __init__(self, app: Callable[..., Any], *, name: str) -> None:
        self.app = app
        self.name = name

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        request_id = _request_id_of_headers(scope.get("headers") or ())
        started = time.perf_counter()
        status: int | str = "error"

        async def sending(message: Any) -> None:
            nonlocal status
            if message.get("type") == "http.response.start":
                status = int(message["status"])
            await send(message)

        with _invocation() as caller:
            try:
                await self.app(scope, receive, sending)
            finally:
                log = logger()
                if log is not None:
                    log.info(
                        "invocation",
                        extra={
                            ROUTE_DIMENSION: self.name,
                            "trace_id": request_id,
                            "request_id": request_id,
                            "status": status,
                            "latency_ms": (time.perf_counter() - started) * 1000,
                            "tenant": caller.tenant,
                            "key_id": caller.key_id,
                        },
                    )


def _request_id_of_headers(headers: Iterable[tuple[bytes, bytes]]) -> str | None:
    for key, value in headers:
        if key.lower() == REQUEST_CONTEXT_HEADER:
            try:
                context = json.loads(value)
            except ValueError:
                return None
            found = context.get("requestId") if isinstance(context, dict) else None
            return str(found) if found else None
    return None


def record_answer(
    *,
    route: str,
    tenant_id: str,
    trace_id: str | None,
    latency_ms: float,
    verdicts: Iterable[str | None],
    fallback: str | None,
    model_calls: Iterable[_CallRecord],
    verification: str | None = None,
    judge_failures: Iterable[str] | None = None,
) -> None:
    """One answer's figures: latency, model calls by role/outcome, verdict counts, fallback,
    its verification, and — when the judge examined it (``judge_failures`` not None: the
    reasons its statements were left unverified) — whether the judge was unavailable or out
    of time for any of them.

    Only inside a Lambda function: locally (``tanda ask --json``, tests) nothing is written to
    stdout.
    """
    if not os.environ.get("AWS_LAMBDA_FUNCTION_NAME"):
        return
    calls = Counter(f"{c.role}:{c.outcome}" for c in model_calls)
    counts = Counter(v for v in verdicts if v is not None)
    log, emf = logger(), metrics()
    if log is not None:
        log.info(
            "answer",
            extra={
                "route": route,
                "tenant": tenant_id,
                "trace_id": trace_id,
                "latency_ms": round(latency_ms, 1),
                "model_calls": dict(calls),
                "verdicts": dict(counts),
                "fallback": fallback,
            },
        )
    if emf is None:
        return
    emf.add_dimension(name=ROUTE_DIMENSION, value=route)
    emf.add_metric(name=ANSWER_LATENCY, unit="Milliseconds", value=latency_ms)
    emf.add_metric(name=MODEL_CALLS, unit="Count", value=sum(calls.values()))
    for verdict, count in counts.items():
        emf.add_metric(name=f"{VERDICT_PREFIX}{verdict}", unit="Count", value=count)
    emf.add_metric(name=FALLBACKS, unit="Count", value=1 if fallback else 0)
    if verification is not None:
        for state in VERIFICATIONS:
            emf.add_metric(
                name=f"{VERIFICATION_PREFIX}{state}", unit="Count", value=int(state == verification)
            )
    if judge_failures is not None:
        reasons = set(judge_failures)
        for reason, name in JUDGE_FAILURES.items():
            emf.add_metric(name=name, unit="Count", value=int(reason in reasons))
    emf.flush_metrics()


def record_playground_run(*, tenant_id: str, trace_id: str, status: str, latency_ms: float) -> None:
    """PG-4: a playground run publishes no answer analytics — no ``answer`` line, no verdict,
    model-call or fallback figures. Operators still see that runs happen: one ``playground_run``
    line (its ``trace_id`` is the ``playground_run_id`` the admin got back, PG-5's receipt id)
    and a ``PlaygroundRuns`` count under ``route=playground``, with nothing of the run's content.

    Only inside a Lambda function, like :func:`record_answer`.
    """
    if not os.environ.get("AWS_LAMBDA_FUNCTION_NAME"):
        return
    log, emf = logger(), metrics()
    if log is not None:
        log.info(
            "playground_run",
            extra={
                "route": PLAYGROUND_ROUTE,
                "tenant": tenant_id,
                "trace_id": trace_id,
                "status": status,
                "latency_ms": round(latency_ms, 1),
            },
        )
    if emf is None:
        return
    emf.add_dimension(name=ROUTE_DIMENSION, value=PLAYGROUND_ROUTE)
    emf.add_metric(name=PLAYGROUND_RUNS, unit="Count", value=1)
    emf.flush_metrics()


def record_ingest(
    *,
    path: str,
    tenant_id: str,
    document_id: str,
    status: str,
    latency_ms: float,
    reason: str | None = None,
) -> None:
    """One document an ingest function handled (issue 26): an ``ingest`` line — the ``path``
    (``queue``: an upload event; ``bulk``: a Distributed Map item), tenant, document id, the
    status it ended in and its reason code — and ``IngestFailed`` (1 when it failed, else 0) and
    ``IngestLatency`` under ``step=ingest``. Never a file name or any of its text.

    Only inside a Lambda function, like :func:`record_answer`.
    """
    if not os.environ.get("AWS_LAMBDA_FUNCTION_NAME"):
        return
    log, emf = logger(), metrics()
    if log is not None:
        log.info(
            "ingest",
            extra={
                STEP_DIMENSION: INGEST_STEP,
                "path": path,
                "tenant": tenant_id,
                "document_id": document_id,
                "status": status,
                "reason": reason,
                "latency_ms": round(latency_ms, 1),
            },
        )
    if emf is None:
        return
    emf.add_dimension(name=STEP_DIMENSION, value=INGEST_STEP)
    emf.add_metric(name=INGEST_FAILED, unit="Count", value=int(status == "failed"))
    emf.add_metric(name=INGEST_LATENCY, unit="Milliseconds", value=latency_ms)
    emf.flush_metrics()
