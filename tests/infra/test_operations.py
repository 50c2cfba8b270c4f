"""Issue 27, "Alarms and a dashboard": every alarm and dashboard metric of ``template.yaml`` is
one something writes — tanda's own metrics exactly as ``tanda.observability`` writes them (run
here through Powertools, the names and dimensions read from its output), AWS's metrics about a
resource the template creates — so no alarm can watch a metric nobody writes. Plus what the
alarms must cover, where they notify, their runbook entries, and the API's access log format."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from tanda import observability
from tanda.contract.common import UnverifiedReason, Verdict, Verification

from .test_template import FUNCTIONS, REPO, handler_target, load_template

TEMPLATE = load_template()
RESOURCES: dict[str, Any] = TEMPLATE["Resources"]
RUNBOOK = REPO / "docs" / "operations.md"

Metric = tuple[str, str, frozenset[tuple[str, str]]]  # namespace, name, dimensions


def of_type(kind: str) -> dict[str, dict[str, Any]]:
    return {name: r for name, r in RESOURCES.items() if r["Type"] == kind}


ALARMS = of_type("AWS::CloudWatch::Alarm")
API_ROUTES = {
    (event["Properties"]["Path"], event["Properties"]["Method"].upper())
    for function in FUNCTIONS.values()
    for event in (function.get("Events") or {}).values()
    if event["Type"] == "Api"
}
INSTRUMENTED = re.compile(r'instrumented\(\s*"(\w+)"(?:\s*,\s*kind="(\w+)")?\s*\)')


def text(value: Any) -> str:
    """A template value as text, references kept as ``${Name}`` (as a ``!Sub`` writes them)."""
    if isinstance(value, str | int | float):
        return str(value)
    if isinstance(value, dict) and set(value) == {"Ref"}:
        return f"${{{value['Ref']}}}"
    if isinstance(value, dict) and set(value) == {"Fn::GetAtt"}:
        resource, attribute = value["Fn::GetAtt"]
        return f"${{{resource}.{attribute}}}"
    if isinstance(value, dict) and set(value) == {"Fn::Sub"} and isinstance(value["Fn::Sub"], str):
        return str(value["Fn::Sub"])
    raise AssertionError(f"no text for {value!r}")


def instrumented_names() -> dict[str, tuple[str, str]]:
    """Function -> (dimension, name) its entry module's ``instrumented(...)`` writes under."""
    found = {}
    for function, properties in FUNCTIONS.items():
        entry, _ = handler_target(properties)
        match = INSTRUMENTED.search(entry.read_text(encoding="utf-8"))
        if match:
            found[function] = (match.group(2) or observability.ROUTE_DIMENSION, match.group(1))
    return found


@pytest.fixture(scope="module")
def emitted() -> Iterator[set[Metric]]:
    """Every (namespace, metric, dimensions) tanda writes: observability's helpers run with
    Powertools under the template's settings, as in a Lambda function, and their EMF read back."""
    variables = TEMPLATE["Globals"]["Function"]["Environment"]["Variables"]
    env = {
        "AWS_LAMBDA_FUNCTION_NAME": "tanda-operations-test",
        "POWERTOOLS_METRICS_NAMESPACE": variables["POWERTOOLS_METRICS_NAMESPACE"],
        "POWERTOOLS_SERVICE_NAME": variables["POWERTOOLS_SERVICE_NAME"],
    }
    out = io.StringIO()  # Powertools prints its EMF to stdout
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(out):
        for key, value in env.items():
            patch.setenv(key, value)
        observability.logger.cache_clear()
        try:
            names = instrumented_names()
            for dimension, name in names.values():
                observability.instrumented(name, kind=dimension)(lambda e, c: {"statusCode": 502})(
                    {}, None
                )
            for verification in observability.VERIFICATIONS:
                observability.record_answer(
                    route=names["QueryV2Function"][1],
                    tenant_id="t",
                    trace_id=None,
                    latency_ms=1.0,
                    verdicts=[v.value for v in Verdict],
                    fallback="model_timeout",
                    model_calls=[],
                    verification=verification,
                    judge_failures=list(observability.JUDGE_FAILURES),
                )
            observability.record_playground_run(
                tenant_id="t", trace_id="r", status="completed", latency_ms=1.0
            )
            for path in observability.INGEST_PATHS:
                observability.record_ingest(
                    path=path, tenant_id="t", document_id="d", status="failed", latency_ms=1.0
                )
        finally:
            observability.logger.cache_clear()
    metrics: set[Metric] = set()
    for line in out.getvalue().splitlines():
        if not line.startswith("{") or '"_aws"' not in line:
            continue
        blob = json.loads(line)
        for directive in blob["_aws"]["CloudWatchMetrics"]:
            (keys,) = directive["Dimensions"]
            dimensions = frozenset((key, blob[key]) for key in keys)
            for metric in directive["Metrics"]:
                metrics.add((directive["Namespace"], metric["Name"], dimensions))
    assert metrics, "Powertools wrote no EMF: is aws-lambda-powertools installed (dev extra)?"
    yield metrics


# --- what AWS writes, about which resource ------------------------------------------------------

AWS_METRICS = {
    "AWS/ApiGateway": {"5XXError", "4XXError", "Count", "Latency", "IntegrationLatency"},
    "AWS/Lambda": {"Throttles", "Errors", "Invocations", "Duration", "ConcurrentExecutions"},
    "AWS/States": {"ExecutionsFailed", "ExecutionsTimedOut", "ExecutionsStarted", "ExecutionTime"},
    "AWS/ES": {"ClusterStatus.red", "ClusterStatus.yellow", "ThreadpoolWriteRejected"},
    "AWS/AOSS": {"IngestionRequestErrors", "SearchRequestErrors", "SearchRequestLatency"},
    "AWS/SQS": {
        "ApproximateNumberOfMessagesVisible",
        "ApproximateAgeOfOldestMessage",
        "NumberOfMessagesSent",
    },
}


def _reference(value: str, kind: str) -> str:
    """The resource of type ``kind`` that ``${Name}`` names (fails otherwise)."""
    match = re.fullmatch(r"\$\{(\w+)\}", value)
    assert match, f"{value!r} is not a reference to a resource"
    name = match.group(1)
    assert RESOURCES.get(name, {}).get("Type") == kind, f"{name} is not a {kind}"
    return name


def problems_of(
    namespace: str,
    name: str,
    dimensions: dict[str, str],
    condition: str | None,
    emitted: set[Metric],
) -> list[str]:
    """Why this metric would have no data (empty: something writes it)."""
    where = f"{namespace} {name} {dimensions}"
    if namespace == observability.NAMESPACE:
        if (namespace, name, frozenset(dimensions.items())) not in emitted:
            return [f"{where}: tanda writes no such metric"]
        return []
    if namespace not in AWS_METRICS:
        return [f"{where}: an unknown namespace"]
    if name not in AWS_METRICS[namespace]:
        return [f"{where}: not a metric of {namespace}"]
    account = "${AWS::AccountId}"
    if namespace == "AWS/ApiGateway":
        api = RESOURCES["TandaApi"]["Properties"]
        route = (dimensions.get("Resource", ""), dimensions.get("Method", ""))
        expected = {"ApiName": text(api["Name"]), "Stage": text(api["StageName"])}
        if {k: v for k, v in dimensions.items() if k in expected} != expected:
            return [f"{where}: not TandaApi's name and stage"]
        if route not in API_ROUTES or set(dimensions) != {"ApiName", "Stage", "Resource", "Method"}:
            return [f"{where}: not a route of TandaApi"]
        return []
    if namespace == "AWS/Lambda":
        assert set(dimensions) == {"FunctionName"}, where
        _reference(dimensions["FunctionName"], "AWS::Serverless::Function")
    elif namespace == "AWS/States":
        assert set(dimensions) == {"StateMachineArn"}, where  # Ref of a state machine: its ARN
        _reference(dimensions["StateMachineArn"], "AWS::Serverless::StateMachine")
    elif namespace == "AWS/SQS":
        assert set(dimensions) == {"QueueName"}, where  # a queue's QueueName attribute
        match = re.fullmatch(r"\$\{(\w+)\.QueueName\}", dimensions["QueueName"])
        assert match, f"{where}: not the QueueName of a queue of the template"
        assert RESOURCES.get(match.group(1), {}).get("Type") == "AWS::SQS::Queue", where
    elif namespace == "AWS/ES":
        assert set(dimensions) == {"DomainName", "ClientId"}, where
        domain = _reference(dimensions["DomainName"], "AWS::OpenSearchService::Domain")
        assert dimensions["ClientId"] == account, where
        if condition != RESOURCES[domain].get("Condition"):
            return [f"{where}: watched when {domain} is not created"]
    elif namespace == "AWS/AOSS":
        assert set(dimensions) == {"CollectionName", "CollectionId", "ClientId"}, where
        collection = _reference(
            dimensions["CollectionId"], "AWS::OpenSearchServerless::Collection"
        )  # Ref of a collection: its id
        assert dimensions["CollectionName"] == text(RESOURCES[collection]["Properties"]["Name"])
        assert dimensions["ClientId"] == account, where
        if condition != RESOURCES[collection].get("Condition"):
            return [f"{where}: watched when {collection} is not created"]
    return []


def alarm_metrics(alarm: dict[str, Any]) -> list[tuple[str, str, dict[str, str]]]:
    """The metrics an alarm reads: its one metric, or those of its metric math."""
    properties = alarm["Properties"]
    metrics = [
        query["MetricStat"]["Metric"]
        for query in properties.get("Metrics", [])
        if "MetricStat" in query
    ] or [properties]
    return [
        (
            metric["Namespace"],
            metric["MetricName"],
            {d["Name"]: text(d["Value"]) for d in metric.get("Dimensions", [])},
        )
        for metric in metrics
    ]


def alarm_metric(alarm: dict[str, Any]) -> tuple[str, str, dict[str, str]]:
    """The metric an alarm is named after: the first it reads (failures, before starts)."""
    return alarm_metrics(alarm)[0]


# --- the alarms ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(ALARMS))
def test_every_alarm_watches_a_metric_that_is_written(name: str, emitted: set[Metric]) -> None:
    condition = ALARMS[name].get("Condition")
    problems = [
        problem
        for namespace, metric, dimensions in alarm_metrics(ALARMS[name])
        for problem in problems_of(namespace, metric, dimensions, condition, emitted)
    ]
    assert problems == []


def test_the_metrics_tanda_writes_carry_the_names_the_contract_uses() -> None:
    # The kernel's observability cannot import the contract (a sibling): the two agree here.
    assert tuple(v.value for v in Verification) == observability.VERIFICATIONS
    assert set(observability.JUDGE_FAILURES) <= {r.value for r in UnverifiedReason}
    variables = TEMPLATE["Globals"]["Function"]["Environment"]["Variables"]
    assert variables["POWERTOOLS_METRICS_NAMESPACE"] == observability.NAMESPACE
    assert variables["POWERTOOLS_SERVICE_NAME"] == observability.SERVICE


def watched() -> set[tuple[str, str, frozenset[tuple[str, str]]]]:
    return {
        (namespace, metric, frozenset(dimensions.items()))
        for alarm in ALARMS.values()
        for namespace, metric, dimensions in alarm_metrics(alarm)
    }


def test_every_route_has_a_5xx_rate_alarm() -> None:
    alarmed = {
        (dict(dimensions)["Resource"], dict(dimensions)["Method"])
        for namespace, metric, dimensions in watched()
        if (namespace, metric) == ("AWS/ApiGateway", "5XXError")
    }
    assert alarmed == API_ROUTES
    for alarm in ALARMS.values():
        if alarm["Properties"].get("MetricName") == "5XXError":  # a rate: the share of requests
            assert alarm["Properties"]["Statistic"] == "Average"
            assert 0 < alarm["Properties"]["Threshold"] < 1
    # API Gateway writes per-route metrics only when the stage asks for them.
    (setting,) = RESOURCES["TandaApi"]["Properties"]["MethodSettings"]
    assert (setting["ResourcePath"], setting["HttpMethod"], setting["MetricsEnabled"]) == (
        "/*",
        "*",
        True,
    )


def test_every_function_has_a_throttle_alarm() -> None:
    alarmed = {
        dict(dimensions)["FunctionName"]
        for namespace, metric, dimensions in watched()
        if (namespace, metric) == ("AWS/Lambda", "Throttles")
    }
    assert alarmed == {f"${{{name}}}" for name in FUNCTIONS}


def test_every_state_machine_alarms_on_failed_and_timed_out_executions() -> None:
    machines = of_type("AWS::Serverless::StateMachine")
    assert set(machines) == {
        "QueryStateMachine",
        "CrossCheckStateMachine",
        "BulkIngestStateMachine",
    }
    alarmed = {
        (dict(dimensions)["StateMachineArn"], metric)
        for namespace, metric, dimensions in watched()
        if namespace == "AWS/States"
    }
    assert alarmed >= {
        (f"${{{machine}}}", metric)
        for machine in machines
        for metric in ("ExecutionsFailed", "ExecutionsTimedOut")
    }
    # The answer machine's failures are a share of its executions: NothingReadable (a 404 by
    # design, V2-19) ends in a Fail state too.
    (share,) = [
        alarm["Properties"]
        for alarm in ALARMS.values()
        if ("AWS/States", "ExecutionsFailed", {"StateMachineArn": "${QueryStateMachine}"})
        in alarm_metrics(alarm)
    ]
    assert share["Metrics"][-1]["Expression"] == "FILL(failed, 0) / started"
    assert 0 < share["Threshold"] < 1


def test_query_v2_latency_and_the_judge_shares_are_alarmed() -> None:
    route = instrumented_names()["QueryV2Function"]
    dimensions = frozenset({route, (observability.SERVICE_DIMENSION, observability.SERVICE)})
    by_metric = {
        (namespace, metric, frozenset(dims.items())): alarm["Properties"]
        for alarm in ALARMS.values()
        for namespace, metric, dims in [alarm_metric(alarm)]
    }
    latency = by_metric[(observability.NAMESPACE, observability.LATENCY, dimensions)]
    assert latency["ExtendedStatistic"] == "p99"
    for share in (observability.JUDGE_UNAVAILABLE, observability.JUDGE_DEADLINE):
        alarm = by_metric[(observability.NAMESPACE, share, dimensions)]
        # a 0/1 per judged answer: its Average is the share
        assert alarm["Statistic"] == "Average" and 0 < alarm["Threshold"] < 1


def test_the_search_backend_is_alarmed_whichever_it_is() -> None:
    conditions = {
        (alarm_metric(alarm)[0], alarm_metric(alarm)[1]): alarm.get("Condition")
        for alarm in ALARMS.values()
    }
    assert conditions[("AWS/ES", "ClusterStatus.red")] == "UseDomain"
    assert conditions[("AWS/ES", "ThreadpoolWriteRejected")] == "UseDomain"
    assert conditions[("AWS/AOSS", "IngestionRequestErrors")] == "UseServerless"


def test_every_alarm_notifies_the_alarm_topic() -> None:
    topic = {"Fn::If": ["CreateAlarmTopic", {"Ref": "AlarmTopic"}, {"Ref": "AlarmTopicArn"}]}
    assert TEMPLATE["Parameters"]["AlarmTopicArn"]["Default"] == ""
    assert RESOURCES["AlarmTopic"]["Condition"] == "CreateAlarmTopic"
    # CloudWatch cannot publish to a topic under the AWS-managed aws/sns key: the alarms would
    # change state and nobody would hear of it.
    key = RESOURCES["AlarmTopic"]["Properties"].get("KmsMasterKeyId", "")
    assert "aws/sns" not in str(key)
    for name, alarm in ALARMS.items():
        assert alarm["Properties"]["AlarmActions"] == [topic], name
        assert alarm["Properties"]["OKActions"] == [topic], name
        assert alarm["Properties"]["TreatMissingData"] == "notBreaching", name


def slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@pytest.mark.parametrize("name", sorted(ALARMS))
def test_every_alarm_links_to_its_runbook_entry(name: str) -> None:
    # Given an alarm's description, then it names a section of docs/operations.md that exists:
    # whoever is paged lands on what to do.
    description = ALARMS[name]["Properties"]["AlarmDescription"]
    found = re.search(r"docs/operations\.md#([\w-]+)", description)
    assert found, f"{name}: no runbook link in {description!r}"
    headings = re.findall(r"^#+ (.+)$", RUNBOOK.read_text(encoding="utf-8"), flags=re.M)
    assert found.group(1) in {slug(h) for h in headings}, f"{name}: no section {found.group(1)}"


# --- the dashboard ------------------------------------------------------------------------------


def dashboards() -> dict[str, dict[str, Any]]:
    """The dashboard body under each search backend (its one conditional widget)."""
    (dashboard,) = of_type("AWS::CloudWatch::Dashboard").values()
    body, variables = dashboard["Properties"]["DashboardBody"]["Fn::Sub"]
    condition, when_true, when_false = variables["SearchWidget"]["Fn::If"]
    assert condition == "UseDomain"
    return {
        backend: json.loads(body.replace("${SearchWidget}", widget["Fn::Sub"]))
        for backend, widget in (("UseDomain", when_true), ("UseServerless", when_false))
    }


def dashboard_metrics(body: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, str], str]]:
    for widget in body["widgets"]:
        properties = widget["properties"]
        for line in properties["metrics"]:
            options = line[-1] if isinstance(line[-1], dict) else {}
            fields = [f for f in line if not isinstance(f, dict)]
            namespace, metric, *pairs = fields
            yield (
                namespace,
                metric,
                dict(zip(pairs[::2], pairs[1::2], strict=True)),
                str(options.get("stat", properties.get("stat"))),
            )


@pytest.mark.parametrize("backend", ["UseDomain", "UseServerless"])
def test_every_dashboard_metric_is_written(backend: str, emitted: set[Metric]) -> None:
    problems = [
        problem
        for namespace, metric, dimensions, _ in dashboard_metrics(dashboards()[backend])
        for problem in problems_of(namespace, metric, dimensions, backend, emitted)
    ]
    assert problems == []


def test_the_dashboard_shows_every_alarmed_metric_and_the_daily_verification_shares() -> None:
    for backend, body in dashboards().items():
        shown = {(n, m, frozenset(d.items())) for n, m, d, _ in dashboard_metrics(body)}
        alarmed = {
            (namespace, metric, frozenset(dimensions.items()))
            for alarm in ALARMS.values()
            if alarm.get("Condition") in (None, backend)
            for namespace, metric, dimensions in alarm_metrics(alarm)
        }
        missing = alarmed - shown
        assert missing == set(), backend
    # verification outcomes: each one's share (Average of a 0/1 per answer), per day
    body = dashboards()["UseServerless"]
    (widget,) = [
        w for w in body["widgets"] if "Verification" in json.dumps(w["properties"]["metrics"])
    ]
    assert widget["properties"]["period"] == 86400
    assert widget["properties"]["stat"] == "Average"
    names = {line[1] for line in widget["properties"]["metrics"]}
    assert names == {f"{observability.VERIFICATION_PREFIX}{v}" for v in Verification}


# --- access logs --------------------------------------------------------------------------------


def test_the_api_writes_an_access_log_of_ids_route_status_and_latency_only() -> None:
    api = RESOURCES["TandaApi"]["Properties"]
    setting = api["AccessLogSetting"]
    (group_name, attribute) = setting["DestinationArn"]["Fn::GetAtt"]
    assert attribute == "Arn"
    group = RESOURCES[group_name]
    assert group["Type"] == "AWS::Logs::LogGroup"
    assert group["Properties"]["RetentionInDays"] > 0
    fields = json.loads(setting["Format"])
    # the fields an operator needs to find a request, its route, its outcome and its time
    assert fields["request_id"] == "$context.requestId"
    assert fields["route"] == "$context.resourcePath"  # the route, not a path holding ids
    assert fields["status"] == "$context.status"
    assert fields["latencyMs"] == "$context.responseLatency"
    # and nothing of a request's content or its caller's credentials: no body, no header, no
    # authorizer context, no API key, no source IP or user agent.
    forbidden = re.compile(
        r"\$input|\$context\.(authorizer|identity|requestOverride|responseOverride)|"
        r"header|body|apiKey",
        re.I,
    )
    assert not [v for v in fields.values() if forbidden.search(v)]
    # execution logs (which would hold bodies) stay off
    (method,) = api["MethodSettings"]
    assert method["LoggingLevel"] == "OFF" and method["DataTraceEnabled"] is False


def test_api_gateway_may_write_logs_before_the_api_logs_to_them() -> None:
    # REST API logging needs the account's CloudWatch role: set first, or the stage is refused.
    assert RESOURCES["TandaApi"]["DependsOn"] == "ApiGatewayAccount"
    role = RESOURCES["ApiGatewayAccount"]["Properties"]["CloudWatchRoleArn"]
    assert role == {
        "Fn::If": [
            "CreateApiGatewayCloudWatchRole",
            {"Fn::GetAtt": ["ApiGatewayCloudWatchRole", "Arn"]},
            {"Ref": "ApiGatewayCloudWatchRoleArn"},
        ]
    }
    assert RESOURCES["ApiGatewayCloudWatchRole"]["DeletionPolicy"] == "Retain"


def test_the_runbook_exists_and_deploy_links_to_it() -> None:
    assert RUNBOOK.is_file()
    assert "operations.md" in (REPO / "docs" / "deploy.md").read_text(encoding="utf-8")


def test_no_alarm_route_is_left_to_a_stream_function_that_writes_no_route_metric() -> None:
    # The stream functions (uvicorn behind the Lambda Web Adapter) are not wrapped by
    # instrumented(): their routes are watched through API Gateway's metrics, never tanda's.
    names = instrumented_names()
    streams = set(FUNCTIONS) - set(names)
    assert streams == {f for f, p in FUNCTIONS.items() if p["Handler"].endswith(".sh")}


@pytest.mark.parametrize(
    "function", sorted(f for f, p in FUNCTIONS.items() if p["Handler"].endswith(".sh"))
)
def test_a_stream_function_logs_each_request_with_its_tenant_as_instrumented_does(
    function: str,
) -> None:
    # Issue 27: instrumented() cannot wrap a stream function (uvicorn behind the Lambda Web
    # Adapter), so its app logs the same invocation line per request (request id, status,
    # tenant) through observability.RequestLog (tests/integration/test_tenant_logs.py).
    entry, attribute = handler_target(FUNCTIONS[function])
    spec = importlib.util.spec_from_file_location(f"entry_{entry.parent.name}", entry)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    (logged,) = [
        m for m in getattr(module, attribute).user_middleware if m.cls is observability.RequestLog
    ]
    assert logged.kwargs == {"name": entry.parent.name}


def test_the_ingest_dead_letter_queue_and_the_failed_documents_are_alarmed() -> None:
    # Issue 26: an upload that failed IngestMaxReceives times lands in the dead-letter queue;
    # any message there pages. Documents that fail on either path are a share of those ingested.
    queue = RESOURCES["IngestQueue"]["Properties"]["RedrivePolicy"]
    assert queue["deadLetterTargetArn"] == {"Fn::GetAtt": ["IngestDeadLetterQueue", "Arn"]}
    by_metric = {
        (namespace, metric, frozenset(dims.items())): alarm["Properties"]
        for alarm in ALARMS.values()
        for namespace, metric, dims in [alarm_metric(alarm)]
    }
    depth = by_metric[
        (
            "AWS/SQS",
            "ApproximateNumberOfMessagesVisible",
            frozenset({("QueueName", "${IngestDeadLetterQueue.QueueName}")}),
        )
    ]
    assert (
        depth["Threshold"] == 1 and depth["ComparisonOperator"] == "GreaterThanOrEqualToThreshold"
    )
    failed = by_metric[
        (
            observability.NAMESPACE,
            observability.INGEST_FAILED,
            frozenset(
                {
                    (observability.STEP_DIMENSION, observability.INGEST_STEP),
                    (observability.SERVICE_DIMENSION, observability.SERVICE),
                }
            ),
        )
    ]
    assert failed["Statistic"] == "Average" and 0 < failed["Threshold"] < 1
