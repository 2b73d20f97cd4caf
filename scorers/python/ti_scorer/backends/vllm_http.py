"""The ``vllm`` backend: a vLLM server running a PRM as a pooling model
(``vllm serve Qwen/Qwen2.5-Math-PRM-7B --runner pooling``), reached over HTTP.

Per batch of rollouts (sorted by rendered length) ONE ``POST {url}/pooling`` with
``{"model", "task": "token_classify", "input": [rendered text, …]}``; the server's STEP pooler
returns, per input, one row ``[p_neg, p_pos]`` per separator token (``data[i].data``); the step score
is ``row[positiveIndex]`` (default 1; 0 for a Math-Shepherd pooler with returned_token_ids [+,-]).
The rendered text is the Qwen PRM chat layout (system, user = task, assistant = steps each followed
by the separator, default ``<extra_0>``). The number of rows must equal the number of agent steps;
otherwise the answer is an error rather than misplaced scores. Shapes: docs/reference/scorer.md §2.2.
"""

import logging
import re
from typing import Any, Callable, Dict, List, Optional

from ..engine import plan_batches
from ..protocol import INTERNAL_ERROR, RpcError, backend_unavailable, input_too_long
from ..render import RenderOptions, render_rollout, render_text
from .http_util import HttpJson

log = logging.getLogger("ti_scorer.vllm")

_TOO_LONG = re.compile(r"maximum context length is (\d+) tokens.*?(?:requested|resulted in|input has|has) (\d+) tokens", re.S | re.I)
QWEN_SYSTEM = "Please reason step by step, and put your final answer within \\boxed{}."


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

    def prompt(self, rendered) -> str:
        prefix = (f"<|im_start|>system\n{self.system_prompt}<|im_end|>\n<|im_start|>user\n"
                  f"{rendered.instruction}<|im_end|>\n<|im_start|>assistant\n")
        return render_text(rendered, prefix, self.separator, "<|im_end|>")

    def _post(self, texts: List[str], ids: List[str]) -> List[Any]:
        body: Dict[str, Any] = {"model": self.model, "input": texts}
        if self.task:
            body["task"] = self.task
        status, resp, raw = self.http.request("POST", "/pooling", body)
        if status == 400 and len(texts) > 1 and _TOO_LONG.search(raw or ""):
            # Find which rollout is too long.
            return [self._post([t], [i])[0] for t, i in zip(texts, ids)]
        if status != 200:
            m = _TOO_LONG.search(raw or "")
            if m and len(ids) == 1:
                raise input_too_long(ids[0], int(m.group(2)), int(m.group(1)))
            raise backend_unavailable(self.url + "/pooling", f"HTTP {status}: {raw[:500]}")
        data = resp.get("data") if isinstance(resp, dict) else None
        if not isinstance(data, list) or len(data) != len(texts):
            raise RpcError(INTERNAL_ERROR, f"/pooling answered {0 if not isinstance(data, list) else len(data)} items for {len(texts)} inputs",
                           {"url": self.url + "/pooling"})
        data = sorted(data, key=lambda d: d.get("index", 0))
        return [d.get("data") for d in data]

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
                results[i] = self._to_result(r, rows)
                steps_done += len(r.parts)
                fin.append(results[i])
            if on_done:
                on_done(fin, steps_done)
        return [r for r in results if r is not None]

    def _to_result(self, r, rows: Any) -> Dict[str, Any]:
        want = len(r.scored_indexes)
        if not isinstance(rows, list) or len(rows) != want:
            n = len(rows) if isinstance(rows, list) else 0
            raise RpcError(INTERNAL_ERROR,
                           f"/pooling returned {n} rows for rollout {r.id!r} but it has {want} agent steps "
                           f"(is the server a STEP pooler whose step tag is {self.separator!r}?)",
                           {"rolloutId": r.id, "rows": n, "steps": want})
        vals = []
        for row in rows:
            v = row if isinstance(row, (int, float)) else (row[self.positive_index] if isinstance(row, list) and len(row) > self.positive_index else None)
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not (0.0 <= float(v) <= 1.0):
                raise RpcError(INTERNAL_ERROR, f"/pooling row {row!r} for rollout {r.id!r} holds no probability at column {self.positive_index}",
                               {"rolloutId": r.id})
            vals.append(float(v))
        it = iter(vals)
        return {"id": r.id, "steps": [{"index": p.index, "value": next(it) if p.scored else None} for p in r.parts]}
