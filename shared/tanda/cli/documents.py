"""``tanda documents upload|list|show|delete`` (issue 26): a tenant's documents, beside ``tanda
ingest`` — the same use cases as ``/v1/documents`` (``tanda.service.documents``,
``tanda.service.uploads``). ``upload`` goes through the upload path (checks, dedupe by SHA-256,
the uploads folder, the per-document handler) and ingests here unless ``--no-wait``; ``delete``
erases a document and everything drawn from it and prints the receipt. docs/documents.md."""

from __future__ import annotations

import argparse
import mimetypes
import time
from pathlib import Path

from tanda.cli.operator import fail, operator_runtime, print_table, when
from tanda.errors import DocumentNotFound, TandaError


def documents_command(args: argparse.Namespace) -> int:
    """Exit 0; 1 when the tenant has no such document, or an upload failed. The parser:
    ``tanda.cli.build_parser``."""
    from tanda.service.documents import document_view, erase_document, list_documents

    runtime = operator_runtime(args)
    index = runtime.search_index
    try:
        if args.documents_command == "upload":
            return _upload(args)
        if args.documents_command == "list":
            page = list_documents(
                index,
                args.tenant,
                batch_id=args.batch,
                status=args.status,
                limit=args.limit,
                store=runtime.store,
            )
            if args.json:
                print(page.model_dump_json(indent=2))
                return 0
            rows = [["DOCUMENT", "STATUS", "FILE", "BATCH", "PAGES", "INDEXED"]]
            rows += [
                [
                    d.document_id,
                    d.status,
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
            shown = document_view(index, args.tenant, args.document_id, store=runtime.store)
            print(shown.model_dump_json(indent=2))
            return 0
        receipt = erase_document(
            index,
            runtime.store,
            args.tenant,
            args.document_id,
            now=time.time(),
            originals=runtime.originals,
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


def _upload(args: argparse.Namespace) -> int:
    from tanda.contract.v1_documents import UPLOAD_TYPES, V1UploadRequest
    from tanda.service.document_uploads import upload_file
    from tanda.service.documents import document_view

    runtime = operator_runtime(args)
    rows = [["FILE", "DOCUMENT", "STATUS", "REASON"]]
    failed = 0
    for name in args.files:
        path = Path(name)
        suffix = path.suffix.lower()
        guessed = mimetypes.guess_type(path.name)[0]
        allowed = UPLOAD_TYPES.get(suffix, ())
        content_type = guessed if guessed in allowed else (allowed[0] if allowed else "")
        try:
            data = path.read_bytes()
            body = V1UploadRequest(
                filename=path.name,
                content_type=content_type or "application/octet-stream",
                size_bytes=len(data),
                batch_id=args.batch,
                selections=list(args.selection or ()),
                label=args.label,
            )
            accepted, _ = upload_file(runtime, args.tenant, body, data, wake=False)
        except (OSError, ValueError, TandaError) as error:
            failed += 1
            rows.append([str(path), "-", "refused", str(error)])
            continue
        status, reason = accepted.status, ""
        if accepted.duplicate_of is not None:
            reason = f"duplicate of {accepted.duplicate_of}"
        elif not args.no_wait:
            done = runtime.process_upload_here(args.tenant, accepted.document_id)
            if done is not None:
                status, reason = done.status, done.reason or ""
        if status == "failed":
            failed += 1
        rows.append([str(path), accepted.document_id, status, reason])
    # An engine that commits in batches (tantivy) commits this process's last one now: this
    # process ends, and another's search leaves a large batch to its writer (issue 28).
    flush = getattr(runtime.search_index, "flush", None)
    if callable(flush):
        flush()
    if args.json:
        views = [
            document_view(runtime.search_index, args.tenant, row[1], store=runtime.store)
            for row in rows[1:]
            if row[1] != "-"
        ]
        print("[" + ",\n".join(v.model_dump_json(indent=2) for v in views) + "]")
    else:
        print_table(rows)
    return 1 if failed else 0
