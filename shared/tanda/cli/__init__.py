"""The ``tanda`` command. Each subcommand imports what it needs only when it runs."""

# Every command lives in this package (DESIGN §2: a surface); its use cases are in tanda.service.

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from tanda.cli.operator import add_store_option
from tanda.records.kinds import NODE_KINDS


def _serve(args: argparse.Namespace) -> int:
    from tanda.api.serve import run_server

    return run_server(host=args.host, port=args.port)


def _mcp(args: argparse.Namespace) -> int:
    from tanda.cli.mcp import mcp_command

    return mcp_command(args)


def _keys(args: argparse.Namespace) -> int:
    from tanda.cli.keys import keys_command

    return keys_command(args)


def _token(args: argparse.Namespace) -> int:
    from tanda.cli.keys import token_command

    return token_command(args)


def _ask(args: argparse.Namespace) -> int:
    if args.v1:
        from tanda.cli.ask_v1 import ask_v1_command

        return ask_v1_command(args)
    from tanda.cli.terminal import ask_command

    return ask_command(args)


def _credits(args: argparse.Namespace) -> int:
    from tanda.cli.credits import credits_command

    return credits_command(args)


def _tenants(args: argparse.Namespace) -> int:
    from tanda.cli.tenants import tenants_command

    return tenants_command(args)


def _demo(args: argparse.Namespace) -> int:
    from tanda.cli.terminal import demo_command

    return demo_command(args)


def _documents(args: argparse.Namespace) -> int:
    from tanda.cli.documents import documents_command

    return documents_command(args)


def _ingest(args: argparse.Namespace) -> int:
    from tanda.cli.ingest import ingest_command

    return ingest_command(args)


def _inspect(args: argparse.Namespace) -> int:
    from tanda.cli.inspect import inspect_command

    return inspect_command(args)


def _search(args: argparse.Namespace) -> int:
    from tanda.cli.search import search_command

    return search_command(args)


def _eval_retrieval(args: argparse.Namespace) -> int:
    from tanda.cli.evaluate import eval_retrieval_command

    return eval_retrieval_command(args)


def _eval_judge(args: argparse.Namespace) -> int:
    from tanda.cli.evaluate import eval_judge_command

    return eval_judge_command(args)


def _eval_numbers(args: argparse.Namespace) -> int:
    from tanda.cli.evaluate import eval_numbers_command

    return eval_numbers_command(args)


def _cross_check(args: argparse.Namespace) -> int:
    from tanda.cli.cross_check import cross_check_command

    return cross_check_command(args)


def _eval_proof(args: argparse.Namespace) -> int:
    from tanda.cli.evaluate import eval_proof_command

    return eval_proof_command(args)


def _eval_answers(args: argparse.Namespace) -> int:
    from tanda.cli.evaluate import eval_answers_command

    return eval_answers_command(args)


def _openapi(args: argparse.Namespace) -> int:
    from tanda.cli.openapi import write_openapi

    return write_openapi(args.out)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tanda", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(
        name: str, handler: Callable[[argparse.Namespace], int], help_: str
    ) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_, description=help_)
        p.set_defaults(handler=handler)
        return p

    p = add("serve", _serve, "Run every route in one local HTTP server (uvicorn).")
    p.add_argument("--host", default=None, help="bind address (default: TANDA_HOST or 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default: TANDA_PORT or 8765)")

    p = add("mcp", _mcp, "Serve the knowledge tools to a local MCP host over stdio.")
    p.add_argument(
        "--tenant", default=None, help="tenant to read (default: TANDA_MCP_TENANT or demo)"
    )

    p = add("keys", _keys, "Create, list, revoke and rotate API keys (records in the Store).")
    keys_sub = p.add_subparsers(dest="keys_command", required=True, metavar="ACTION")
    kc = keys_sub.add_parser(
        "create",
        help="Create a shared API key and a /v1 API key (and, embedded, a local signing key "
        "pair for `tanda token`); the secrets are shown once.",
    )
    kc.add_argument("--tenant", default="demo", help="tenant the keys belong to (default: demo)")
    kc.add_argument("--name", default=None, help="a name to tell the keys apart in `keys list`")
    kc.add_argument(
        "--expires", default=None, metavar="DURATION", help="refuse them after e.g. 90d, 12h"
    )
    kc.add_argument(
        "--test", action="store_true", help="make a dip_test_ key (metered, never charged)"
    )
    kl = keys_sub.add_parser("list", help="List keys (never their secrets).")
    kl.add_argument("--tenant", default=None, help="only this tenant's keys")
    kr = keys_sub.add_parser("revoke", help="Refuse a key from now on (within the cache bound).")
    kr.add_argument("key_id", metavar="KEY_ID")
    ko = keys_sub.add_parser(
        "rotate", help="A new secret for a key; the old one stops at the end of the grace."
    )
    ko.add_argument("key_id", metavar="KEY_ID")
    ko.add_argument(
        "--grace",
        default="24h",
        metavar="DURATION",
        help="how long the old key still works (default 24h; 0 stops it now)",
    )
    for action in (kc, kl, kr, ko):
        add_store_option(action)
        action.set_defaults(handler=_keys)

    p = add("token", _token, "Print a short-lived partner JWT signed with the local key pair.")
    p.add_argument("--tenant", default="demo", help="tenant (partner) the token is for")
    p.add_argument("--subject", default="local-user", help="the `sub` claim")
    p.add_argument("--admin", action="store_true", help="sign as the admin issuer (playground)")
    p.add_argument("--ttl", type=int, default=900, help="lifetime in seconds (default 900)")
    p.add_argument(
        "--scope",
        default=None,
        help="the scopes the token grants, space-separated (default: TANDA_JWT_PARTNER_SCOPE, "
        "or TANDA_JWT_ADMIN_SCOPE with --admin)",
    )

    p = add("ask", _ask, "Ask a question and print the annotated answer in the terminal.")
    p.add_argument("question", help="the question")
    p.add_argument("--tenant", default="demo")
    p.add_argument("--json", action="store_true", help="print the response JSON instead")
    p.add_argument(
        "--source",
        dest="sources",
        action="append",
        choices=["documents", "portal"],
        default=None,
        help="source kinds the agent may use (repeatable; default: documents; docs/sources.md)",
    )
    p.add_argument(
        "--mcp-server",
        dest="mcp_servers",
        action="append",
        default=None,
        help="an MCP server of the tenant the agent may call (repeatable; docs/sources.md)",
    )
    p.add_argument("--v1", action="store_true", help="answer as POST /v1/ask does ([S#] citations)")
    p.add_argument("--document", default=None, help="--v1: only this document")
    p.add_argument("--batch", default=None, help="--v1: only this ingest batch")
    p.add_argument("--lang", default=None, help="--v1: answer language (tr, id, en)")
    p.add_argument("--top-k", type=int, default=5, help="--v1: sources to retrieve (1-20)")

    p = add("credits", _credits, "A tenant's /v1 credits and their ledger (ASK-12, issue 27).")
    credits_sub = p.add_subparsers(dest="credits_command", required=True, metavar="ACTION")
    cg = credits_sub.add_parser("grant", help="Add AMOUNT credits to the tenant's balance.")
    cg.add_argument("amount", metavar="AMOUNT", help="a positive decimal, e.g. 25 or 0.50")
    cs = credits_sub.add_parser("show", help="Print the balance and the metered usage.")
    ca = credits_sub.add_parser(
        "adjust", help="Correct the balance by AMOUNT (negative allowed) with a reason."
    )
    ca.add_argument("amount", metavar="AMOUNT", help="a signed decimal, e.g. -5 or 2.50")
    ca.add_argument("--reason", required=True, help="why: kept in the ledger entry")
    ca.add_argument("--allow-negative", action="store_true", help="let the balance go below zero")
    ch = credits_sub.add_parser("history", help="Print the tenant's ledger entries.")
    ch.add_argument("--since", default=None, help="only entries from this date or time (UTC)")
    ch.add_argument("--csv", action="store_true", help="print CSV instead")
    for action in (cg, cs, ca, ch):
        action.add_argument("--tenant", required=True, help="the tenant")
        if action is not ch:
            action.add_argument("--json", action="store_true", help="print JSON instead")
        add_store_option(action)
        action.set_defaults(handler=_credits)

    p = add("tenants", _tenants, "Create, list, show or set tenants (name, language, status).")
    tenants_sub = p.add_subparsers(dest="tenants_command", required=True, metavar="ACTION")
    tc = tenants_sub.add_parser("create", help="Create a tenant (active).")
    tl = tenants_sub.add_parser("list", help="List every tenant.")
    tv = tenants_sub.add_parser("show", help="Print the tenant, its keys and balance.")
    ts = tenants_sub.add_parser("set", help="Set the tenant's name, language or status.")
    for action in (tc, ts):
        action.add_argument("--name", default=None, help="a display name")
        action.add_argument("--lang", default=None, help="tr, id, en, or none to clear (ASK-07)")
    ts.add_argument(
        "--status",
        choices=("active", "suspended"),
        default=None,
        help="suspended: its keys and tokens get 403 tenant_suspended; nothing is deleted",
    )
    for action in (tc, tv, ts):
        action.add_argument("--tenant", required=True, help="the tenant")
    for action in (tc, tl, tv, ts):
        add_store_option(action)
        action.set_defaults(handler=_tenants)

    p = add("demo", _demo, "Print the seed's annotated example, composed and aggregated by tanda.")
    p.add_argument("--json", action="store_true", help="print the annotate-v2 JSON instead")

    p = add("ingest", _ingest, "Index documents: PDF, text, Markdown, CSV, JSONL, BEIR folders.")
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or folders (recursed)")
    p.add_argument(
        "--remote",
        metavar="PREFIX",
        default=None,
        help="on AWS: import every object under tenants/<tenant>/imports/PREFIX of the uploads "
        "bucket with the bulk-ingestion Distributed Map (instead of PATHs)",
    )
    p.add_argument(
        "--manifest",
        metavar="KEY",
        default=None,
        help="on AWS: import the keys a JSON manifest at tenants/<tenant>/imports/KEY lists",
    )
    p.add_argument("--tenant", default="demo", help="tenant the documents belong to")
    p.add_argument("--batch", default=None, help="batch id (scope for /v1 search and ask)")
    p.add_argument("--selection", action="append", default=[], help="named selection (repeatable)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")

    p = add("documents", _documents, "Upload, list, show and erase a tenant's documents.")
    doc_sub = p.add_subparsers(dest="documents_command", required=True, metavar="ACTION")
    du = doc_sub.add_parser(
        "upload",
        help="Upload files as POST /v1/documents does and ingest them here (issue 26).",
    )
    du.add_argument("files", nargs="+", metavar="FILE", help="the files to upload")
    du.add_argument("--batch", default=None, help="batch id of the upload")
    du.add_argument("--selection", action="append", default=[], help="named selection (repeatable)")
    du.add_argument("--label", default=None, help="a label for each file")
    du.add_argument(
        "--no-wait",
        action="store_true",
        help="leave them queued for `tanda serve`'s workers instead of ingesting them here",
    )
    dl = doc_sub.add_parser("list", help="The tenant's documents, newest first.")
    dl.add_argument("--batch", default=None, help="only this batch's")
    dl.add_argument("--status", default=None, help="only in this status (e.g. failed)")
    dl.add_argument("--limit", type=int, default=200, help="at most this many (default 200)")
    ds = doc_sub.add_parser("show", help="One document: file, scope and counts (JSON).")
    ds.add_argument("document_id", metavar="DOCUMENT_ID")
    dd = doc_sub.add_parser(
        "delete",
        help="Erase a document and everything drawn from it; print the erasure receipt.",
    )
    dd.add_argument("document_id", metavar="DOCUMENT_ID")
    for action in (du, dl, ds, dd):
        action.add_argument("--tenant", default="demo", help="tenant the documents belong to")
        action.add_argument("--json", action="store_true", help="print JSON")
        add_store_option(action)
        action.set_defaults(handler=_documents)

    p = add("inspect", _inspect, "List a document's structure records (docs/evidence.md).")
    p.add_argument("document_id", metavar="DOCUMENT_ID")
    p.add_argument("--tenant", default="demo")
    p.add_argument(
        "--kind",
        action="append",
        choices=NODE_KINDS,
        help="only records of this kind (repeatable)",
    )
    p.add_argument("--json", action="store_true", help="the document and records as JSON")

    p = add("search", _search, "Search the index and print ranked chunks.")
    p.add_argument("query")
    p.add_argument("--tenant", default="demo")
    p.add_argument("--top-k", type=int, default=5)
    p.add_argument("--document", dest="document_ids", action="append", default=None)
    p.add_argument("--batch", default=None)
    p.add_argument("--selection", default=None)
    p.add_argument("--lang", default=None)
    p.add_argument("--json", action="store_true")

    p = add("eval", _eval_retrieval, "Measure quality on an evaluation set.")
    eval_sub = p.add_subparsers(dest="eval_kind", required=True, metavar="KIND")
    er = eval_sub.add_parser("retrieval", help="nDCG@10, recall@5, MRR@10 on a BEIR folder")
    er.add_argument("dir", help="BEIR folder: corpus.jsonl, queries.jsonl, qrels/test.tsv")
    er.add_argument("--lang", default=None, help="analyzer language (default: detected)")
    er.set_defaults(handler=_eval_retrieval)
    ej = eval_sub.add_parser(
        "judge",
        help="false-support rate and balanced accuracy of the judge on IndoNLI, WiCE, SummEdits",
    )
    ej.add_argument("paths", nargs="+", metavar="PATH", help="set files, or folders of them")
    ej.add_argument("--model", default=None, help="model adapter, as TANDA_MODEL (default: it)")
    ej.add_argument("--limit", type=_positive, default=None, help="judge only each set's first N")
    ej.add_argument(
        "--workers", type=_positive, default=4, help="answers judged at once (default 4)"
    )
    ej.add_argument("--details", default=None, help="write one JSON line per statement here")
    ej.set_defaults(handler=_eval_judge)
    en = eval_sub.add_parser(
        "numbers", help="TAT-QA answers written as people do, against their table cells"
    )
    en.add_argument("path", help="TAT-QA JSON file (e.g. tatqa_dev.json)")
    en.add_argument("--misses", type=_positive, default=50, help="misses listed (default 50)")
    en.set_defaults(handler=_eval_numbers)
    ep = eval_sub.add_parser(
        "proof", help="the proof chain on TAT-QA's arithmetic questions (ASK-11)"
    )
    ep.add_argument("path", help="TAT-QA JSON file (e.g. tatqa_dev.json)")
    ep.add_argument("--misses", type=int, default=50, help="misses listed per kind (default 50)")
    ep.set_defaults(handler=_eval_proof)
    ea = eval_sub.add_parser(
        "answers",
        help="whether answers answer: a gold answer in a verified statement, holding back on "
        "unanswerable questions (SQuAD 2.0 file or BEIR folder with answers)",
    )
    ea.add_argument("path", help="SQuAD 2.0 JSON (e.g. idk_mrc_valid.json) or a BEIR folder")
    ea.add_argument(
        "--route", choices=("v2", "v1"), default="v2", help="/query/v2 (default) or /v1/ask"
    )
    ea.add_argument(
        "--limit", type=_positive, default=None, help="ask N questions of each kind (seeded)"
    )
    ea.add_argument("--seed", type=int, default=0, help="seed of --limit's draw (default 0)")
    ea.add_argument("--model", default=None, help="model adapter, as TANDA_MODEL (default: it)")
    ea.add_argument("--json", action="store_true", help="print one JSON object")
    ea.add_argument("--details", default=None, help="write one JSON line per question here")
    ea.set_defaults(handler=_eval_answers)

    p = add(
        "cross-check",
        _cross_check,
        "Cross-check documents for contradictions and support (a /v1/cross-check job).",
    )
    p.add_argument("document_ids", nargs="*", metavar="DOC_ID", help="two or more document ids")
    p.add_argument("--tenant", default="demo", help="tenant the documents belong to")
    p.add_argument("--lang", default=None, help="language of the explanations (tr, id, en)")
    p.add_argument("--job", default=None, metavar="XC_ID", help="show an existing job instead")
    p.add_argument(
        "--wait", action="store_true", help="run the job here (embedded) or wait until it ends"
    )
    p.add_argument("--json", action="store_true", help="print the job as GET returns it")

    p = add("openapi", _openapi, "Write the OpenAPI document generated from the contract models.")
    p.add_argument(
        "--out", default="docs/openapi.json", help="output path (default docs/openapi.json)"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except BrokenPipeError:  # `tanda … | head` closed the pipe: not an error
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 — silence the flush at exit
        return 0
    except KeyboardInterrupt:
        return 130
