"""``tanda search``: the /v1/search use case from the terminal, for a local operator."""

from __future__ import annotations

import argparse
import sys

from pydantic import ValidationError


def search_command(args: argparse.Namespace) -> int:
    from tanda.auth import Principal
    from tanda.contract.v1_search import V1SearchRequest
    from tanda.service.search_v1 import search_v1
    from tanda.wiring import build_runtime

    if args.document_ids and len(args.document_ids) > 1:
        print("tanda search: give at most one --document", file=sys.stderr)
        return 2
    try:
        body = V1SearchRequest(
            query=args.query,
            top_k=args.top_k,
            document_id=args.document_ids[0] if args.document_ids else None,
            batch_id=args.batch,
            lang=args.lang,
        )
    except ValidationError as error:
        for problem in error.errors():
            where = ".".join(str(p) for p in problem["loc"]) or "request"
            print(f"tanda search: {where}: {problem['msg']}", file=sys.stderr)
        return 2
    # A local operator's searches are metered like a dip_test_ key's, never charged (ASK-13).
    operator = Principal(
        tenant_id=args.tenant, partner_id="local-cli", subject="local-cli", is_test=True
    )
    response = search_v1(build_runtime(), operator, body)
    if args.json:
        print(response.model_dump_json(indent=2))
        return 0
    retrieval = response.retrieval
    if not response.results:
        if retrieval.below_floor:
            print(
                f"No result at or above the reranker floor {retrieval.rerank_min_score:g} "
                f"({retrieval.below_floor} under it; TANDA_RERANK_MIN_SCORE)."
            )
        else:
            print(
                f"No results in tenant {args.tenant!r}. Ingest documents with `tanda ingest PATH`."
            )
        return 0
    for result in response.results:
        where = " · ".join(
            part
            for part in (
                result.identity.legal_reference or result.title,
                f"hlm. {result.page_no}" if result.page_no is not None else None,
                result.section,
            )
            if part
        )
        rerank = f", rerank {result.rerank_score:.2f}" if result.rerank_score is not None else ""
        print(f"{result.rank:>2}. {where}  [{result.chunk_id}, score {result.score:.4f}{rerank}]")
        print(f"    {result.snippet.replace(chr(10), ' ')}")
    floor = (
        f", {retrieval.reranker} reranker floor {retrieval.rerank_min_score:g}: "
        f"{retrieval.below_floor} under it"
        if retrieval.reranked
        else ""
    )
    print(f"({retrieval.mode} retrieval{floor})")
    return 0
