"""``tanda cross-check DOC_ID DOC_ID … [--wait]`` on real SQLite files under TANDA_HOME (XC-2,
XC-5): runs a job from the terminal (and so from cron), as the local operator."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tanda.cli import main
from tanda.settings import Settings, load_settings
from tanda.wiring import Runtime
from tests.cross_check import CONTRADICTION, ingest_statutes

pytestmark = pytest.mark.integration


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path / "home"
    for name, value in {
        "TANDA_HOME": str(home),
        "TANDA_INDEX": "sqlite",
        "TANDA_STORE": "sqlite",
        "TANDA_EMBEDDER": "none",
        "TANDA_MODEL": "offline",
        "TANDA_RUNNER": "inprocess",
        "TANDA_INITIAL_CREDITS": "10",
    }.items():
        monkeypatch.setenv(name, value)
    load_settings.cache_clear()  # settings are read once per process
    yield home
    load_settings.cache_clear()


@pytest.fixture
def documents(home: Path, tmp_path: Path) -> list[str]:
    return ingest_statutes(Runtime(settings=Settings(home=home)).search_index, tmp_path / "laws")


def test_wait_runs_the_job_here_and_prints_its_findings(
    documents: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["cross-check", *documents, "--tenant", "acme", "--lang", "en", "--wait"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].endswith("completed · 2 documents")
    assert "  2 findings: 1 contradictions, 1 support" in lines
    assert any(line.startswith("  contradiction: Both state") for line in lines)
    assert CONTRADICTION in out
    assert "similarity by lexical" in out


def test_json_is_the_job_as_get_returns_it_and_the_operator_is_metered_only(
    documents: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["cross-check", *documents, "--tenant", "acme", "--wait", "--json"]) == 0
    job = json.loads(capsys.readouterr().out)
    assert job["status"] == "completed" and job["version"] == "xchk-v4"
    assert job["cost"] == {"credits_charged": "0.00", "test_key": True}
    assert [f["kind"] for f in job["findings"]] == ["contradiction", "support"]
    assert main(["credits", "show", "--tenant", "acme", "--json"]) == 0
    usage = json.loads(capsys.readouterr().out)["usage"]["cross_check"]
    assert (usage["metered"], usage["charged"]) == (1, 0)


def test_without_wait_the_job_is_queued_for_a_server_and_job_wait_runs_it(
    documents: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    # Given a job queued from the terminal (no server runs),
    assert main(["cross-check", *documents, "--tenant", "acme", "--json"]) == 0
    captured = capsys.readouterr()
    queued = json.loads(captured.out)
    assert queued["status"] == "queued"
    assert f"tanda cross-check --job {queued['id']} --wait" in captured.err

    # when it is shown, it is still queued; with --wait this process runs it.
    assert main(["cross-check", "--job", queued["id"], "--tenant", "acme", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "queued"
    argv = ["cross-check", "--job", queued["id"], "--tenant", "acme", "--wait", "--json"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "completed"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["cross-check", "only-one", "--tenant", "acme"], "document_ids"),
        (["cross-check", "a", "a", "--tenant", "acme"], "document_ids"),
        (["cross-check", "a", "b", "--job", "xc_1", "--tenant", "acme"], "not both"),
    ],
)
def test_bad_arguments_exit_2_and_say_why(
    home: Path, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_unknown_documents_or_jobs_exit_1_with_the_error_code(
    documents: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["cross-check", documents[0], "doc_nope", "--tenant", "acme"]) == 1
    assert "(document_not_found)" in capsys.readouterr().err
    assert main(["cross-check", "--job", "xc_nope", "--tenant", "acme"]) == 1
    assert "(job_not_found)" in capsys.readouterr().err
