"""Helper of bench/scorerModel.bench.ts: the Python PRM scorer (scorers/python, ti_scorer) with a small
Qwen2-shaped model, run two ways so the bench can compare them on the same batch in one run.

Model: a decoder with the Qwen2 layer layout written in plain PyTorch (transformers is not needed):
token embedding; per layer RMSNorm → causal self-attention with grouped-query heads, q/k/v biases and
rotary position embeddings (theta 1e6), local (each block of ``window`` tokens attends to itself and
the block before it, like Qwen2's sliding-window option, so a CPU run stays linear in the rollout
length) → residual, RMSNorm → SwiGLU MLP → residual; final RMSNorm; a
2-label token-classification head (what TRL's PRMTrainer trains; class 1 = "step is good"). Random
weights from a fixed seed, float32 on the CPU, no downloads. Sizes come from ``--config`` (JSON).
Tokenizer: a regex pre-tokenizer (letter runs of ≤ 6, digit runs of ≤ 3, whitespace runs, single
symbols) with pieces hashed (crc32) into the vocabulary: about as many tokens per character as a BPE
on code and terminal output, and deterministic across processes. The scores mean nothing; the cost
per step is that of a real (small) architecture. Both modes build the same model (same seed, same
torch thread count), so they give bit-identical scores.

Modes:

``serve --config JSON``
    The scorer process: ti_scorer's own Server, framing, param validation and Engine (what
    ``ti-scorer`` runs), with this model as the backend. Speaks scorer protocol v1 on stdio. After
    every ``score`` it logs ``[bench] score wall_ms=… cpu_ms=…`` on stderr: the backend call alone.

``inproc --config JSON --batch FILE``
    Reads the batch (``{"rollouts": [...]}``, already a protocol ScoreRollout list) and parses it
    once, builds the same backend, prints ``{"ready": ...}``, then answers one line of JSON on stdout
    per command line on stdin: ``run`` → ``{"ms": total, "encodeMs": render + tokenise, "cpuMs": process CPU time}`` (one call of
    the backend's ``score`` on the parsed batch, timed with ``time.perf_counter`` in this process);
    ``results`` → the scores (``[{id, steps}]``); ``parts`` → the scorer-side protocol costs of this
    batch timed alone (json.loads of the request, param validation, json.dumps of the result);
    ``quit``.
"""

import argparse
import json
import os
import re
import statistics
import sys
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "scorers", "python"))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from ti_scorer.backends.factory import EngineBackend  # noqa: E402
from ti_scorer.engine import Engine, TokenModel  # noqa: E402
from ti_scorer.render import RenderOptions  # noqa: E402

DEFAULT_CONFIG = {
    "vocab": 32768,
    "hidden": 128,
    "intermediate": 352,
    "layers": 4,
    "heads": 4,
    "kvHeads": 2,
    "window": 128,
    "seed": 0,
    "threads": 1,
    "observationChars": 2000,
    "batchRollouts": 8,
    "batchTokens": 32768,
}

PAD, BOS, SEP, OFFSET = 0, 1, 2, 3
PIECE = re.compile(r"[A-Za-z]{1,6}|\d{1,3}|\s{1,4}|[^\sA-Za-z\d]")


class HashTokenizer:
    """Regex pieces hashed into ``vocab - 3`` ids (0/1/2 are pad / BOS / step separator)."""

    def __init__(self, vocab: int):
        self.n = vocab - OFFSET

    def encode(self, text: str):
        n = self.n
        return [zlib.crc32(p.encode("utf-8")) % n + OFFSET for p in PIECE.findall(text)]


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps))


def local_attention(q, k, v, mask):
    """Causal attention where each block of W tokens sees itself and the block before it (so every
    token sees at least the W before it): Qwen2's sliding-window option in block form, linear in the
    sequence length. q, k, v: [B, H, T, D]; mask: [W, 2W] additive; returns [B, H, T', D] (T' = T
    rounded up to a multiple of W)."""
    w = mask.shape[0]
    b, h, t, d = q.shape
    pad = (-t) % w
    if pad:
        q, k, v = (F.pad(x, (0, 0, 0, pad)) for x in (q, k, v))
    nb = (t + pad) // w
    q = q.view(b, h, nb, w, d)
    k = k.view(b, h, nb, w, d)
    v = v.view(b, h, nb, w, d)
    k2 = torch.cat([F.pad(k, (0, 0, 0, 0, 1, 0))[:, :, :-1], k], dim=3)  # previous block, this block
    v2 = torch.cat([F.pad(v, (0, 0, 0, 0, 1, 0))[:, :, :-1], v], dim=3)
    att = (q @ k2.transpose(-1, -2)) / (d ** 0.5) + mask
    att[:, :, 0, :, :w] = float("-inf")  # the first block has no block before it
    return (torch.softmax(att, dim=-1) @ v2).view(b, h, nb * w, d)


def rope(x, cos, sin):
    half = x.shape[-1] // 2
    rot = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
    return x * cos + rot * sin


class Qwen2Layer(nn.Module):
    def __init__(self, c):
        super().__init__()
        h, nh, nkv = c["hidden"], c["heads"], c["kvHeads"]
        self.nh, self.nkv, self.hd = nh, nkv, h // nh
        self.input_layernorm = RMSNorm(h)
        self.q_proj = nn.Linear(h, nh * self.hd, bias=True)
        self.k_proj = nn.Linear(h, nkv * self.hd, bias=True)
        self.v_proj = nn.Linear(h, nkv * self.hd, bias=True)
        self.o_proj = nn.Linear(nh * self.hd, h, bias=False)
        self.post_attention_layernorm = RMSNorm(h)
        self.gate_proj = nn.Linear(h, c["intermediate"], bias=False)
        self.up_proj = nn.Linear(h, c["intermediate"], bias=False)
        self.down_proj = nn.Linear(c["intermediate"], h, bias=False)

    def forward(self, x, cos, sin, mask):
        b, t, _ = x.shape
        y = self.input_layernorm(x)
        q = self.q_proj(y).view(b, t, self.nh, self.hd).transpose(1, 2)
        k = self.k_proj(y).view(b, t, self.nkv, self.hd).transpose(1, 2)
        v = self.v_proj(y).view(b, t, self.nkv, self.hd).transpose(1, 2)
        q, k = rope(q, cos[:, :, :t], sin[:, :, :t]), rope(k, cos[:, :, :t], sin[:, :, :t])
        rep = self.nh // self.nkv
        k = k.repeat_interleave(rep, dim=1)
        v = v.repeat_interleave(rep, dim=1)
        y = local_attention(q, k, v, mask)[:, :, :t]
        x = x + self.o_proj(y.transpose(1, 2).reshape(b, t, -1))
        y = self.post_attention_layernorm(x)
        return x + self.down_proj(F.silu(self.gate_proj(y)) * self.up_proj(y))


class Qwen2ShapedPRM(nn.Module):
    """forward(input_ids [B,T]) → logits [B,T,2]; causal, so the score at a separator only sees the prefix."""

    def __init__(self, c):
        super().__init__()
        self.c = c
        self.embed_tokens = nn.Embedding(c["vocab"], c["hidden"])
        self.layers = nn.ModuleList(Qwen2Layer(c) for _ in range(c["layers"]))
        self.norm = RMSNorm(c["hidden"])
        self.score = nn.Linear(c["hidden"], 2, bias=False)
        g = torch.Generator().manual_seed(c["seed"])
        with torch.no_grad():
            for name, p in self.named_parameters():
                if not name.endswith("weight") or p.dim() > 1:
                    p.copy_(torch.randn(p.shape, generator=g) * 0.05)

    def forward(self, input_ids):
        t = input_ids.shape[1]
        hd = self.c["hidden"] // self.c["heads"]
        inv = 1.0 / (1e6 ** (torch.arange(0, hd, 2, dtype=torch.float32) / hd))
        ang = torch.outer(torch.arange(t, dtype=torch.float32), inv)
        ang = torch.cat([ang, ang], dim=-1)
        cos, sin = ang.cos()[None, None], ang.sin()[None, None]
        w = self.c["window"]
        mask = torch.cat([torch.zeros(w, w), torch.triu(torch.full((w, w), float("-inf")), diagonal=1)], dim=1)
        x = self.embed_tokens(input_ids)
        for layer in self.layers:
            x = layer(x, cos, sin, mask)
        return self.score(self.norm(x))


class BenchTokenModel(TokenModel):
    """ti_scorer TokenModel over Qwen2ShapedPRM + HashTokenizer."""

    def __init__(self, c):
        self.tok = HashTokenizer(c["vocab"])
        self.net = Qwen2ShapedPRM(c).eval()
        self.params = sum(p.numel() for p in self.net.parameters())
        self.model_id = (f"qwen2-shaped random PRM ({c['layers']} layer{'s' if c['layers'] != 1 else ''}, hidden {c['hidden']}, MLP {c['intermediate']}, "
                         f"{c['heads']}/{c['kvHeads']} heads, window {c['window']}, {self.params / 1e6:.2f} M params, seed {c['seed']})")
        self.device = torch.device("cpu")
        self.max_length = 1 << 20
        self.pad_id = PAD
        self.separator_ids = [SEP]
        self.strip = ()

    def encode(self, text):
        return self.tok.encode(text)

    def prompt_ids(self, instruction):
        return [BOS] + self.tok.encode(f"Task: {instruction}\n")

    def step_scores(self, input_ids, attention_mask):
        return torch.softmax(self.net(input_ids).float(), dim=-1)[..., 1]


def make_backend(c):
    """The backend both modes use: ti_scorer's EngineBackend (Engine + render) over the bench model."""
    torch.manual_seed(c["seed"])
    torch.set_num_threads(int(c["threads"]))
    model = BenchTokenModel(c)
    engine = Engine(model, RenderOptions(observation_chars=c["observationChars"]), c["batchRollouts"], c["batchTokens"])
    return EngineBackend("bench-qwen2", engine, {"maxRequestRollouts": 4096, "maxRequestSteps": 100_000})


def serve(c):
    proto_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    import logging
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    from ti_scorer.framing import MessageReader, MessageWriter
    from ti_scorer.server import Server

    def exit_now(code):
        try:
            proto_out.flush()
        finally:
            sys.stderr.flush()
            os._exit(code)

    backend = make_backend(c)
    score = backend.score

    def timed_score(rollouts, check_cancel, on_done):
        # The same call the in-process mode times, timed inside the scorer: the bench subtracts it
        # from the protocol's wall time of the same run (immune to the model running slower then).
        t0, c0 = time.perf_counter(), time.thread_time()
        out = score(rollouts, check_cancel, on_done)
        sys.stderr.write(f"[bench] score wall_ms={(time.perf_counter() - t0) * 1000:.3f} cpu_ms={(time.thread_time() - c0) * 1000:.3f}\n")
        sys.stderr.flush()
        return out

    backend.score = timed_score
    return Server(MessageReader(sys.stdin.buffer), MessageWriter(proto_out), lambda opts: backend, exit_now).serve()


def inproc(c, batch_file):
    from ti_scorer.protocol import validate_score_params
    with open(batch_file, encoding="utf-8") as f:
        raw_text = f.read()
    rollouts = json.loads(raw_text)["rollouts"]
    backend = make_backend(c)
    engine = backend.engine
    encs = engine.encode(rollouts)
    tokens = sum(len(e.ids) for e in encs)
    agent = sum(len(e.positions) for e in encs)
    out = sys.stdout

    def say(obj):
        out.write(json.dumps(obj) + "\n")
        out.flush()

    say({"ready": True, "model": engine.model.model_id, "params": engine.model.params, "torch": torch.__version__,
         "threads": torch.get_num_threads(), "tokens": tokens, "agentSteps": agent,
         "steps": sum(len(r["steps"]) for r in rollouts), "longest": max(len(e.ids) for e in encs)})
    last = None
    for line in sys.stdin:
        cmd = line.strip()
        if cmd == "run":
            c0 = time.process_time()
            t0 = time.perf_counter()
            encs = engine.encode(rollouts)
            t1 = time.perf_counter()
            engine.score_encoded(encs)
            t2 = time.perf_counter()
            say({"ms": (t2 - t0) * 1000, "encodeMs": (t1 - t0) * 1000, "cpuMs": (time.process_time() - c0) * 1000})
        elif cmd == "results":
            last = backend.score(rollouts, lambda: None, None)
            say(last)
        elif cmd == "parts":
            request = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "score", "params": {"rollouts": rollouts}},
                                 separators=(",", ":")).encode("utf-8")
            result = {"jsonrpc": "2.0", "id": 1, "result": {"rollouts": last or backend.score(rollouts, lambda: None, None)}}

            def timed(fn, reps=7):
                ts = []
                for _ in range(reps):
                    t0 = time.perf_counter()
                    fn()
                    ts.append((time.perf_counter() - t0) * 1000)
                return statistics.median(ts)

            say({"requestBytes": len(request),
                 "loads": timed(lambda: json.loads(request.decode("utf-8"))),
                 "validate": timed(lambda: validate_score_params({"rollouts": rollouts})),
                 "dumps": timed(lambda: json.dumps(result, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8"))})
        elif cmd == "quit":
            return 0
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["serve", "inproc"])
    ap.add_argument("--config", default="{}", help="JSON overriding DEFAULT_CONFIG")
    ap.add_argument("--batch", help="inproc: the batch file")
    a = ap.parse_args()
    c = {**DEFAULT_CONFIG, **json.loads(a.config)}
    return serve(c) if a.mode == "serve" else inproc(c, a.batch)


if __name__ == "__main__":
    sys.exit(main())
