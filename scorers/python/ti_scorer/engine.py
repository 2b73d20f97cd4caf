"""The PyTorch scoring path shared by the ``hf`` and ``toy`` backends.

A rollout is tokenised part by part: prompt ids, then each step's ids, and after every agent step the
separator ids; the score of a step is read at the LAST separator token of that step. All steps of a
rollout are read from ONE forward pass (causal attention: the score at separator i only sees
tokens up to it, so it equals scoring the prefix that ends there). Rollouts are sorted by token
length and grouped into right-padded batches (at most ``batch_rollouts`` rollouts and
``batch_tokens`` padded tokens per batch). On CUDA out-of-memory a batch is split in halves and
retried; a single rollout that still does not fit gives -32011.

A rollout longer than the model's ``max_length`` is cut at the context: the steps whose read-out
position lies inside it keep their own scores (causal attention: what comes after cannot change
them), the steps after it get value null with the explanation ``not scored: beyond model context``.
"""

import logging
import math
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence

import torch

from .protocol import Cancelled, RpcError, INTERNAL_ERROR, input_too_long, out_of_memory
from .render import RenderOptions, RenderedRollout, render_rollout

log = logging.getLogger("ti_scorer.engine")

#: The explanation of a step left unscored because it lies past the model's context.
BEYOND_CONTEXT = "not scored: beyond model context"


class TokenModel:
    """What the engine needs from a model + tokenizer (implemented by backends/toy.py and backends/hf.py).

    Attributes: ``model_id`` (str), ``device`` (torch.device), ``max_length`` (tokens),
    ``pad_id`` (int), ``separator_ids`` (token ids appended after each agent step),
    ``strip`` (strings removed from rollout text, e.g. the separator's text)."""

    model_id: str
    device: torch.device
    max_length: int
    pad_id: int
    separator_ids: List[int]
    strip: tuple = ()

    def encode(self, text: str) -> List[int]:
        """Token ids of ``text`` without special tokens."""
        raise NotImplementedError

    def prompt_ids(self, instruction: str) -> List[int]:
        """Token ids before the first step (BOS, chat template, task instruction)."""
        raise NotImplementedError

    def step_scores(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """Per-token scores in [0, 1], shape [batch, tokens] (float32), from ONE forward pass; the
        value at a separator position is P(step is good)."""
        raise NotImplementedError


@dataclass
class Encoded:
    """A tokenised rollout: ``ids`` and the positions (into ids) at which each scored step is read."""

    rollout: RenderedRollout
    ids: List[int]
    positions: List[int]  # one per scored part inside the context, in order
    steps_total: int
    beyond: int = 0  # scored parts left out: past the model's context
    limit: int = 0  # the context (tokens) when ``beyond`` > 0


def encode_rollout(model: TokenModel, rendered: RenderedRollout) -> Encoded:
    """Token ids of a rendered rollout with the read-out position of every agent step."""
    ids = list(model.prompt_ids(rendered.instruction))
    positions: List[int] = []
    for p in rendered.parts:
        ids.extend(model.encode(p.text))
        if p.scored:
            ids.extend(model.separator_ids)
            positions.append(len(ids) - 1)
    return Encoded(rendered, ids, positions, len(rendered.parts))


def plan_batches(lengths: Sequence[int], batch_rollouts: int, batch_tokens: int) -> List[List[int]]:
    """Indexes grouped into batches: sorted by length (ascending), each batch at most
    ``batch_rollouts`` items and ``len(batch) * longest`` <= ``batch_tokens`` (a single item longer
    than ``batch_tokens`` gets a batch of its own)."""
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    batches: List[List[int]] = []
    cur: List[int] = []
    for i in order:
        longest = max([lengths[j] for j in cur] + [lengths[i]])
        if cur and (len(cur) + 1 > batch_rollouts or (len(cur) + 1) * longest > batch_tokens):
            batches.append(cur)
            cur = []
        cur.append(i)
    if cur:
        batches.append(cur)
    return batches


def is_oom(e: BaseException) -> bool:
    """True for a CUDA (or CPU allocator) out-of-memory error."""
    oom_cls = getattr(torch.cuda, "OutOfMemoryError", None)
    if oom_cls is not None and isinstance(e, oom_cls):
        return True
    return isinstance(e, RuntimeError) and "out of memory" in str(e).lower()


class Engine:
    """Scores protocol rollouts with a TokenModel (see the module docstring for the batching rules)."""

    def __init__(self, model: TokenModel, render: RenderOptions, batch_rollouts: int = 8, batch_tokens: int = 32768):
        self.model = model
        self.render = render
        self.batch_rollouts = max(1, int(batch_rollouts))
        self.batch_tokens = max(1, int(batch_tokens))
        self.forward_calls = 0  # number of model forwards run (for tests and the bench)

    def encode(self, rollouts: List[Dict[str, Any]]) -> List[Encoded]:
        """Render + tokenise; raises -32012 for the first rollout longer than the model's max length."""
        opts = RenderOptions(observation_chars=self.render.observation_chars, strip=tuple(self.render.strip) + tuple(self.model.strip))
        encs = [encode_rollout(self.model, render_rollout(r, opts)) for r in rollouts]
        limit = self.model.max_length
        for e in encs:
            if e.positions and len(e.ids) > limit:
                keep = [q for q in e.positions if q < limit]
                log.warning("rollout %r has %d tokens, over the model's %d: %d of %d agent steps scored",
                            e.rollout.id, len(e.ids), limit, len(keep), len(e.positions))
                e.beyond = len(e.positions) - len(keep)
                e.limit = limit
                e.positions = keep
                e.ids = e.ids[: (keep[-1] + 1) if keep else 0]
        return encs

    def _forward(self, batch: List[Encoded]) -> List[List[float]]:
        """One forward over a right-padded batch; the scores at each rollout's positions."""
        longest = max(len(e.ids) for e in batch)
        ids = torch.full((len(batch), longest), self.model.pad_id, dtype=torch.long)
        mask = torch.zeros((len(batch), longest), dtype=torch.long)
        for row, e in enumerate(batch):
            ids[row, : len(e.ids)] = torch.tensor(e.ids, dtype=torch.long)
            mask[row, : len(e.ids)] = 1
        ids = ids.to(self.model.device)
        mask = mask.to(self.model.device)
        self.forward_calls += 1
        with torch.no_grad():
            scores = self.model.step_scores(ids, mask).float().cpu()
        out = []
        for row, e in enumerate(batch):
            vals = scores[row, e.positions].tolist() if e.positions else []
            for v in vals:
                if not math.isfinite(v):
                    raise RpcError(INTERNAL_ERROR, f"the model produced a non-finite score ({v}) for rollout {e.rollout.id!r}")
            out.append(vals)
        return out

    def _run_batch(self, batch: List[Encoded], check_cancel: Callable[[], None]) -> List[List[float]]:
        try:
            return self._forward(batch)
        except Exception as e:  # noqa: BLE001 — only OOM is handled here
            if not is_oom(e):
                raise
            if torch.cuda.is_available():
                torch.cuda.empty_cache()
            if len(batch) == 1:
                raise out_of_memory(str(self.model.device), 1, len(batch[0].positions)) from None
            half = len(batch) // 2
            log.warning("out of memory with %d rollouts (%d tokens padded); retrying as %d + %d",
                        len(batch), len(batch) * max(len(x.ids) for x in batch), half, len(batch) - half)
            # Later batches of this scorer start from the size that worked.
            self.batch_rollouts = max(1, min(self.batch_rollouts, half))
            check_cancel()
            first = self._run_batch(batch[:half], check_cancel)
            check_cancel()
            return first + self._run_batch(batch[half:], check_cancel)

    def score(
        self,
        rollouts: List[Dict[str, Any]],
        check_cancel: Callable[[], None] = lambda: None,
        on_done: Optional[Callable[[List[Dict[str, Any]], int], None]] = None,
    ) -> List[Dict[str, Any]]:
        """Protocol results (``[{id, steps: [{index, value}]}]``, input order) for protocol rollouts.

        ``check_cancel`` raises Cancelled between batches; ``on_done(finished_results, steps_done)``
        is called after every batch. Raises RpcError -32011/-32012 as described above."""
        return self.score_encoded(self.encode(rollouts), check_cancel, on_done)

    def score_encoded(
        self,
        encs: List[Encoded],
        check_cancel: Callable[[], None] = lambda: None,
        on_done: Optional[Callable[[List[Dict[str, Any]], int], None]] = None,
    ) -> List[Dict[str, Any]]:
        """``score`` for already tokenised rollouts (the benchmark builds token ids directly)."""
        values: List[Optional[List[float]]] = [None] * len(encs)
        to_run = [i for i, e in enumerate(encs) if e.positions]
        for i, e in enumerate(encs):
            if not e.positions:
                values[i] = []
        results: List[Optional[Dict[str, Any]]] = [None] * len(encs)
        steps_done = 0

        def finish(idxs: List[int]) -> None:
            nonlocal steps_done
            fin = []
            for i in idxs:
                results[i] = to_result(encs[i], values[i] or [])
                steps_done += encs[i].steps_total
                fin.append(results[i])
            if on_done and fin:
                on_done(fin, steps_done)

        finish([i for i in range(len(encs)) if not encs[i].positions])
        pending = to_run
        while pending:
            check_cancel()
            lengths = [len(encs[i].ids) for i in pending]
            plan = plan_batches(lengths, self.batch_rollouts, self.batch_tokens)
            first = [pending[k] for k in plan[0]]
            t0 = time.perf_counter()
            vals = self._run_batch([encs[i] for i in first], check_cancel)
            log.debug("batch of %d rollouts, %d tokens padded: %.1f ms", len(first),
                      len(first) * max(len(encs[i].ids) for i in first), (time.perf_counter() - t0) * 1000)
            for i, v in zip(first, vals):
                values[i] = v
            finish(first)
            done = set(first)
            pending = [i for i in pending if i not in done]
        return [r for r in results if r is not None]


def to_result(e: Encoded, vals: List[float]) -> Dict[str, Any]:
    """The protocol result of one rollout: a value per scored step, null for context steps, null
    with the BEYOND_CONTEXT explanation for scored steps past the model's context."""
    it = iter(vals)
    steps = []
    note = f"{BEYOND_CONTEXT} ({e.limit} tokens)"
    for p in e.rollout.parts:
        if not p.scored:
            steps.append({"index": p.index, "value": None})
            continue
        v = next(it, None)
        steps.append({"index": p.index, "value": float(v)} if v is not None else {"index": p.index, "value": None, "explanation": note})
    return {"id": e.rollout.id, "steps": steps}
