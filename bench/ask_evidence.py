"""``/v1/ask`` with the evidence layers (ASK-08): what they add to the context and what they cost.

Run from the repository root: ``.venv/bin/python bench/ask_evidence.py [CORPUS]`` → prints a
table, writes ``bench/results/ask_evidence.json``.

The corpus (``../shared/data/corpus`` when it is there, else ``demo/corpus``) is ingested once
with the structure layers (offline claims) into a real SQLite index. Two apps run under uvicorn
on loopback over that one index, the evidence on and off (``TANDA_ASK_EVIDENCE``), with the
scripted model at zero latency, so the difference is picking the evidence items and showing them
(the records read, the matching, the longer context and citations). For each question: the p50
of each mode over alternating requests, the sources shown by kind, and — with the offline model —
what an extractive answer then cites (``evidence_trail``).
"""

from __future__ import annotations

import json
import platform
import sys
import tempfile
import time
from collections import Counter
from contextlib import ExitStack
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ed25519  # noqa: E402
from tests.integration.credentials import settings_for  # noqa: E402
from tests.servers import serving  # noqa: E402

from tanda.adapters.scripted import AskScript, Scenario, ScriptedModel  # noqa: E402
from tanda.api.app import create_app  # noqa: E402
from tanda.auth.api_keys import hash_api_key  # noqa: E402
from tanda.model_calls import ChatRequest, ChatResponse, ModelRole  # noqa: E402
from tanda.service.ingest import StructureLayers, ingest_paths  # noqa: E402
from tanda.wiring import Runtime, build_model  # noqa: E402

KEY = "dip_live_bench-key"
RUNS = 40
RESULTS = ROOT / "bench" / "results" / "ask_evidence.json"
QUESTIONS = {
    "budget item": "Berapa realisasi Pajak Daerah Surabaya 2023?",
    "budget list": "Sebutkan semua rincian belanja daerah Kota Malang 2022",
    "budget table": "Bandingkan anggaran dan realisasi Belanja Modal Kabupaten Sidoarjo 2023",
    "statute fine": "Berapa denda paling banyak atas akses ilegal ke sistem elektronik?",
    "statute deadline": "Kapan Peraturan Pemerintah harus ditetapkan?",
    "statute norm": "Apa yang dimaksud dengan Informasi Elektronik?",
}


def default_corpus() -> Path:
    for parent in ROOT.parents:
        shared = parent / "shared" / "data" / "corpus"
        if shared.is_dir():
            return shared
    return ROOT / "demo" / "corpus"


def label(corpus: Path) -> str:
    """``../shared/data/corpus`` or ``demo/corpus``: where the corpus is, not whose machine."""
    if corpus.is_relative_to(ROOT):
        return corpus.relative_to(ROOT).as_posix()
    parts = corpus.resolve().parts
    return "../" + "/".join(parts[parts.index("shared") :]) if "shared" in parts else str(corpus)


class Shown:
    """Keeps the sources of the last ``ask`` call."""

    name = "shown"

    def __init__(self, model: Any) -> None:
        self.model = model
        self.sources: list[dict[str, Any]] = []

    def complete(self, request: ChatRequest) -> ChatResponse:
        if request.role is ModelRole.ask:
            self.sources = list((request.items or [{}])[0].get("sources", []))
        response: ChatResponse = self.model.complete(request)
        return response


def runtime_for(home: Path, model: Any, *, evidence: bool) -> Runtime:
    settings = settings_for(
        home,
        ed25519.Ed25519PrivateKey.generate(),
        model="offline",
        embedder="none",
        v1_api_key_hashes={hash_api_key(KEY): "bench"},
        initial_credits=Decimal(1_000_000),
        v1_rate_per_minute=1_000_000,
        request_deadline_s=30.0,
        ask_evidence=evidence,
    )
    runtime = Runtime(settings=settings)
    runtime.__dict__["model"] = Shown(model)
    return runtime


def post(client: httpx.Client, question: str) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    response = client.post(
        "/v1/ask", json={"query": question}, headers={"Authorization": f"Bearer {KEY}"}
    )
    elapsed = time.perf_counter() - started
    if response.status_code != 200:
        raise RuntimeError(f"HTTP {response.status_code} {response.text}")
    body: dict[str, Any] = response.json()
    return elapsed, body


def p50(values: list[float]) -> float:
    return round(sorted(values)[len(values) // 2] * 1000, 2)


def main(argv: list[str]) -> int:
    corpus = Path(argv[0]) if argv else default_corpus()
    results: dict[str, Any] = {
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "corpus": label(corpus),
        "runs": RUNS,
        "note": "2 shared vCPUs: wall time carries other processes' noise",
        "questions": {},
    }
    scripted = ScriptedModel({"default": Scenario(ask=AskScript(answer="Jawaban [S1]."))})
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        home = Path(tmp)
        on = runtime_for(home, scripted, evidence=True)
        report = ingest_paths(
            on.search_index,
            None,
            [corpus],
            tenant="bench",
            layers=StructureLayers(build_model("offline")),
        )
        results["ingested"] = {"documents": report.added, "chunks": report.chunks}
        off = runtime_for(home, scripted, evidence=False)
        extractive = runtime_for(home, build_model("offline"), evidence=True)
        clients = [
            stack.enter_context(
                httpx.Client(base_url=stack.enter_context(serving(create_app(r))), timeout=60)
            )
            for r in (on, off, extractive)
        ]
        for question in QUESTIONS.values():  # warm-up: imports, validators, SQLite pages
            for client in clients:
                post(client, question)
        for name, question in QUESTIONS.items():
            with_evidence: list[float] = []
            without: list[float] = []
            for _ in range(RUNS):  # alternating, so drift hits both alike
                with_evidence.append(post(clients[0], question)[0])
                without.append(post(clients[1], question)[0])
            shown = Counter(s.get("kind", "passage") for s in on.__dict__["model"].sources)
            _, answer = post(clients[2], question)
            row = {
                "question": question,
                "p50_ms_evidence_off": p50(without),
                "p50_ms_evidence_on": p50(with_evidence),
                "sources_shown": dict(shown),
                "offline_evidence_trail": answer["evidence_trail"],
                "offline_reports_a_violation": "IHLAL" in answer["answer"],
            }
            row["overhead_p50_ms"] = round(
                row["p50_ms_evidence_on"] - row["p50_ms_evidence_off"], 2
            )
            results["questions"][name] = row
            print(
                f"{name:>16}: off {row['p50_ms_evidence_off']:7.2f} ms, on "
                f"{row['p50_ms_evidence_on']:7.2f} ms (+{row['overhead_p50_ms']:.2f}); shown "
                f"{dict(shown)}; offline cites {answer['evidence_trail']}"
            )
    RESULTS.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
