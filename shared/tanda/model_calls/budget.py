"""Per-request budgets: one deadline and one model-call budget shared by every stage, and the log
of every model call (``model_call_log``). The agent stops early enough that the judge keeps its
share (V2-23)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from tanda.contract.response import ModelCallRecord
from tanda.model_calls import ChatModel, ChatRequest, ChatResponse, ModelError, ModelTimeout


class BudgetSpent(ModelError):
    """The request's model-call budget is spent: the call was not made."""

    outcome = "budget"


class DeadlinePassed(ModelTimeout):
    """The request's (or the stage's) deadline passed: the call was not made or was cut short."""

    outcome = "deadline"


@dataclass
class RequestBudget:
    """The time and calls one answer may use. ``clock`` is monotonic seconds (injectable)."""

    deadline: float
    calls_total: int
    clock: Callable[[], float] = time.monotonic
    calls_used: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def starting_now(
        cls, seconds: float, calls: int, clock: Callable[[], float] = time.monotonic
    ) -> RequestBudget:
        return cls(deadline=clock() + seconds, calls_total=calls, clock=clock)

    def seconds_left(self, until: float | None = None) -> float:
        return min(self.deadline, until if until is not None else self.deadline) - self.clock()

    @property
    def calls_left(self) -> int:
        return self.calls_total - self.calls_used

    def take_call(self, reserve: int = 0) -> None:
        """Count one call, keeping ``reserve`` calls for later stages."""
        with self._lock:
            if self.calls_used + 1 + reserve > self.calls_total:
                raise BudgetSpent("model-call budget spent")
            self.calls_used += 1


@dataclass
class ModelLedger:
    """Wraps the request's ``ChatModel``: checks budget and deadline before a call, caps the call's
    timeout at the time left, and records every call (role, latency, tokens, outcome)."""

    model: ChatModel
    budget: RequestBudget
    scenario: str | None = None
    records: list[ModelCallRecord] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def complete(
        self, request: ChatRequest, *, until: float | None = None, reserve_calls: int = 0
    ) -> ChatResponse:
        left = self.budget.seconds_left(until)
        if left <= 0:
            self._record(request, 0.0, DeadlinePassed.outcome, None)
            raise DeadlinePassed("deadline passed before the call")
        try:
            self.budget.take_call(reserve_calls)
        except BudgetSpent:
            self._record(request, 0.0, BudgetSpent.outcome, None)
            raise
        capped = left < request.timeout_s
        request = request.model_copy(
            update={
                "timeout_s": max(0.001, min(request.timeout_s, left)),
                "scenario": self.scenario,
            }
        )
        started = self.budget.clock()
        try:
            response = self.model.complete(request)
        except ModelTimeout as error:
            if capped:  # the call ran out of the request's time, not its own
                self._record(request, self.budget.clock() - started, DeadlinePassed.outcome, None)
                raise DeadlinePassed("deadline passed during the call") from error
            self._record(request, self.budget.clock() - started, error.outcome, None)
            raise
        except ModelError as error:
            self._record(request, self.budget.clock() - started, error.outcome, None)
            raise
        self._record(request, self.budget.clock() - started, "ok", response)
        return response

    def _record(
        self, request: ChatRequest, seconds: float, outcome: str, response: ChatResponse | None
    ) -> None:
        record = ModelCallRecord(
            role=request.role.value,
            outcome=outcome,
            latency_ms=max(0, round(seconds * 1000)),
            input_tokens=response.input_tokens if response else None,
            output_tokens=response.output_tokens if response else None,
        )
        with self._lock:
            self.records.append(record)
