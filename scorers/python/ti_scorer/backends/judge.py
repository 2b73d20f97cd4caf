"""The ``judge`` backend: an LLM judge behind an OpenAI-compatible ``POST {url}/v1/chat/completions``.

One request per agent step, with the trajectory up to and including that step (the shared prefix
benefits from the server's prefix cache). The judge is asked for one word, ``good`` or ``bad``, with
``max_tokens: 1, temperature: 0, logprobs: true, top_logprobs: k``. The score is the probability of
the "good" verdict renormalised over the two classes: sum of exp(logprob) of the top-logprob tokens
that are surface forms of good ("good", "correct", "yes") divided by that plus the same sum for bad
("bad", "incorrect", "wrong", "no") — the verdict-token method of docs/reference/scorer.md §3.
When the server returns no logprobs, the generated verdict word gives 1.0 / 0.0; with no verdict at
all the step's value is null and the explanation says why.
"""

import concurrent.futures
import logging
import math
import os
from typing import Any, Callable, Dict, List, Optional, Tuple

from ..protocol import RpcError, backend_unavailable
from ..render import RenderOptions, render_rollout
from .http_util import HttpJson

log = logging.getLogger("ti_scorer.judge")

GOOD = ("good", "correct", "yes")
BAD = ("bad", "incorrect", "wrong", "no")
SYSTEM = ("You review the work of an AI agent that operates a terminal or tools to solve a task. "
          "You judge one step at a time: is the step correct and useful progress towards the task "
          "(a sensible command, errors noticed and handled, no repeated failing action)?")


def verdict_probs(top: List[Dict[str, Any]]) -> Tuple[float, float]:
    """(P(good), P(bad)) summed over the surface forms in a ``top_logprobs`` list."""
    pg = pb = 0.0
    for t in top or []:
        tok = str(t.get("token", "")).strip().strip(".:!\"'").lower()
        lp = t.get("logprob")
        if not isinstance(lp, (int, float)):
            continue
        if tok in GOOD:
            pg += math.exp(lp)
        elif tok in BAD:
            pb += math.exp(lp)
    return pg, pb


def parse_verdict(resp: Any) -> Tuple[Optional[float], str]:
    """(value, explanation) from a chat-completions response (see the module docstring)."""
    try:
        choice = resp["choices"][0]
    except (KeyError, IndexError, TypeError):
        return None, "judge answered without choices"
    content = ((choice.get("message") or {}).get("content") or "").strip()
    lp = choice.get("logprobs") or {}
    first = (lp.get("content") or [None])[0] if isinstance(lp, dict) else None
    if isinstance(first, dict):
        top = list(first.get("top_logprobs") or [])
        if not top and "token" in first:
            top = [first]
        pg, pb = verdict_probs(top)
        if pg + pb > 0:
            v = pg / (pg + pb)
            return v, f"judge: P(good)={pg:.3f}, P(bad)={pb:.3f} (verdict {content!r})"
    word = content.split()[0].strip(".:!\"'").lower() if content else ""
    if word in GOOD:
        return 1.0, f"judge verdict {content!r} (no logprobs for the verdict)"
    if word in BAD:
        return 0.0, f"judge verdict {content!r} (no logprobs for the verdict)"
    return None, f"judge gave no good/bad verdict: {content[:200]!r}"


class JudgeBackend:
    """Per-step verdict-probability judge (see the module docstring). ``probe()`` checks ``/v1/models``."""

    def __init__(self, options: Dict[str, Any]):
        url = options.get("url") or "http://127.0.0.1:8000"
        headers = {}
        key_env = options.get("apiKeyEnv", "OPENAI_API_KEY")
        if key_env and os.environ.get(key_env):
            headers["Authorization"] = f"Bearer {os.environ[key_env]}"
        self.http = HttpJson(url, timeout_s=options.get("timeoutS", 120), headers=headers,
                             use_env_proxy=bool(options.get("useEnvProxy", False)))
        self.url = self.http.base
        self.model: Optional[str] = options.get("model")
        self.top_logprobs = int(options.get("topLogprobs", 20))
        self.concurrency = max(1, int(options.get("concurrency", 4)))
        self.render = RenderOptions(observation_chars=int(options.get("observationChars", 2000)))
        self.system = options.get("systemPrompt") or SYSTEM

    def probe(self) -> None:
        status, body, raw = self.http.request("GET", "/v1/models")
        if status != 200 or not isinstance(body, dict) or not isinstance(body.get("data"), list):
            raise backend_unavailable(self.url + "/v1/models", f"HTTP {status}: no model list ({raw[:200]!r})")
        if not self.model and body["data"]:
            self.model = body["data"][0].get("id")

    def messages(self, rendered, upto: int) -> List[Dict[str, str]]:
        """Chat messages judging part ``upto`` of a rendered rollout (earlier parts as context)."""
        lines = [f"Task:\n{rendered.instruction or '(no task text)'}", "", "Trajectory so far:"]
        for k, p in enumerate(rendered.parts[: upto + 1]):
            lines.append(f"### Step {p.index}" + (" (agent)" if p.scored else ""))
            lines.append(p.text.rstrip("\n"))
        idx = rendered.parts[upto].index
        lines += ["", f"Is the last step (step {idx}) a good step? Answer with one word: good or bad."]
        return [{"role": "system", "content": self.system}, {"role": "user", "content": "\n".join(lines)}]

    def _judge(self, rendered, upto: int) -> Tuple[Optional[float], str]:
        body = {"model": self.model, "messages": self.messages(rendered, upto), "max_tokens": 1,
                "temperature": 0, "logprobs": True, "top_logprobs": self.top_logprobs}
        status, resp, raw = self.http.request("POST", "/v1/chat/completions", body)
        if status != 200:
            raise backend_unavailable(self.url + "/v1/chat/completions", f"HTTP {status}: {raw[:500]}")
        return parse_verdict(resp)

    def score(self, rollouts: List[Dict[str, Any]], check_cancel: Callable[[], None],
              on_done: Optional[Callable[[List[Dict[str, Any]], int], None]] = None) -> List[Dict[str, Any]]:
        """Protocol results with label good/bad and an explanation per judged step."""
        out = []
        steps_done = 0
        # Not a `with` block: on cancel, do not wait for requests in flight (up to timeoutS each).
        pool = concurrent.futures.ThreadPoolExecutor(self.concurrency)
        try:
            for r in rollouts:
                check_cancel()
                rendered = render_rollout(r, self.render)
                futs = {k: pool.submit(self._judge, rendered, k) for k, p in enumerate(rendered.parts) if p.scored}
                steps = []
                try:
                    for k, p in enumerate(rendered.parts):
                        if not p.scored:
                            steps.append({"index": p.index, "value": None})
                            continue
                        while True:
                            try:
                                v, expl = futs[k].result(timeout=0.2)
                                break
                            except concurrent.futures.TimeoutError:
                                check_cancel()
                        label = None if v is None else ("good" if v >= 0.5 else "bad")
                        steps.append({"index": p.index, "value": v, "label": label, "explanation": expl})
                except BaseException:
                    for f in futs.values():
                        f.cancel()
                    raise
                res = {"id": rendered.id, "steps": steps}
                out.append(res)
                steps_done += len(rendered.parts)
                if on_done:
                    on_done([res], steps_done)
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
        return out
