"""JSON over HTTP for the ``vllm`` and ``judge`` backends (standard library only).

Environment proxies are ignored unless ``use_env_proxy`` (a scorer on 127.0.0.1 must not go through
a proxy). Connection failures, timeouts and 5xx answers raise RpcError -32013 (BackendUnavailable)
with the URL and the reason; other HTTP statuses are returned to the caller.
"""

import json
import socket
import urllib.error
import urllib.request
from typing import Any, Dict, Optional, Tuple

from ..protocol import backend_unavailable


class HttpJson:
    """A small JSON client bound to one base URL."""

    def __init__(self, base_url: str, timeout_s: float = 120.0, headers: Optional[Dict[str, str]] = None,
                 use_env_proxy: bool = False):
        self.base = base_url.rstrip("/")
        self.timeout = float(timeout_s)
        self.headers = dict(headers or {})
        handlers = [] if use_env_proxy else [urllib.request.ProxyHandler({})]
        self._opener = urllib.request.build_opener(*handlers)

    def request(self, method: str, path: str, body: Any = None) -> Tuple[int, Any, str]:
        """(status, parsed JSON or None, raw text) of ``method base+path``; raises -32013 when the
        server cannot be reached, times out or answers 5xx / non-JSON 200."""
        url = self.base + path
        data = None if body is None else json.dumps(body).encode("utf-8")
        req = urllib.request.Request(url, data=data, method=method)
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        for k, v in self.headers.items():
            req.add_header(k, v)
        try:
            with self._opener.open(req, timeout=self.timeout) as resp:
                status = resp.status
                raw = resp.read().decode("utf-8", errors="replace")
        except urllib.error.HTTPError as e:
            status = e.code
            raw = e.read().decode("utf-8", errors="replace") if e.fp else ""
        except (urllib.error.URLError, socket.timeout, ConnectionError, OSError) as e:
            reason = getattr(e, "reason", e)
            raise backend_unavailable(url, f"{type(e).__name__}: {reason}") from None
        if status >= 500:
            raise backend_unavailable(url, f"HTTP {status}: {raw[:500]}")
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            if 200 <= status < 300:
                raise backend_unavailable(url, f"HTTP {status} with a body that is not JSON: {raw[:200]!r}") from None
            parsed = None
        return status, parsed, raw
