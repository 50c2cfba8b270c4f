"""``tanda documents list|show|delete`` (issue 26): a tenant's indexed documents, beside ``tanda
ingest`` — the same use cases as ``/v1/documents`` (``tanda.service.documents``); ``delete``
erases a document and everything drawn from it and prints the receipt. docs/documents.md."""

from __future__ import annotations

import argparse
import time

from tanda.cli.operator import fail, operator_runtime, print_table, when
from tanda.errors import DocumentNotFound


def documents_command(args: argparse.Namespace) -> int:
    """Exit 0; 1 when the tenant has no such document. The parser: ``tanda.cli.build_parser``."""
    from tanda.service.documents import document_view, erase_document, list_documents

    runtime = operator_runtime(args)
    index = runtime.search_index
    try:
        if args.documents_command == "list":
            page = list_documents(index, args.tenant, batch_id=args.batch, limit=args.limit)
            if args.json:
                print(page.model_dump_json(indent=2))
                return 0
            rows = [["DOCUMENT", "FILE", "BATCH", "PAGES", "INDEXED"]]
            rows += [
                [
                    d.document_id,
                    d.filename,
                    d.batch_id or "-",
                    str(d.pages or "-"),
                    d.indexed_at or "-",
                ]
                for d in page.documents
            ]
            print_table(rows)
            if page.next_cursor is not None:
                print(f"(first {args.limit}; more with --limit)")
            return 0
        if args.documents_command == "show":
            shown = document_view(index, args.tenant, args.document_id)
            print(shown.model_dump_json(indent=2))
            return 0
        receipt = erase_document(
            index, runtime.store, args.tenant, args.document_id, now=time.time()
        )
    except DocumentNotFound:
        return fail(
            "documents", f"no document {args.document_id!r} in tenant {args.tenant!r}", code=1
        )
    if args.json:
        print(receipt.model_dump_json(indent=2))
        return 0
    removed = ", ".join(f"{n} {kind.replace('_', ' ')}" for kind, n in receipt.removed)
    print(f"erased {receipt.document_id} ({receipt.filename}) at {when(receipt.erased_at)}")
    print(f"removed: {removed}")
    print(f"receipt {receipt.receipt_id}")
    return 0
