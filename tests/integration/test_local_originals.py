"""The embedded originals folder (issue 26; issue 23 item 1): uploaded bytes land whole, 0600, in
0700 folders under ``TANDA_HOME/uploads``; a body of another size than declared stores nothing
(a larger one is cut off before the rest is read); a symbolic link planted anywhere under the
folder is refused, never written through; the upload URL's signature and expiry are checked."""

from __future__ import annotations

import hashlib
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tanda.adapters.local_originals import LocalOriginals, tenant_folder
from tanda.records.uploads import OriginalRefused

pytestmark = pytest.mark.integration

DOC = "doc_000000000001000000000001"
DATA = b"Pasal 1\n\nKertas A4 disimpan di rak tiga.\n"


@pytest.fixture
def originals(tmp_path: Path) -> LocalOriginals:
    return LocalOriginals(tmp_path / "home" / "uploads")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_bytes_land_whole_and_private(originals: LocalOriginals) -> None:
    stored = originals.put("t1", DOC, [DATA[:5], DATA[5:]], size_bytes=len(DATA))
    assert (stored.size_bytes, stored.sha256) == (len(DATA), hashlib.sha256(DATA).hexdigest())
    assert originals.read("t1", DOC) == DATA
    assert originals.read("t2", DOC) is None
    folder = originals.root / tenant_folder("t1")
    assert mode(originals.root) == 0o700 and mode(folder) == 0o700
    assert mode(folder / DOC) == 0o600
    assert [p.name for p in folder.iterdir()] == [DOC]
    assert originals.delete("t1", DOC) is True
    assert originals.delete("t1", DOC) is False
    assert originals.read("t1", DOC) is None


def test_a_body_of_another_size_stores_nothing(originals: LocalOriginals) -> None:
    read: list[int] = []

    def endless() -> Iterator[bytes]:
        while True:
            read.append(1)
            yield b"x" * 1024

    with pytest.raises(OriginalRefused) as larger:
        originals.put("t1", DOC, endless(), size_bytes=10_000)
    assert larger.value.too_large and len(read) == 10  # cut off as soon as it passed the size
    with pytest.raises(OriginalRefused) as smaller:
        originals.put("t1", DOC, [DATA], size_bytes=len(DATA) + 1)
    assert not smaller.value.too_large
    assert list((originals.root / tenant_folder("t1")).iterdir()) == []


def test_a_planted_link_is_refused_never_followed(
    originals: LocalOriginals, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_bytes(b"the operator's file")
    originals.put("t1", DOC, [DATA], size_bytes=len(DATA))
    folder = originals.root / tenant_folder("t1")
    # the stored file replaced by a link to a file outside: a read refuses it
    (folder / DOC).unlink()
    (folder / DOC).symlink_to(outside / "secret.txt")
    with pytest.raises(OriginalRefused):
        originals.read("t1", DOC)
    # a write replaces the link, never writes through it
    originals.put("t1", DOC, [DATA], size_bytes=len(DATA))
    assert not (folder / DOC).is_symlink()
    assert (outside / "secret.txt").read_bytes() == b"the operator's file"
    # another tenant's folder is a link to a folder outside: refused, nothing written there
    (originals.root / tenant_folder("t2")).symlink_to(outside)
    with pytest.raises(OriginalRefused):
        originals.put("t2", DOC, [DATA], size_bytes=len(DATA))
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


def test_an_id_that_is_not_a_document_id_is_never_a_path(originals: LocalOriginals) -> None:
    for bad in ("../store.sqlite", ".signing-key", "doc_x", ""):
        with pytest.raises(OriginalRefused):
            originals.put("t1", bad, [DATA], size_bytes=len(DATA))


def test_the_upload_url_is_signed_and_expires(originals: LocalOriginals) -> None:
    target = originals.upload_target(
        "t1",
        DOC,
        content_type="text/plain",
        size_bytes=len(DATA),
        expires_at=2000.0,
        base_url="http://127.0.0.1:8765/",
    )
    assert target.method == "PUT" and target.headers == {"Content-Type": "text/plain"}
    path, _, query = target.url.partition("?")
    assert path == f"http://127.0.0.1:8765/v1/documents/{DOC}/content"
    params = dict(part.split("=", 1) for part in query.split("&"))

    def ok(**changes: object) -> bool:
        kwargs: dict[str, object] = {
            "content_type": "text/plain",
            "size_bytes": len(DATA),
            "now": 1999.0,
            **changes,
        }
        return originals.verify_target("t1", DOC, params, **kwargs)  # type: ignore[arg-type]

    assert ok()
    assert not ok(now=2000.0)  # expired
    assert not ok(size_bytes=len(DATA) + 1)
    assert not ok(content_type="application/pdf")
    assert not originals.verify_target(
        "t2", DOC, params, content_type="text/plain", size_bytes=len(DATA), now=1999.0
    )
    assert not originals.verify_target(
        "t1",
        DOC,
        {**params, "expires": "9999999999"},
        content_type="text/plain",
        size_bytes=len(DATA),
        now=1999.0,
    )
    assert mode(originals.root / ".signing-key") == 0o600
