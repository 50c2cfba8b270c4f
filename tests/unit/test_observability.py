"""Each invocation's metrics are its own (issue 24): two step handlers in flight in one process
(the state machine's tasks under moto, a Map's judge batches) each write their own EMF blob under
their own ``step``, and Powertools warns of no dimension added twice."""

from __future__ import annotations

import contextlib
import io
import json
import warnings
from typing import Any

import pytest

from tanda import observability


def blobs(output: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.splitlines() if line.startswith('{"_aws"')]


def test_two_invocations_in_flight_write_their_own_metrics(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", observability.NAMESPACE)
    out = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(out):
        warnings.simplefilter("error")  # "Dimension 'step' has already been added" fails here
        judge, framing = observability.metrics(), observability.metrics()
        judge.add_dimension(name=observability.STEP_DIMENSION, value="judge_batch")
        framing.add_dimension(name=observability.STEP_DIMENSION, value="framing_check")
        judge.add_metric(name=observability.LATENCY, unit="Milliseconds", value=12.0)
        framing.add_metric(name=observability.LATENCY, unit="Milliseconds", value=34.0)
        framing.add_metric(name=observability.ERRORS, unit="Count", value=1)
        judge.flush_metrics()
        framing.flush_metrics()

    written = {
        blob["step"]: {
            metric["Name"]: blob[metric["Name"]]
            for directive in blob["_aws"]["CloudWatchMetrics"]
            for metric in directive["Metrics"]
        }
        for blob in blobs(out.getvalue())
    }
    assert written == {
        "judge_batch": {"Latency": [12.0]},
        "framing_check": {"Latency": [34.0], "Errors": [1.0]},
    }
    for blob in blobs(out.getvalue()):
        (directive,) = blob["_aws"]["CloudWatchMetrics"]
        assert directive["Namespace"] == observability.NAMESPACE
        assert directive["Dimensions"] == [["step", "service"]]
        assert blob["service"] == observability.SERVICE
