"""The reference web client's documents panel in headless Chromium (issue 26): a partner uploads
files with its dip key, watches each go to ``terindeks`` — or ``gagal`` with the reason, for a
PDF named ``.csv`` — is told which types are taken when a file is refused, and deletes one, which
is then gone from the list and from ``/v1/documents``."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from .conftest import Served

pytestmark = pytest.mark.e2e


def open_documents(page: Page, served: Served) -> None:
    page.goto(f"{served.base_url}/")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    page.locator("#settings").evaluate("details => { details.open = true; }")
    page.fill("#v1-key", served.v1_key)
    page.click("#documents summary")


def test_a_partner_uploads_watches_and_deletes_documents(
    page: Page, served: Served, tmp_path: Path, page_errors: list[str]
) -> None:
    note = tmp_path / "catatan-unggah.md"
    note.write_text("# Catatan unggah\n\nKertas Zwoggle disimpan di rak tiga.\n", "utf-8")
    lying = tmp_path / "harga-palsu.csv"
    lying.write_bytes(b"%PDF-1.4 a PDF named .csv\n")
    open_documents(page, served)

    page.set_input_files("#upload-file", [str(note), str(lying)])
    page.fill("#upload-batch", "web")
    page.click("#upload")

    row = page.locator("#document-list tr", has_text="catatan-unggah.md")
    expect(row).to_have_attribute("data-status", "indexed", timeout=20000)
    expect(row.locator(".doc-status")).to_have_text("terindeks")
    failed = page.locator("#document-list tr", has_text="harga-palsu.csv")
    expect(failed).to_have_attribute("data-status", "failed", timeout=20000)
    expect(failed.locator(".doc-status")).to_contain_text("gagal")
    expect(failed.locator(".doc-reason")).to_have_text("named .csv but the content is a PDF")
    document_id = row.get_attribute("data-document-id")
    assert document_id

    contract = tmp_path / "kontrak.docx"
    contract.write_bytes(b"PK\x03\x04 an office document")
    page.set_input_files("#upload-file", str(contract))
    page.click("#upload")
    status = page.locator("#documents-status")
    expect(status).to_contain_text("unsupported_document_type")
    expect(status).to_contain_text(".pdf (application/pdf)")
    assert all("Failed to load resource" in error for error in page_errors), page_errors
    page_errors.clear()  # Chromium logs the 415 of the fetch itself

    row.get_by_role("button", name="Hapus catatan-unggah.md").click()
    expect(status).to_have_text("catatan-unggah.md dihapus.")
    expect(page.locator("#document-list tr", has_text="catatan-unggah.md")).to_have_count(0)
    gone = httpx.get(
        f"{served.base_url}/v1/documents/{document_id}",
        headers={"Authorization": f"Bearer {served.v1_key}"},
        timeout=30,
    )
    assert gone.status_code == 404
    failed.get_by_role("button", name="Hapus harga-palsu.csv").click()
    expect(page.locator("#document-list tr", has_text="harga-palsu.csv")).to_have_count(0)


def test_without_a_dip_key_the_panel_says_so(page: Page, served: Served) -> None:
    page.goto(f"{served.base_url}/")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    page.click("#documents summary")
    expect(page.locator("#documents-status")).to_have_text("Isi kunci /v1 di Kredensial dulu.")
