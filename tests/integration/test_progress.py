"""Progress across the Lambda boundary (issue 7): one contract for every ``Progress`` adapter (in
memory; DynamoDB under moto, its table made from ``template.yaml``), and the Step Functions runner
forwarding the frames the agent step publishes while ``StartSyncExecution`` still runs."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tanda.adapters.dynamodb_progress import (
    PROGRESS_TTL_S,
    TABLE_KEYS,
    TTL_ATTRIBUTE,
    DynamoProgress,
    progress_pk,
)
from tanda.adapters.memory_progress import MemoryProgress
from tanda.agent.tool_loop import AgentUnavailable
from tanda.contract.common import FallbackReason, WireModel
from tanda.contract.frames import ToolFinishedFrame, ToolStartedFrame
from tanda.pipeline.request import AnswerRequest
from tanda.pipeline.runners.stepfunctions import StepFunctionsRunner
from tanda.pipeline.states import AnswerOutcome
from tanda.ports import Progress
from tanda.settings import Settings

REPO = Path(__file__).resolve().parents[2]
REGION = "us-east-1"
TABLE = "tanda-progress-test"


def frames_of(tool: str, n: int) -> list[WireModel]:
    return [
        ToolStartedFrame(call_id=f"c{n}", tool=tool, arguments={"query": f"Frist {n} §"}),
        ToolFinishedFrame(call_id=f"c{n}", tool=tool, status="ok", result_count=n),
    ]


def template_table() -> dict[str, Any]:
    from samtranslator.yaml_helper import yaml_parse

    template = yaml_parse((REPO / "template.yaml").read_text(encoding="utf-8"))
    properties: dict[str, Any] = template["Resources"]["TandaTable"]["Properties"]
    return properties


class SerializedWrites:
    """DynamoDB applies each conditional write atomically; moto does not across threads. One
    lock around the writes restores that, so the race test exercises the adapter's condition."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._client, name)
        if name != "put_item":
            return attribute

        def locked(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                return attribute(*args, **kwargs)

        return locked


@pytest.fixture
def dynamo_client(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    import boto3
    from moto import mock_aws

    for variable in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(variable, "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    with mock_aws():
        client = boto3.client("dynamodb", region_name=REGION)
        properties = template_table()
        client.create_table(
            TableName=TABLE,
            AttributeDefinitions=properties["AttributeDefinitions"],
            KeySchema=properties["KeySchema"],
            BillingMode="PAY_PER_REQUEST",
        )
        yield SerializedWrites(client)


Publishers = Callable[[], Progress]
"""Each call: another adapter instance on the same backing store (another Lambda)."""


@pytest.fixture(params=["memory", "dynamodb"])
def publishers(request: pytest.FixtureRequest) -> Publishers:
    if request.param == "memory":
        shared = MemoryProgress()
        return lambda: shared
    client = request.getfixturevalue("dynamo_client")
    return lambda: DynamoProgress(client, table=TABLE)


# --- one contract for both adapters -------------------------------------------------------


def test_frames_come_back_in_order_with_increasing_numbers(publishers: Publishers) -> None:
    # Given frames published for two requests, interleaved,
    progress = publishers()
    published = frames_of("search", 1) + frames_of("read_document", 2)
    for frame in published:
        progress.publish("req-a", frame)
        progress.publish("req-b", ToolStartedFrame(call_id="other", tool="list_sources"))

    # when a reader (another instance) reads them, then it gets exactly the request's frames, in
    # order, numbered 1, 2, …, equal to what was published.
    events = publishers().read("req-a")
    assert [e.seq for e in events] == [1, 2, 3, 4]
    assert [e.frame for e in events] == published
    assert [type(e.frame) for e in events] == [type(f) for f in published]

    # and reading after a number gives only what is newer; an unknown request has nothing.
    assert [e.frame for e in progress.read("req-a", after=2)] == published[2:]
    assert progress.read("req-a", after=4) == []
    assert progress.read("nobody") == []


def test_a_read_sees_every_publish_that_returned_before_it(publishers: Publishers) -> None:
    # Given a reader polling while a publisher writes,
    writer, reader = publishers(), publishers()
    seen: list[int] = []
    for n in range(1, 6):
        # when each publish returns, then the next read already has it (consistent reads).
        writer.publish("req", frames_of("search", n)[0])
        new = reader.read("req", after=seen[-1] if seen else 0)
        assert [e.seq for e in new] == [n]
        seen += [e.seq for e in new]


def test_two_publishers_of_one_request_never_share_a_number(publishers: Publishers) -> None:
    # Given two publishers of the same request (a retried task beside a late one),
    first, second = publishers(), publishers()
    first.publish("req", frames_of("search", 1)[0])

    # when both publish, concurrently,
    def publish_many(progress: Progress, tool: str) -> None:
        for n in range(5):
            progress.publish("req", ToolStartedFrame(call_id=f"{tool}{n}", tool=tool))

    threads = [
        threading.Thread(target=publish_many, args=(first, "a")),
        threading.Thread(target=publish_many, args=(second, "b")),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    # then every frame is kept under its own number, 1 … 11, each publisher's in its order.
    events = first.read("req")
    assert [e.seq for e in events] == list(range(1, 12))
    for tool in ("a", "b"):
        calls = [e.frame.call_id for e in events if isinstance(e.frame, ToolStartedFrame)]
        assert [c for c in calls if c.startswith(tool)] == [f"{tool}{n}" for n in range(5)]


class RacedWrites:
    """A client whose next ``lose`` writes of one publisher each find their number just taken:
    another publisher's frame is written first, as in a burst of tool calls beside it."""

    def __init__(self, client: Any, other: DynamoProgress, lose: int) -> None:
        self._client = client
        self._other = other
        self.lose = lose

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._client, name)
        if name != "put_item":
            return attribute

        def raced(*args: Any, **kwargs: Any) -> Any:
            if self.lose:
                self.lose -= 1
                self._other.publish("req", ToolStartedFrame(call_id="b", tool="search"))
            return attribute(*args, **kwargs)

        return raced


def test_a_publisher_that_loses_a_burst_of_races_still_publishes(dynamo_client: Any) -> None:
    # Given another publisher of the request that writes a frame before each of this one's first
    # six writes (a clean-clone CI run on a loaded machine lost five in a row and raised)
    other = DynamoProgress(dynamo_client, table=TABLE)
    other.publish("req", frames_of("search", 1)[0])
    mine = DynamoProgress(RacedWrites(dynamo_client, other, lose=6), table=TABLE)
    # When it publishes, then its frame is kept under the next free number
    assert mine.publish("req", ToolStartedFrame(call_id="a", tool="search")) == 8
    assert [e.seq for e in other.read("req")] == list(range(1, 9))


# --- the DynamoDB items -----------------------------------------------------------------------


def test_the_adapter_keys_and_ttl_are_the_templates() -> None:
    properties = template_table()
    assert {k["AttributeName"]: k["KeyType"] for k in properties["KeySchema"]} == TABLE_KEYS
    assert properties["TimeToLiveSpecification"] == {
        "AttributeName": TTL_ATTRIBUTE,
        "Enabled": True,
    }
    types = {a["AttributeName"]: a["AttributeType"] for a in properties["AttributeDefinitions"]}
    assert types == {"PK": "S", "SK": "S"}


def test_an_event_item_has_its_ttl_and_expired_events_are_not_read(dynamo_client: Any) -> None:
    # Given an event published at t=1000,
    now = [1000.0]
    progress = DynamoProgress(dynamo_client, table=TABLE, clock=lambda: now[0])
    progress.publish("req", frames_of("search", 1)[0])

    # then its item is PROG#<id> / 0000000001 with the TTL attribute PROGRESS_TTL_S later,
    item = dynamo_client.get_item(
        TableName=TABLE, Key={"PK": {"S": progress_pk("req")}, "SK": {"S": "0000000001"}}
    )["Item"]
    assert set(item) == {"PK", "SK", "frame", TTL_ATTRIBUTE}
    assert int(item[TTL_ATTRIBUTE]["N"]) == 1000 + PROGRESS_TTL_S
    assert json.loads(item["frame"]["S"])["event"] == "tool.started"

    # and once past it (DynamoDB deletes lazily), a read no longer returns it.
    assert len(progress.read("req")) == 1
    now[0] = 1000.0 + PROGRESS_TTL_S + 1
    assert progress.read("req") == []


# --- the runner forwards frames while the execution runs --------------------------------------


ARN = "arn:aws:states:us-east-1:1:stateMachine:q"
RECORDED_OUTPUT = AnswerOutcome.refusal(FallbackReason.source_scope_empty).model_dump_json()
"""A SUCCEEDED execution's output (the ``Finished`` state's AnswerOutcome)."""


def request(query: str = "q", trace_id: str | None = None) -> AnswerRequest:
    settings = Settings(request_deadline_s=20.0, runner="stepfunctions")
    return AnswerRequest.starting(
        "acme", query, settings, started_at=time.time(), trace_id=trace_id
    )


class FakeStepFunctions:
    """``start_sync_execution`` plays the agent step: it publishes frames under the input's
    ``progress_id``, waits until the route has forwarded the first ones (so they must travel
    while it still blocks), publishes the rest and returns the recorded output."""

    def __init__(self, channel: Progress, received: list[WireModel]) -> None:
        self.channel = channel
        self.received = received
        self.requests: list[dict[str, Any]] = []
        self.forwarded_live = False

    def start_sync_execution(self, **request: Any) -> dict[str, Any]:
        self.requests.append(request)
        progress_id = json.loads(request["input"])["progress_id"]
        first, second = frames_of("search", 1), frames_of("read_document", 2)
        for frame in first:
            self.channel.publish(progress_id, frame)
        deadline = time.monotonic() + 5
        while len(self.received) < len(first) and time.monotonic() < deadline:
            time.sleep(0.01)
        self.forwarded_live = self.received == first
        for frame in second:
            self.channel.publish(progress_id, frame)
        return {"status": "SUCCEEDED", "output": RECORDED_OUTPUT}


@pytest.fixture(params=["memory", "dynamodb"])
def channel(request: pytest.FixtureRequest) -> Progress:
    if request.param == "memory":
        return MemoryProgress()
    return DynamoProgress(request.getfixturevalue("dynamo_client"), table=TABLE)


def test_the_runner_forwards_progress_frames_in_order_before_it_returns(
    channel: Progress,
) -> None:
    # Given an execution whose agent step publishes four frames, two of them while it runs,
    received: list[WireModel] = []
    client = FakeStepFunctions(channel, received)
    runner = StepFunctionsRunner(client, ARN, channel, poll_s=0.02)

    # when the runner answers with a progress callback,
    outcome = runner.run(request("Welche Frist gilt?", "trace-1"), progress=received.append)

    # then the first frames arrived while the execution still ran, and by the time it returns
    # the callback has every frame, in publish order; the outcome is the recorded output's.
    assert client.forwarded_live
    assert received == frames_of("search", 1) + frames_of("read_document", 2)
    assert outcome.fallback is FallbackReason.source_scope_empty
    state = json.loads(client.requests[0]["input"])
    assert state["progress_id"] == "trace-1" and client.requests[0]["name"] == "trace-1"


def test_without_a_progress_callback_the_execution_carries_no_progress_id() -> None:
    client = FakeStepFunctions(MemoryProgress(), [])
    client.start_sync_execution = lambda **request: (  # type: ignore[method-assign]
        client.requests.append(request) or {"status": "SUCCEEDED", "output": RECORDED_OUTPUT}
    )
    runner = StepFunctionsRunner(client, ARN, MemoryProgress())
    runner.run(request(trace_id="trace-0"))
    assert json.loads(client.requests[0]["input"])["progress_id"] is None


def test_a_failed_execution_still_delivers_its_frames_then_raises() -> None:
    # Given an execution that publishes a frame and then fails,
    channel = MemoryProgress()
    received: list[WireModel] = []

    class Failing:
        def start_sync_execution(self, **request: Any) -> dict[str, Any]:
            progress_id = json.loads(request["input"])["progress_id"]
            channel.publish(progress_id, frames_of("search", 1)[0])
            return {"status": "FAILED", "error": "UpstreamFailed"}

    runner = StepFunctionsRunner(Failing(), ARN, channel)

    # when the runner answers, then the frame was forwarded and the failure is raised.
    with pytest.raises(AgentUnavailable):
        runner.run(request(), progress=received.append)
    assert received == frames_of("search", 1)[:1]
