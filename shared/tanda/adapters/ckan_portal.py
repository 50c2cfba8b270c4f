"""A tenant's open-data portal over the CKAN action API (issue 25; docs/sources.md).

``package_search`` finds datasets (title, organisation, temporal coverage, resources);
``resource_show`` + ``package_show`` give a resource's dataset, and its rows come from
``datastore_search`` when the resource is in the datastore, else from the CSV or JSON file itself.

Safety (each a test, tests/integration/test_portal_source.py): only the configured origin is
contacted — the API under ``base_url``, and a resource file only when its URL (which the portal's
answer names) is on that same origin; redirects are never followed; every body is read up to
``max_bytes`` and no further; a body that is not the expected content type is refused. The API
key travels in the ``Authorization`` header and never in a producing call.
"""

from __future__ import annotations

import csv
import io
import json
import re
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx

from tanda.sources import (
    PortalConfig,
    PortalDataset,
    PortalResource,
    SourceRecord,
    SourceRefused,
)

JSON_TYPES = ("application/json",)
FILE_TYPES = {
    "csv": ("text/csv", "application/csv", "text/plain", "application/vnd.ms-excel"),
    "json": ("application/json",),
}
_PERIOD_KEYS = (
    "period",
    "periode",
    "tahun",
    "tahun_anggaran",
    "fiscal_year",
    "temporal",
    "temporal_coverage",
    "year",
)
_UNIT_KEYS = ("unit", "satuan", "units")
_WORD = re.compile(r"[^\W_]+")


class PortalError(Exception):
    """The portal answered, but not with a usable result (``success: false``, an error status)."""


def _origin(url: str) -> tuple[str, str, int]:
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return parts.scheme, (parts.hostname or "").lower(), port


def _shown(value: str) -> str:
    return repr(value[:200])


class CkanPortal:
    """One tenant's CKAN portal. ``api_key``: called when a request needs the key (the secret is
    resolved lazily, once, by the caller's resolver)."""

    def __init__(
        self,
        config: PortalConfig,
        *,
        api_key: Callable[[], str] | None = None,
        transport: httpx.BaseTransport | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self.name = config.name
        self.max_rows = config.max_rows
        self._api_key = api_key
        self._clock = clock
        self._http = httpx.Client(follow_redirects=False, transport=transport)

    def close(self) -> None:
        self._http.close()

    # --- the port ---------------------------------------------------------------------------

    def search(
        self, query: str, period: str | None, *, rows: int, timeout: float
    ) -> tuple[list[PortalDataset], str]:
        rows = max(1, min(rows, 50))
        # The period joins the search words (a dataset's title and temporal coverage name it),
        # and a dataset that states another period is left out.
        text = f"{query} {period}" if period and period not in query else query
        params: dict[str, Any] = {"q": text, "rows": rows * 3 if period else rows}
        call = f"package_search(q={_shown(text)}, rows={params['rows']})"
        result = self._action("package_search", params, timeout)
        hits = result.get("results") if isinstance(result, Mapping) else None
        datasets = [_dataset(d) for d in hits or [] if isinstance(d, Mapping)]
        if period:
            datasets = [d for d in datasets if d.period is None or d.period == period]
        return datasets[:rows], call

    def read(self, resource_id: str, query: str | None, *, timeout: float) -> list[SourceRecord]:
        until = self._clock() + timeout
        resource = self._action("resource_show", {"id": resource_id}, self._left(until))
        if not isinstance(resource, Mapping):
            raise PortalError("resource_show returned no resource")
        dataset = _dataset(
            self._action(
                "package_show", {"id": str(resource.get("package_id", ""))}, self._left(until)
            )
        )
        source = f"{dataset.organisation} — {self.name}" if dataset.organisation else self.name
        if resource.get("datastore_active"):
            params: dict[str, Any] = {"resource_id": resource_id, "limit": self.max_rows}
            if query:
                params["q"] = query
            result = self._action("datastore_search", params, self._left(until))
            records = result.get("records", []) if isinstance(result, Mapping) else []
            fields = [
                str(f.get("id"))
                for f in (result.get("fields", []) if isinstance(result, Mapping) else [])
                if isinstance(f, Mapping)
            ]
            shown_q = f", q={_shown(query)}" if query else ""
            call = (
                f"datastore_search(resource_id={_shown(resource_id)}{shown_q}, "
                f"limit={self.max_rows})"
            )
            rows = [r for r in records if isinstance(r, Mapping)]
        else:
            rows, fields, call = self._file_rows(resource, resource_id, until)
            rows = _matching(rows, query)[: self.max_rows]
        return [
            SourceRecord(
                text=_row_text(row, fields),
                dataset=dataset.title,
                source=source,
                producing_call=call,
                period=dataset.period,
                unit=dataset.unit,
                title=dataset.title,
                ref=f"{resource_id}#{row.get('_id', n)}",
            )
            for n, row in enumerate(rows)
        ]

    # --- HTTP, within the configured origin only ------------------------------------------------

    def _left(self, until: float) -> float:
        left = until - self._clock()
        if left <= 0:
            raise TimeoutError("the portal call passed its deadline")
        return left

    def _action(self, action: str, params: Mapping[str, Any], timeout: float) -> Any:
        url = f"{self.config.base_url}/api/3/action/{action}"
        body = self._get(url, params, JSON_TYPES, timeout)
        try:
            answer = json.loads(body)
        except ValueError as error:
            raise PortalError(f"{action}: not JSON") from error
        if not isinstance(answer, Mapping) or answer.get("success") is not True:
            raise PortalError(f"{action}: the portal reported no success")
        return answer.get("result")

    def _file_rows(
        self, resource: Mapping[str, Any], resource_id: str, until: float
    ) -> tuple[list[Mapping[str, Any]], list[str], str]:
        url = str(resource.get("url") or "")
        # The URL comes from the portal's answer: only the configured origin is ever contacted.
        if _origin(url) != _origin(self.config.base_url):
            raise SourceRefused("the resource lies outside the configured portal")
        kind = str(resource.get("format") or "").lower() or url.rsplit(".", 1)[-1].lower()
        if kind not in FILE_TYPES:
            raise SourceRefused(f"resource format {kind!r} is not read (csv, json)")
        body = self._get(url, {}, FILE_TYPES[kind], self._left(until))
        call = f"resource_download(resource_id={_shown(resource_id)}, format={kind})"
        text = body.decode("utf-8-sig", errors="replace")
        if kind == "csv":
            reader = csv.DictReader(io.StringIO(text))
            rows: list[Mapping[str, Any]] = [dict(r) for r in reader]
            return rows, list(reader.fieldnames or []), call
        data = json.loads(text)
        if isinstance(data, Mapping):
            data = next((v for v in data.values() if isinstance(v, list)), [])
        rows = [r for r in data if isinstance(r, Mapping)] if isinstance(data, list) else []
        fields = list(dict.fromkeys(k for r in rows for k in r))
        return rows, fields, call

    def _get(
        self, url: str, params: Mapping[str, Any], types: Iterable[str], timeout: float
    ) -> bytes:
        if _origin(url) != _origin(self.config.base_url):
            raise SourceRefused("only the configured portal is contacted")
        headers = {"Accept": ", ".join(types)}
        if self._api_key is not None:
            headers["Authorization"] = self._api_key()
        until = self._clock() + min(timeout, self.config.timeout_s)
        cap = self.config.max_bytes
        with self._http.stream(
            "GET", url, params=dict(params), headers=headers, timeout=self._left(until)
        ) as response:
            if response.is_redirect or 300 <= response.status_code < 400:
                raise SourceRefused("the portal answered with a redirect, which is not followed")
            if response.status_code >= 400:
                raise PortalError(f"the portal answered {response.status_code}")
            ctype = response.headers.get("content-type", "").split(";")[0].strip().lower()
            if ctype not in types:
                raise SourceRefused(f"content type {ctype or 'none'!r} is not data")
            declared = response.headers.get("content-length")
            if declared is not None and declared.isdecimal() and int(declared) > cap:
                raise SourceRefused("the response is larger than the portal's cap")
            body = bytearray()
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > cap:
                    raise SourceRefused("the response is larger than the portal's cap")
                self._left(until)
            return bytes(body)


def _extra(data: Mapping[str, Any], keys: Iterable[str]) -> str | None:
    extras = {
        str(e.get("key", "")).lower(): e.get("value")
        for e in data.get("extras", []) or []
        if isinstance(e, Mapping)
    }
    for key in keys:
        value = data.get(key, extras.get(key))
        if value not in (None, ""):
            return str(value)
    return None


def _dataset(data: Any) -> PortalDataset:
    if not isinstance(data, Mapping):
        raise PortalError("not a dataset")
    organisation = data.get("organization")
    resources = tuple(
        PortalResource(
            resource_id=str(r.get("id", "")),
            name=str(r.get("name") or r.get("id", "")),
            format=str(r.get("format") or ""),
            datastore=bool(r.get("datastore_active")),
        )
        for r in data.get("resources", []) or []
        if isinstance(r, Mapping)
    )
    return PortalDataset(
        dataset_id=str(data.get("name") or data.get("id", "")),
        title=str(data.get("title") or data.get("name") or ""),
        organisation=str(organisation.get("title") or organisation.get("name"))
        if isinstance(organisation, Mapping)
        else None,
        period=_extra(data, _PERIOD_KEYS),
        unit=_extra(data, _UNIT_KEYS),
        notes=str(data.get("notes") or "")[:500],
        resources=resources,
    )


def _row_text(row: Mapping[str, Any], fields: list[str]) -> str:
    names = [f for f in fields if not f.startswith("_")] or [
        k for k in row if not k.startswith("_")
    ]
    return "; ".join(f"{name}: {str(row.get(name, '')).strip()}" for name in names)


def _matching(rows: list[Mapping[str, Any]], query: str | None) -> list[Mapping[str, Any]]:
    """The file's rows that hold a word of ``query`` first (datastore_search's ``q`` does this
    on the portal); all rows when none does or there is no query."""
    words = {w.casefold() for w in _WORD.findall(query or "") if len(w) > 2}
    if not words:
        return rows
    scored = [
        (sum(w in " ".join(map(str, r.values())).casefold() for w in words), n, r)
        for n, r in enumerate(rows)
    ]
    hits = [r for score, _, r in sorted(scored, key=lambda s: (-s[0], s[1])) if score]
    return hits or rows
