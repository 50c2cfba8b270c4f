"""The embedded ``Originals`` (issue 26): each uploaded file is
``TANDA_HOME/uploads/<tenant>/<id>``, 0600, in folders 0700 that this store made.

Issue 23 item 1: whatever the upload writes follows no symbolic link. Every folder is opened
without following a link (``O_NOFOLLOW | O_DIRECTORY``) and every file is reached through its
folder's descriptor, created with ``O_EXCL`` under a fresh temporary name and renamed into place
(``rename`` replaces a link, never writes through it); a read opens with ``O_NOFOLLOW`` and
refuses anything but a regular file. A link planted anywhere under ``uploads/`` is refused, never
followed.

``tanda serve`` receives the bytes itself: the target is ``PUT /v1/documents/{id}/content`` with
the tenant, the expiry and an HMAC-SHA256 signature (of tenant, id, expiry, size and content
type, under a random key kept in ``uploads/.signing-key``, 0600) in its query — like an S3
presigned URL, it needs no API key, and it stops working at ``expires_at``.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import os
import secrets
import stat
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from urllib.parse import urlencode

from tanda.records.uploads import DOCUMENT_ID_RE, OriginalRefused, StoredOriginal, UploadTarget

KEY_FILE = ".signing-key"
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW


def tenant_folder(tenant_id: str) -> str:
    """A tenant's folder name: a digest (tenant ids are not file names)."""
    return hashlib.sha256(tenant_id.encode()).hexdigest()[:32]


class LocalOriginals:
    """``Originals`` under ``root`` (``TANDA_HOME/uploads``; module docstring)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    # --- folders and the key ----------------------------------------------------------------

    @contextmanager
    def _folder(self, tenant_id: str | None, *, create: bool) -> Iterator[int]:
        """A descriptor of ``root`` (or the tenant's folder in it), opened without following a
        link; made 0700 when ``create``. ``FileNotFoundError`` when absent and not ``create``."""
        if create:
            self.root.parent.mkdir(parents=True, exist_ok=True)
            with suppress(FileExistsError):
                os.mkdir(self.root, 0o700)
        try:
            root = os.open(self.root, _DIR_FLAGS)
        except OSError as error:
            _refuse_link(error, f"{self.root} is not a folder this store made")
            raise
        try:
            if tenant_id is None:
                yield root
                return
            name = tenant_folder(tenant_id)
            if create:
                with suppress(FileExistsError):
                    os.mkdir(name, 0o700, dir_fd=root)
            try:
                folder = os.open(name, _DIR_FLAGS, dir_fd=root)
            except OSError as error:
                _refuse_link(error, "the tenant's upload folder is not a folder")
                raise
            try:
                yield folder
            finally:
                os.close(folder)
        finally:
            os.close(root)

    def _key(self) -> bytes:
        with self._folder(None, create=True) as root:
            try:
                fd = os.open(KEY_FILE, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=root)
            except FileNotFoundError:
                key = secrets.token_bytes(32)
                try:
                    fd = os.open(
                        KEY_FILE,
                        os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                        0o600,
                        dir_fd=root,
                    )
                except FileExistsError:  # another process made it first: read theirs
                    return self._key()
                with os.fdopen(fd, "wb") as out:
                    out.write(key)
                return key
            with os.fdopen(fd, "rb") as found:
                return found.read()

    def _signature(
        self, tenant_id: str, document_id: str, expires: int, size_bytes: int, content_type: str
    ) -> str:
        message = "\n".join((tenant_id, document_id, str(expires), str(size_bytes), content_type))
        return hmac.new(self._key(), message.encode(), hashlib.sha256).hexdigest()

    # --- the port -----------------------------------------------------------------------------

    def upload_target(
        self,
        tenant_id: str,
        document_id: str,
        *,
        content_type: str,
        size_bytes: int,
        expires_at: float,
        base_url: str,
    ) -> UploadTarget:
        expires = int(expires_at)
        query = urlencode(
            {
                "tenant": tenant_id,
                "expires": expires,
                "signature": self._signature(
                    tenant_id, document_id, expires, size_bytes, content_type
                ),
            }
        )
        return UploadTarget(
            url=f"{base_url.rstrip('/')}/v1/documents/{document_id}/content?{query}",
            method="PUT",
            headers={"Content-Type": content_type},
            expires_at=float(expires),
        )

    def verify_target(
        self,
        tenant_id: str,
        document_id: str,
        query: Mapping[str, str],
        *,
        content_type: str,
        size_bytes: int,
        now: float,
    ) -> bool:
        try:
            expires = int(query.get("expires", ""))
        except ValueError:
            return False
        wanted = self._signature(tenant_id, document_id, expires, size_bytes, content_type)
        signed = hmac.compare_digest(wanted, query.get("signature", ""))
        return signed and now < expires

    def put(
        self, tenant_id: str, document_id: str, body: Iterable[bytes], *, size_bytes: int
    ) -> StoredOriginal:
        _check_id(document_id)
        digest = hashlib.sha256()
        written = 0
        with self._folder(tenant_id, create=True) as folder:
            temporary = f".{document_id}.{secrets.token_hex(8)}.part"
            fd = os.open(
                temporary,
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                0o600,
                dir_fd=folder,
            )
            try:
                with os.fdopen(fd, "wb") as out:
                    for piece in body:
                        written += len(piece)
                        if written > size_bytes:
                            raise OriginalRefused(
                                f"the body is larger than the declared {size_bytes} bytes",
                                too_large=True,
                            )
                        digest.update(piece)
                        out.write(piece)
                    out.flush()
                    os.fsync(out.fileno())
                if written != size_bytes:
                    raise OriginalRefused(
                        f"the body has {written} bytes, not the declared {size_bytes}"
                    )
                os.rename(temporary, document_id, src_dir_fd=folder, dst_dir_fd=folder)
            except BaseException:
                _unlink(temporary, folder)
                raise
        return StoredOriginal(size_bytes=written, sha256=digest.hexdigest())

    def read(self, tenant_id: str, document_id: str) -> bytes | None:
        _check_id(document_id)
        try:
            with self._folder(tenant_id, create=False) as folder:
                fd = os.open(document_id, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=folder)
                with os.fdopen(fd, "rb") as found:
                    if not stat.S_ISREG(os.fstat(found.fileno()).st_mode):
                        raise OriginalRefused("the stored upload is not a regular file")
                    return found.read()
        except FileNotFoundError:
            return None
        except OSError as error:
            _refuse_link(error, "the stored upload is not a regular file")
            raise

    def delete(self, tenant_id: str, document_id: str) -> bool:
        _check_id(document_id)
        try:
            with self._folder(tenant_id, create=False) as folder:
                return _unlink(document_id, folder)
        except FileNotFoundError:
            return False


def _check_id(document_id: str) -> None:
    if not DOCUMENT_ID_RE.match(document_id):  # never a path: no folder, no dot, no link name
        raise OriginalRefused(f"not a document id: {document_id!r}")


def _unlink(name: str, folder: int) -> bool:
    try:
        os.unlink(name, dir_fd=folder)
    except FileNotFoundError:
        return False
    return True


def _refuse_link(error: OSError, message: str) -> None:
    """A link (or a file) where a folder or file should be (``ELOOP``/``ENOTDIR``) is refused;
    any other error (a missing one: ``FileNotFoundError``) is the caller's to raise."""
    if error.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
        raise OriginalRefused(message) from error
