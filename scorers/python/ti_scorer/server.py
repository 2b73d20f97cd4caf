"""The JSON-RPC 2.0 server of scorer protocol v1 (contract: the extension's docs/scorer-protocol.md).

Threads: the caller's thread reads framed messages (``serve``); ``$/cancelRequest`` and ``exit`` are
handled there at once, every request goes to one worker thread that answers them in order. A
cancelled request is answered -32800, whether it was queued or running (running work checks the
flag between batches). Results and notifications are written under one lock.
"""

import json
import logging
import os
import queue
import threading
import traceback
from typing import Any, Callable, Dict, Optional

from . import PROTOCOL_VERSION, SCORER_NAME, __version__
from .framing import FramingError, MessageReader, MessageWriter
from .protocol import (INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR,
                       REQUEST_CANCELLED, SERVER_NOT_INITIALIZED, Cancelled, RpcError, validate_score_params)

log = logging.getLogger("ti_scorer.server")

# Most rollouts / steps one score request may carry, unless the backend says (initialize reports them).
MAX_REQUEST_ROLLOUTS = 64
MAX_REQUEST_STEPS = 12_800


class Server:
    """Serves one client. ``make_backend(options)`` builds the scorer at ``initialize`` and returns an
    object with ``info() -> dict`` (initialize result fields) and
    ``score(rollouts, check_cancel, on_done) -> results`` (see backends/factory.py)."""

    def __init__(self, reader: MessageReader, writer: MessageWriter, make_backend: Callable[[Dict[str, Any]], Any],
                 exit_fn: Callable[[int], None] = os._exit):
        self.reader = reader
        self.writer = writer
        self.make_backend = make_backend
        self.exit_fn = exit_fn
        self.backend = None
        self.shutdown_requested = False  # set by the worker when it answers shutdown
        self.shutdown_received = False  # set by the reader when a shutdown request arrives
        self.queue: "queue.Queue[Optional[Dict[str, Any]]]" = queue.Queue()
        self.cancelled = set()
        self.lock = threading.Lock()
        self.worker = threading.Thread(target=self._work, name="ti-scorer-worker", daemon=True)

    # ------------------------------------------------------------------ output
    def _send(self, msg: Dict[str, Any]) -> None:
        msg = {"jsonrpc": "2.0", **msg}
        try:
            self.writer.write(msg)
        except ValueError as e:  # NaN/Infinity cannot be sent as JSON
            if "id" in msg and "result" in msg:
                self.writer.write({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": INTERNAL_ERROR, "message": f"unserialisable result: {e}"}})
            else:
                raise

    def _error(self, rid: Any, err: RpcError) -> None:
        self._send({"id": rid, "error": err.to_json()})

    # ------------------------------------------------------------------ input
    def serve(self) -> int:
        """Read until ``exit`` or end of input; the exit code (0 after shutdown, else 1)."""
        self.worker.start()
        while True:
            try:
                raw = self.reader.read_raw()
            except (FramingError, EOFError) as e:
                log.error("cannot read from the client: %s", e)
                return self._stop(1)
            if raw is None:
                log.info("input closed")
                return self._stop(0 if self.shutdown_received else 1)
            try:
                msg = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as e:
                self._error(None, RpcError(PARSE_ERROR, f"parse error: {e}"))
                continue
            if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0" or not isinstance(msg.get("method"), str):
                rid = msg.get("id") if isinstance(msg, dict) and "method" in msg else None
                if isinstance(msg, dict) and "method" not in msg and ("result" in msg or "error" in msg):
                    continue  # a response to nothing we asked: ignore
                self._error(rid, RpcError(INVALID_REQUEST, "not a JSON-RPC 2.0 request or notification"))
                continue
            method = msg["method"]
            if "id" not in msg:
                if method == "$/cancelRequest":
                    params = msg.get("params")
                    if isinstance(params, dict) and isinstance(params.get("id"), (str, int)):
                        with self.lock:
                            self.cancelled.add(json.dumps(params["id"]))
                elif method == "exit":
                    return self._stop(0 if self.shutdown_received else 1)
                continue  # other notifications are ignored
            rid = msg["id"]
            if not (isinstance(rid, (str, int)) and not isinstance(rid, bool)):
                self._error(None, RpcError(INVALID_REQUEST, "request id must be a string or an integer"))
                continue
            if method == "shutdown":
                self.shutdown_received = True
            self.queue.put(msg)

    def _stop(self, code: int) -> int:
        """Cancel whatever is still queued or running, let the worker answer it, then exit."""
        with self.lock:
            for m in list(self.queue.queue):
                if m is not None and m.get("method") != "shutdown":
                    self.cancelled.add(json.dumps(m["id"]))
        self.queue.put(None)
        self.worker.join(timeout=10)
        self.exit_fn(code)
        return code

    # ------------------------------------------------------------------ worker
    def _is_cancelled(self, rid: Any) -> bool:
        with self.lock:
            return json.dumps(rid) in self.cancelled

    def _work(self) -> None:
        while True:
            msg = self.queue.get()
            if msg is None:
                return
            rid = msg["id"]
            try:
                if self._is_cancelled(rid):
                    raise Cancelled()
                result = self._handle(msg)
                self._send({"id": rid, "result": result})
            except Cancelled:
                self._error(rid, RpcError(REQUEST_CANCELLED, "request cancelled"))
            except RpcError as e:
                self._error(rid, e)
            except Exception as e:  # noqa: BLE001 — any other failure is an InternalError answer
                log.error("request %r (%s) failed:\n%s", rid, msg.get("method"), traceback.format_exc())
                self._error(rid, RpcError(INTERNAL_ERROR, f"{type(e).__name__}: {e}"))
            finally:
                with self.lock:
                    self.cancelled.discard(json.dumps(rid))

    def _handle(self, msg: Dict[str, Any]) -> Any:
        method = msg["method"]
        params = msg.get("params")
        if self.shutdown_requested:
            raise RpcError(INVALID_REQUEST, f"{method} after shutdown")
        if method == "initialize":
            return self._initialize(params)
        if self.backend is None:
            raise RpcError(SERVER_NOT_INITIALIZED, f"{method} before initialize")
        if method == "shutdown":
            self.shutdown_requested = True
            return None
        if method == "score":
            return self._score(msg["id"], params)
        raise RpcError(METHOD_NOT_FOUND, f"unknown method {method!r}")

    def _initialize(self, params: Any) -> Dict[str, Any]:
        if self.backend is not None:
            raise RpcError(INVALID_REQUEST, "initialize sent twice")
        issues = []
        if not isinstance(params, dict):
            issues.append({"path": "", "message": "params must be an object"})
        else:
            if params.get("protocolVersion") != PROTOCOL_VERSION:
                issues.append({"path": "protocolVersion", "message": f"this scorer speaks protocol version {PROTOCOL_VERSION}"})
            if "options" in params and params["options"] is not None and not isinstance(params["options"], dict):
                issues.append({"path": "options", "message": "must be an object"})
        if issues:
            raise RpcError(INVALID_PARAMS, "invalid initialize params", {"issues": issues})
        client = params.get("client") or {}
        log.info("initialize from %s %s", client.get("name"), client.get("version"))
        backend = self.make_backend(params.get("options") or {})
        info = backend.info()
        self.backend = backend
        self.max_rollouts = int(info.get("maxRequestRollouts") or MAX_REQUEST_ROLLOUTS)
        self.max_steps = int(info.get("maxRequestSteps") or MAX_REQUEST_STEPS)
        return {
            "protocolVersion": PROTOCOL_VERSION,
            "scorer": {"name": f"{SCORER_NAME}/{info['backend']}", "version": __version__},
            "model": info["model"],
            "device": info["device"],
            "scoreRange": [0, 1],
            "maxBatchRollouts": self.max_rollouts,
            "maxBatchSteps": self.max_steps,
            "capabilities": {"progress": True, "cancel": True,
                             "explanations": bool(info.get("explanations")), "labels": bool(info.get("labels"))},
        }

    def _score(self, rid: Any, params: Any) -> Dict[str, Any]:
        issues = validate_score_params(params)
        if not issues:
            rollouts = params["rollouts"]
            nsteps = sum(len(r["steps"]) for r in rollouts)
            if len(rollouts) > self.max_rollouts:
                issues.append({"path": "rollouts", "message": f"{len(rollouts)} rollouts; at most {self.max_rollouts} per request (maxBatchRollouts)"})
            if nsteps > self.max_steps:
                issues.append({"path": "rollouts", "message": f"{nsteps} steps; at most {self.max_steps} per request (maxBatchSteps)"})
        if issues:
            raise RpcError(INVALID_PARAMS, f"invalid score params: {issues[0]['path']}: {issues[0]['message']}", {"issues": issues})
        token = params.get("partialResultToken")
        total = sum(len(r["steps"]) for r in rollouts)

        def check_cancel() -> None:
            if self._is_cancelled(rid):
                raise Cancelled()

        def on_done(finished, done) -> None:
            if token is not None:
                self._send({"method": "$/progress", "params": {"token": token, "value": {"done": done, "total": total, "rollouts": finished}}})

        results = self.backend.score(rollouts, check_cancel, on_done)
        by_id = {r["id"]: r for r in results}
        return {"rollouts": [by_id[r["id"]] for r in rollouts]}
