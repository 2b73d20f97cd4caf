"""Scorer protocol v1 types, error codes and the validation of ``score`` params.

Definition: the extension's scorer protocol contract (docs/scorer-protocol.md): JSON-RPC 2.0 error
codes plus the scorer's own -32010…-32013.
"""

import math
from typing import Any, Dict, List, Optional

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_NOT_INITIALIZED = -32002
REQUEST_CANCELLED = -32800
MODEL_LOAD_FAILED = -32010
OUT_OF_MEMORY = -32011
INPUT_TOO_LONG = -32012
BACKEND_UNAVAILABLE = -32013

ROLES = ("agent", "user", "system", "environment")
ACTION_KINDS = ("shell", "keys", "tool", "edit", "finish", "other")


class RpcError(Exception):
    """An error answered to a request as a JSON-RPC error object ``{code, message, data?}``."""

    def __init__(self, code: int, message: str, data: Optional[Dict[str, Any]] = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_json(self) -> Dict[str, Any]:
        err: Dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            err["data"] = self.data
        return err


class Cancelled(Exception):
    """Raised inside scoring when the request was cancelled ($/cancelRequest); answered with -32800."""


def model_load_failed(model: str, reason: str) -> RpcError:
    return RpcError(MODEL_LOAD_FAILED, f"model load failed: {reason}", {"model": model, "reason": reason})


def backend_unavailable(url: str, reason: str) -> RpcError:
    return RpcError(BACKEND_UNAVAILABLE, f"backend unavailable at {url}: {reason}", {"url": url, "reason": reason})


def input_too_long(rollout_id: str, tokens: int, limit: int) -> RpcError:
    return RpcError(
        INPUT_TOO_LONG,
        f"rollout {rollout_id!r} renders to {tokens} tokens, more than the model's limit of {limit}",
        {"rolloutId": rollout_id, "tokens": tokens, "limit": limit},
    )


def out_of_memory(device: str, batch_rollouts: int, batch_steps: int) -> RpcError:
    return RpcError(
        OUT_OF_MEMORY,
        f"out of memory on {device} even with {batch_rollouts} rollout(s) / {batch_steps} step(s) per batch",
        {"device": device, "batchRollouts": batch_rollouts, "batchSteps": batch_steps},
    )


def _is_str_or_null(v: Any) -> bool:
    return v is None or isinstance(v, str)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _objects(value, path, bad):
    """Yields (item, item_path) for each object of the array `value` at `path` (``path[k]``);
    reports `value` not being an array, and each item that is not an object, through `bad`."""
    if not isinstance(value, list):
        bad(path, "must be an array")
        return
    for k, item in enumerate(value):
        p = f"{path}[{k}]"
        if not isinstance(item, dict):
            bad(p, "must be an object")
            continue
        yield item, p


def validate_score_params(params: Any) -> List[Dict[str, str]]:
    """Issues (``[{"path", "message"}]``, empty when valid) of ``score`` params against the contract:
    ``{rollouts: ScoreRollout[], partialResultToken?: string|number}``. Checks every field the
    scorer reads; unknown extra fields are allowed."""
    issues: List[Dict[str, str]] = []

    def bad(path: str, message: str) -> None:
        if len(issues) < 50:
            issues.append({"path": path, "message": message})

    if not isinstance(params, dict):
        bad("", "params must be an object")
        return issues
    tok = params.get("partialResultToken")
    if "partialResultToken" in params and not (isinstance(tok, str) or (isinstance(tok, (int, float)) and not isinstance(tok, bool))):
        bad("partialResultToken", "must be a string or a number")
    rollouts = params.get("rollouts")
    ids = set()
    for r, p in _objects(rollouts, "rollouts", bad):
        if not isinstance(r.get("id"), str):
            bad(f"{p}.id", "must be a string")
        elif r["id"] in ids:
            bad(f"{p}.id", f"duplicate rollout id {r['id']!r}")
        else:
            ids.add(r["id"])
        task = r.get("task")
        if not isinstance(task, dict):
            bad(f"{p}.task", "must be an object {id, instruction}")
        else:
            for k in ("id", "instruction"):
                if not _is_str_or_null(task.get(k)):
                    bad(f"{p}.task.{k}", "must be a string or null")
        seen = set()
        for s, sp in _objects(r.get("steps"), f"{p}.steps", bad):
            idx = s.get("index")
            if not _is_int(idx) or idx < 0:
                bad(f"{sp}.index", "must be a non-negative integer")
            elif idx in seen:
                bad(f"{sp}.index", f"duplicate step index {idx}")
            else:
                seen.add(idx)
            if s.get("role") not in ROLES:
                bad(f"{sp}.role", f"must be one of {', '.join(ROLES)}")
            for k in ("message", "reasoning"):
                if not _is_str_or_null(s.get(k)):
                    bad(f"{sp}.{k}", "must be a string or null")
            for a, ap in _objects(s.get("actions", []), f"{sp}.actions", bad):
                if a.get("kind") not in ACTION_KINDS:
                    bad(f"{ap}.kind", f"must be one of {', '.join(ACTION_KINDS)}")
                for f in ("command", "tool", "arguments"):
                    if not _is_str_or_null(a.get(f)):
                        bad(f"{ap}.{f}", "must be a string or null")
            for o, op in _objects(s.get("observations", []), f"{sp}.observations", bad):
                if not _is_str_or_null(o.get("output")):
                    bad(f"{op}.output", "must be a string or null")
                ec = o.get("exitCode")
                if ec is not None and not _is_int(ec):
                    bad(f"{op}.exitCode", "must be an integer or null")
                if "truncated" in o and not isinstance(o["truncated"], bool):
                    bad(f"{op}.truncated", "must be a boolean")
            d = s.get("durationMs")
            if d is not None and (not isinstance(d, (int, float)) or isinstance(d, bool) or not math.isfinite(d)):
                bad(f"{sp}.durationMs", "must be a finite number or null")
    return issues
