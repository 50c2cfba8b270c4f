"""The cost of checking OpenSearch requests against OpenSearch's API spec (issue 26), once per test
process: ``bench/results/opensearch_contract.json``.

Loading (YAML parse, strict closing, operation index), compiling one operation's validator, and
validating tanda's index body, a hybrid search body and a 500-line ``_bulk`` — in a fresh
interpreter, as a test fixture pays it (``tests/opensearch_contract.py``).

    PYTHONPATH=shared:. python bench/opensearch_contract.py
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path
from typing import Any

from tests.opensearch_contract import Request, load_spec, violations

from tanda.records.documents import SearchQuery, SearchScope
from tanda.retrieval import opensearch_bodies as bodies

RESULTS = Path(__file__).parent / "results" / "opensearch_contract.json"


def _ms(run: Any, repeat: int = 20) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        assert run() == []
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 2)


def main() -> None:
    start = time.perf_counter()
    spec = load_spec()
    load_s = time.perf_counter() - start

    index = Request("PUT", "/tanda-chunks", {}, bodies.index_body(1024))
    start = time.perf_counter()
    assert violations(index, spec) == []
    first_ms = (time.perf_counter() - start) * 1000

    query = SearchQuery(
        text="data pribadi", scope=SearchScope(tenant_id="t", batch_id="b"), vector=(0.1,) * 8
    )
    search = Request("POST", "/tanda-chunks/_search", {}, bodies.search_body(query, candidates=50))
    lines: list[Any] = []
    for n in range(250):
        lines += [{"index": {"_id": f"c{n}"}}, {"tenant_id": "t", "ordinal": n, "text": "x"}]
    bulk = Request("POST", "/tanda-chunks/_bulk", {"refresh": ["true"]}, lines)
    figures = {
        "operations": len(spec.operations),
        "load_spec_s": round(load_s, 3),
        "first_index_body_ms_with_compile": round(first_ms, 1),
        "index_body_ms_p50": _ms(lambda: violations(index, spec)),
        "hybrid_search_body_ms_p50": _ms(lambda: violations(search, spec)),
        "bulk_500_lines_ms_p50": _ms(lambda: violations(bulk, spec), repeat=5),
    }
    print(json.dumps(figures, indent=2))
    RESULTS.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
