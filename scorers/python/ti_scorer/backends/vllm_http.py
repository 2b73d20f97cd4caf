"""The ``vllm`` backend: a vLLM server running a PRM as a pooling model
(``vllm serve Qwen/Qwen2.5-Math-PRM-7B --runner pooling``), reached over HTTP.

Per batch of rollouts (sorted by rendered length) ONE ``POST {url}/pooling`` with
``{"model", "task": "token_classify", "input": [rendered text, …]}``; the server's STEP pooler
returns, per input, one row ``[p_neg, p_pos]`` per separator token (``data[i].data``); the step score
is ``row[positiveIndex]`` (default 1; 0 for a Math-Shepherd pooler with returned_token_ids [+,-]).
The rendered text is the Qwen PRM chat layout (system, user = task, assistant = steps each followed
by the separator, default ``<extra_0>``). The number of rows must equal the number of agent steps;
otherwise the answer is an error rather than misplaced scores. Shapes: docs/reference/scorer.md §2.2.

Every row is validated before any value is used (``check_row``): ``rowWidth`` values (default 2, the
class probabilities of a two-class PRM; 1 = the server sends one probability per step), each a
number in [0, 1], summing to 1 within 0.01 when there are two or more. A server that sends anything
else (a hidden-state vector of 4,096 floats from an embedding pooler, logits) is an error with a
short reason, and no value of that reply is used.

A rollout longer than the server's context (its 400 "maximum context length", or fewer rows than
steps because the server truncated the input) is scored on the longest prefix of steps that fits,
verified by the row count of that prefix; the steps after it get value null with the explanation
``not scored: beyond model context``, never another step's score.
"""

import logging
import re
from typing import Any, Callable, Dict, List, Optional

from ..engine import BEYOND_CONTEXT, plan_batches
from ..protocol import INTERNAL_ERROR, RpcError, backend_unavailable, input_too_long
from ..render import RenderOptions, render_rollout, render_text
from .http_util import HttpJson

log = logging.getLogger("ti_scorer.vllm")

_TOO_LONG = re.compile(r"maximum context length is (\d+) tokens.*?(?:requested|resulted in|input has|has) (\d+) tokens", re.S | re.I)
QWEN_SYSTEM = "Please reason step by step, and put your final answer within \\boxed{}."
SUM_TOLERANCE = 0.01


def _short(v: Any) -> str:
    """A value for an error message, at most ~60 characters."""
    t = repr(v)
    return t if len(t) <= 60 else t[:57] + "..."


def check_row(row: Any, width: int, k: int, rid: str) -> Optional[str]:
    """Why ``row`` (the k-th /pooling row of rollout ``rid``) is not ``width`` class probabilities,
    or None when it is (see the module docstring). The reason is short: it never holds the row."""
    where = f"/pooling row {k} of rollout {rid!r}"
    vals = [row] if width == 1 and isinstance(row, (int, float)) and not isinstance(row, bool) else row
    if not isinstance(vals, list):
        return f"{where} is {type(row).__name__} {_short(row)}, expected a list of {width} class probabilities"
    if len(vals) != width:
        hint = " (a hidden-state or embedding vector, not class probabilities: is the server a PRM classification pooler?)" if len(vals) > 16 else ""
        return f"{where} has {len(vals)} values, expected {width}{hint}"
    for j, v in enumerate(vals):
        if not isinstance(v, (int, float)) or isinstance(v, bool) or v != v:
            return f"{where} column {j} is {_short(v)}, not a number"
        if not (0.0 <= float(v) <= 1.0):
            return f"{where} column {j} is {float(v):.4g}, outside [0, 1] (logits or hidden states, not probabilities)"
    if width >= 2:
        total = float(sum(vals))
        if abs(total - 1.0) > SUM_TOLERANCE:
            return f"{where} sums to {total:.4g}, not 1 (not class probabilities)"
    return None


class VllmPoolingBackend:
    """Scores through ``POST /pooling``. ``probe()`` reads ``GET /v1/models`` (model id, max_model_len)."""

    def __init__(self, options: Dict[str, Any]):
        url = options.get("url") or "http://127.0.0.1:8000"
        self.http = HttpJson(url, timeout_s=options.get("timeoutS", 300), use_env_proxy=bool(options.get("useEnvProxy", False)))
        self.url = self.http.base
        self.model: Optional[str] = options.get("model")
        self.separator = options.get("separator") or "<extra_0>"
        self.positive_index = int(options.get("positiveIndex", 1))
        self.task = options.get("poolingTask", "token_classify")
        self.system_prompt = options.get("systemPrompt") or QWEN_SYSTEM
        self.render = RenderOptions(observation_chars=int(options.get("observationChars", 2000)), strip=(self.separator,))
        self.batch_rollouts = max(1, int(options.get("batchRollouts", 8)))
        self.max_length: Optional[int] = options.get("maxLength")
        self.row_width = max(1, int(options.get("rowWidth", 2)))
        if self.positive_index >= self.row_width:
            raise RpcError(INTERNAL_ERROR, f"positiveIndex {self.positive_index} is not a column of rows of width {self.row_width}")

    def probe(self) -> None:
        """Check the server answers; fill in the model id and max length. Raises -32013."""
        status, body, raw = self.http.request("GET", "/v1/models")
        if status != 200 or not isinstance(body, dict) or not isinstance(body.get("data"), list) or not body["data"]:
            raise backend_unavailable(self.url + "/v1/models", f"HTTP {status}: no model list ({raw[:200]!r})")
        first = body["data"][0]
        if not self.model:
            self.model = first.get("id")
        for m in body["data"]:
            if m.get("id") == self.model and isinstance(m.get("max_model_len"), int) and not self.max_length:
                self.max_length = m["max_model_len"]

    def _prefix_head(self, rendered) -> str:
        return (f"<|im_start|>system\n{self.system_prompt}<|im_end|>\n<|im_start|>user\n"
                f"{rendered.instruction}<|im_end|>\n<|im_start|>assistant\n")

    def prompt(self, rendered) -> str:
        return render_text(rendered, self._prefix_head(rendered), self.separator, "<|im_end|>")

    def _post(self, texts: List[str], ids: List[str], fit: bool = True) -> List[Any]:
        """Rows per input (``data[i].data``). With ``fit``, an input too long for the server gives
        ``TooLong`` (its token count and limit) instead of an error, so its rollout can be cut."""
        body: Dict[str, Any] = {"model": self.model, "input": texts}
        if self.task:
            body["task"] = self.task
        status, resp, raw = self.http.request("POST", "/pooling", body)
        if status == 400 and len(texts) > 1 and _TOO_LONG.search(raw or ""):
            # Find which rollout is too long.
            return [self._post([t], [i], fit)[0] for t, i in zip(texts, ids)]
        if status != 200:
            m = _TOO_LONG.search(raw or "")
            if m and len(ids) == 1:
                if fit:
                    return [TooLong(int(m.group(2)), int(m.group(1)))]
                raise input_too_long(ids[0], int(m.group(2)), int(m.group(1)))
            raise backend_unavailable(self.url + "/pooling", f"HTTP {status}: {raw[:500]}")
        data = resp.get("data") if isinstance(resp, dict) else None
        if not isinstance(data, list) or len(data) != len(texts):
            raise RpcError(INTERNAL_ERROR, f"/pooling answered {0 if not isinstance(data, list) else len(data)} items for {len(texts)} inputs",
                           {"url": self.url + "/pooling"})
        data = sorted(data, key=lambda d: d.get("index", 0) if isinstance(d, dict) else 0)
        return [d.get("data") if isinstance(d, dict) else None for d in data]

    def score(self, rollouts: List[Dict[str, Any]], check_cancel: Callable[[], None],
              on_done: Optional[Callable[[List[Dict[str, Any]], int], None]] = None) -> List[Dict[str, Any]]:
        """Protocol results for protocol rollouts (one /pooling request per batch)."""
        rendered = [render_rollout(r, self.render) for r in rollouts]
        texts = [self.prompt(r) for r in rendered]
        results: List[Optional[Dict[str, Any]]] = [None] * len(rollouts)
        steps_done = 0
        idle = [i for i, r in enumerate(rendered) if not r.scored_indexes]
        for i in idle:
            results[i] = {"id": rendered[i].id, "steps": [{"index": p.index, "value": None} for p in rendered[i].parts]}
            steps_done += len(rendered[i].parts)
        if idle and on_done:
            on_done([results[i] for i in idle], steps_done)
        todo = [i for i, r in enumerate(rendered) if r.scored_indexes]
        for batch in plan_batches([len(texts[i]) for i in todo], self.batch_rollouts, 1 << 62):
            check_cancel()
            idxs = [todo[k] for k in batch]
            rows_list = self._post([texts[i] for i in idxs], [rendered[i].id for i in idxs])
            fin = []
            for i, rows in zip(idxs, rows_list):
                r = rendered[i]
                results[i] = self._to_result(r, rows, texts[i])
                steps_done += len(r.parts)
                fin.append(results[i])
            if on_done:
                on_done(fin, steps_done)
        return [r for r in results if r is not None]

    def _values(self, r, rows: Any, want: int) -> List[float]:
        """The positive-class value of each of ``want`` rows, every row validated (``check_row``)."""
        if not isinstance(rows, list) or len(rows) != want:
            n = len(rows) if isinstance(rows, list) else 0
            raise RpcError(INTERNAL_ERROR,
                           f"/pooling returned {n} rows for rollout {r.id!r} but it has {want} agent steps "
                           f"(is the server a STEP pooler whose step tag is {self.separator!r}?)",
                           {"rolloutId": r.id, "rows": n, "steps": want})
        vals = []
        for k, row in enumerate(rows):
            why = check_row(row, self.row_width, k, r.id)
            if why:
                raise RpcError(INTERNAL_ERROR, f"malformed reply from the PRM server: {why}", {"rolloutId": r.id, "row": k})
            vals.append(float(row if self.row_width == 1 and not isinstance(row, list) else row[self.positive_index]))
        return vals

    def _prefix_upto(self, r, n_scored: int) -> Optional[int]:
        """Position in ``r.parts`` of the ``n_scored``-th scored part (1-based), or None for 0."""
        seen = 0
        for pos, p in enumerate(r.parts):
            if p.scored:
                seen += 1
                if seen == n_scored:
                    return pos
        return None

    def _fit(self, r, text: str, first: Any) -> Optional[List[float]]:
        """Values of the longest prefix of ``r``'s agent steps that the server scores whole (the
        module docstring), or None when not even the first step fits. ``first`` is the server's
        answer for the whole rollout (a TooLong, or fewer rows than steps)."""
        want = len(r.scored_indexes)
        if isinstance(first, TooLong):
            k = int(want * first.limit / max(first.tokens, 1) * 0.9)
        else:
            k = min(len(first), want - 1) if isinstance(first, list) else want - 1
        if isinstance(first, list) and k >= 1:
            # The server sent rows for k steps only: the prefix of k steps must then give k rows,
            # else the server is dropping rows (an error, never scores placed on guessed steps).
            rows = self._post([render_text(r, self._prefix_head(r), self.separator, "<|im_end|>", upto=self._prefix_upto(r, k))], [r.id])[0]
            if isinstance(rows, list) and len(rows) == k:
                return self._values(r, rows, k)
            self._values(r, first, want)  # raises the row-count error
        tries = 0
        while k >= 1 and tries < 12:
            tries += 1
            upto = self._prefix_upto(r, k)
            prefix = render_text(r, self._prefix_head(r), self.separator, "<|im_end|>", upto=upto)
            rows = self._post([prefix], [r.id])[0]
            if isinstance(rows, TooLong):
                k = min(k - 1, int(k * rows.limit / max(rows.tokens, 1) * 0.9))
                continue
            if isinstance(rows, list) and len(rows) == k:
                return self._values(r, rows, k)
            # The server cut this prefix too: fewer rows than its steps.
            k = min(k - 1, len(rows)) if isinstance(rows, list) else k - 1
        return None

    def _to_result(self, r, rows: Any, text: str = "") -> Dict[str, Any]:
        want = len(r.scored_indexes)
        short = isinstance(rows, TooLong) or (isinstance(rows, list) and len(rows) < want)
        if not short:
            vals = self._values(r, rows, want)
            it = iter(vals)
            return {"id": r.id, "steps": [{"index": p.index, "value": next(it) if p.scored else None} for p in r.parts]}
        # Too long for the server's context: score the prefix that fits.
        if isinstance(rows, list):
            # Rows the server did send are validated first (a malformed reply is an error, not a cut).
            for k, row in enumerate(rows):
                why = check_row(row, self.row_width, k, r.id)
                if why:
                    raise RpcError(INTERNAL_ERROR, f"malformed reply from the PRM server: {why}", {"rolloutId": r.id, "row": k})
        vals = self._fit(r, text, rows) or []
        limit = rows.limit if isinstance(rows, TooLong) else self.max_length
        note = BEYOND_CONTEXT + (f" (the server's limit is {limit} tokens)" if limit else "")
        log.warning("rollout %r is longer than the server's context: %d of %d agent steps scored", r.id, len(vals), want)
        steps = []
        it = iter(vals)
        for p in r.parts:
            if not p.scored:
                steps.append({"index": p.index, "value": None})
                continue
            v = next(it, None)
            steps.append({"index": p.index, "value": v} if v is not None else {"index": p.index, "value": None, "explanation": note})
        return {"id": r.id, "steps": steps}


class TooLong:
    """A /pooling input the server refused as longer than its context: its token count and the limit."""

    def __init__(self, tokens: int, limit: int):
        self.tokens = tokens
        self.limit = limit
