"""GPU check of the Python PRM scorer (scorers/python): steps/s by batch size, and one-pass vs
per-prefix scoring, on a randomly initialised model built from a config (no downloads, no weights:
the timing is that of a real architecture; the scores mean nothing).

Model: Qwen2ForTokenClassification (AutoModelForTokenClassification, 2 labels — what TRL's
PRMTrainer trains and what a Qwen2.5-Math-PRM head computes) at 7B or 1.5B shape, bf16 on CUDA.
``--tiny`` uses a 2-layer config for a CPU smoke run. Without transformers a plain PyTorch causal
transformer of the same shape stands in (``--toy``: ti_scorer's toy model), and the report says so.

Rollouts: token ids drawn at random, ``--steps`` agent steps of about ``--step-tokens`` tokens each
(±50 %, a command plus a cut terminal observation) after a 200-token prompt, sorted and batched by
the scorer's own Engine (the code the scorer runs). Per-prefix = one forward per step prefix
(what a sequence-level RM would need). Writes a section into bench/results/gpu_scorer.md.
"""

import argparse
import contextlib
import datetime
import os
import platform
import random
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "scorers", "python"))

import torch  # noqa: E402

from ti_scorer.engine import Encoded, Engine, TokenModel  # noqa: E402
from ti_scorer.render import Part, RenderedRollout, RenderOptions  # noqa: E402

SIZES = {
    # Qwen2.5-7B / Qwen2.5-Math-PRM-7B shape
    "7b": dict(hidden_size=3584, intermediate_size=18944, num_hidden_layers=28, num_attention_heads=28, num_key_value_heads=4),
    # Qwen2.5-1.5B shape
    "1.5b": dict(hidden_size=1536, intermediate_size=8960, num_hidden_layers=28, num_attention_heads=12, num_key_value_heads=2),
    "tiny": dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2),
}


class ConfigModel(TokenModel):
    """A TokenModel over a token-classification model built from a config (random weights)."""

    def __init__(self, model, device, vocab, max_length, label):
        self.model = model
        self.device = device
        self.model_id = label
        self.max_length = max_length
        self.pad_id = 0
        self.separator_ids = [vocab - 1]
        self.strip = ()

    def step_scores(self, input_ids, attention_mask):
        out = self.model(input_ids=input_ids, attention_mask=attention_mask)
        logits = out.logits if hasattr(out, "logits") else out
        return torch.softmax(logits.float(), dim=-1)[..., 1]


class TorchCausalClassifier(torch.nn.Module):
    """Decoder-shaped causal transformer in plain PyTorch (used when transformers is missing):
    token + position embeddings, pre-norm encoder layers with a causal mask, a 2-label head."""

    def __init__(self, vocab, hidden_size, intermediate_size, num_hidden_layers, num_attention_heads, **_):
        super().__init__()
        self.emb = torch.nn.Embedding(vocab, hidden_size)
        self.pos = torch.nn.Embedding(32768, hidden_size)
        layer = torch.nn.TransformerEncoderLayer(hidden_size, num_attention_heads, intermediate_size, dropout=0.0,
                                                 batch_first=True, norm_first=True)
        self.layers = torch.nn.TransformerEncoder(layer, num_hidden_layers, enable_nested_tensor=False)
        self.head = torch.nn.Linear(hidden_size, 2)

    def forward(self, input_ids, attention_mask):
        t = input_ids.shape[1]
        h = self.emb(input_ids) + self.pos(torch.arange(t, device=input_ids.device))[None]
        causal = torch.triu(torch.full((t, t), float("-inf"), device=input_ids.device), diagonal=1)
        h = self.layers(h, mask=causal, src_key_padding_mask=attention_mask == 0)
        return self.head(h)


def build_model(args, device):
    """(TokenModel, description). Falls back to the toy model when transformers is missing."""
    try:
        import transformers
        from transformers import AutoModelForTokenClassification, Qwen2Config
    except ImportError as e:
        if args.toy:
            from ti_scorer.backends.toy import ToyTokenModel
            return (ToyTokenModel(device=str(device)), 259,
                    f"toy causal model of ti_scorer (transformers is not installed: {e}); NOT a transformer")
        size = "tiny" if args.tiny else args.size
        net = TorchCausalClassifier(1024, **SIZES[size]).to(device).eval()
        n = sum(p.numel() for p in net.parameters())
        return (ConfigModel(net, device, 1024, 32768, "torch-transformer"), 1024,
                f"transformers is not installed ({e}): fallback to a plain PyTorch causal transformer "
                f"(nn.TransformerEncoder, {SIZES[size]['num_hidden_layers']} layers, width {SIZES[size]['hidden_size']}, "
                f"{n / 1e6:.2f} M params, random weights, float32 on {device})")
    size = "tiny" if args.tiny else args.size
    vocab = 151936 if size != "tiny" else 1024
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    t0 = time.perf_counter()
    # Built directly on the device in its dtype (a 7B random init on the CPU would take minutes).
    ctx = device if hasattr(device, "__enter__") else contextlib.nullcontext()  # torch < 2.0: no device context
    with ctx:
        try:
            cfg = Qwen2Config(vocab_size=vocab, max_position_embeddings=32768, num_labels=2, **SIZES[size])
            model = AutoModelForTokenClassification.from_config(cfg, torch_dtype=dtype)
        except ValueError:  # a transformers without Qwen2ForTokenClassification
            from transformers import LlamaConfig
            cfg = LlamaConfig(vocab_size=vocab, max_position_embeddings=32768, num_labels=2, **SIZES[size])
            model = AutoModelForTokenClassification.from_config(cfg, torch_dtype=dtype)
    model.to(device=device, dtype=dtype).eval()
    n = sum(p.numel() for p in model.parameters())
    desc = (f"{type(model).__name__} from {type(cfg).__name__} ({size}: {n / 1e9:.2f} B params, random weights), "
            f"{dtype} on {device}, transformers {transformers.__version__}, built in {time.perf_counter() - t0:.1f} s")
    return ConfigModel(model, device, vocab, 32768, size), vocab, desc


def make_rollouts(n, steps, step_tokens, vocab, seed):
    """Encoded rollouts with random ids; the separator (last vocab id) after each step."""
    rnd = random.Random(seed)
    sep = vocab - 1
    out = []
    for k in range(n):
        ids = [rnd.randrange(1, vocab - 1) for _ in range(200)]
        positions = []
        parts = []
        ns = max(1, int(steps * rnd.uniform(0.5, 1.5)))
        for s in range(ns):
            ids.extend(rnd.randrange(1, vocab - 1) for _ in range(max(8, int(step_tokens * rnd.uniform(0.5, 1.5)))))
            ids.append(sep)
            positions.append(len(ids) - 1)
            parts.append(Part(index=s, text="", scored=True))
        out.append(Encoded(RenderedRollout(id=f"r{k}", instruction="", parts=parts), ids, positions, ns))
    return out


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize()


def timed(fn, device, reps):
    times = []
    for _ in range(reps):
        sync(device)
        t0 = time.perf_counter()
        r = fn()
        sync(device)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--size", choices=["7b", "1.5b"], default="7b")
    ap.add_argument("--tiny", action="store_true", help="2-layer config (CPU smoke run)")
    ap.add_argument("--toy", action="store_true", help="without transformers: ti_scorer's toy model instead of a plain PyTorch transformer")
    ap.add_argument("--rollouts", type=int, default=None)
    ap.add_argument("--steps", type=int, default=None, help="mean agent steps per rollout (GPU 20, CPU 10)")
    ap.add_argument("--step-tokens", type=int, default=None, help="mean tokens per step (GPU 300, CPU 120)")
    ap.add_argument("--batch-sizes", default="1,4,16")
    ap.add_argument("--prefix-rollouts", type=int, default=None, help="rollouts for the per-prefix comparison")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "gpu_scorer.md"))
    args = ap.parse_args()
    device = torch.device(args.device)
    on_gpu = device.type == "cuda"
    if on_gpu and not torch.cuda.is_available():
        sys.exit("--device cuda but torch.cuda.is_available() is False")
    n = args.rollouts or (32 if on_gpu else 8)
    args.steps = args.steps or (20 if on_gpu else 10)
    args.step_tokens = args.step_tokens or (300 if on_gpu else 120)
    kpre = args.prefix_rollouts or (4 if on_gpu else 2)
    torch.manual_seed(0)
    model, vocab, desc = build_model(args, device)
    print(f"model: {desc}", flush=True)
    rollouts = make_rollouts(n, args.steps, args.step_tokens, vocab, seed=1)
    total_steps = sum(len(e.positions) for e in rollouts)
    total_tokens = sum(len(e.ids) for e in rollouts)
    longest = max(len(e.ids) for e in rollouts)
    rows = []
    for b in [int(x) for x in args.batch_sizes.split(",")]:
        eng = Engine(model, RenderOptions(), batch_rollouts=b, batch_tokens=b * longest)
        eng.score_encoded(rollouts[: max(1, b)])  # warm-up (kernels, allocator)
        if on_gpu:
            torch.cuda.reset_peak_memory_stats()
        t, _ = timed(lambda: eng.score_encoded(rollouts), device, args.reps)
        peak = torch.cuda.max_memory_allocated() / 2**30 if on_gpu else float("nan")
        rows.append((b, t, total_steps / t, total_tokens / t, peak))
        print(f"batch {b:>3}: {t:.3f} s, {total_steps / t:.1f} steps/s, {total_tokens / t:.0f} tokens/s", flush=True)

    # One pass per rollout vs one forward per step prefix (batch 1 both ways).
    sub = rollouts[:kpre]
    eng1 = Engine(model, RenderOptions(), batch_rollouts=1, batch_tokens=longest)

    def per_prefix():
        vals = []
        with torch.no_grad():
            for e in sub:
                for pos in e.positions:
                    ids = torch.tensor([e.ids[: pos + 1]], device=device)
                    vals.append(model.step_scores(ids, torch.ones_like(ids))[0, -1].float().item())
        return vals

    t_one, res_one = timed(lambda: eng1.score_encoded(sub), device, args.reps)
    t_pre, res_pre = timed(per_prefix, device, max(1, args.reps - 1))
    one_vals = [s["value"] for r in res_one for s in r["steps"]]
    maxdiff = max(abs(a - b) for a, b in zip(one_vals, res_pre))
    sub_steps = sum(len(e.positions) for e in sub)
    pre_tokens = sum(pos + 1 for e in sub for pos in e.positions)
    print(f"one-pass {t_one:.3f} s vs per-prefix {t_pre:.3f} s: ratio {t_pre / t_one:.1f}x; max |diff| {maxdiff:.2e}", flush=True)

    label = "GPU" if on_gpu else "CPU"
    dev_name = torch.cuda.get_device_name(device) if on_gpu else (platform.processor() or platform.machine())
    cmd = "bash bench/gpu_scorer.sh " + " ".join(sys.argv[1:])
    lines = [
        f"### {label}: {dev_name} ({datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC)",
        "",
        f"- Command: `{cmd.strip()}`; torch {torch.__version__}, Python {platform.python_version()}, {os.cpu_count()} CPUs",
        f"- Model: {desc}",
        f"- Input: {n} rollouts, {total_steps} agent steps, {total_tokens} tokens (longest {longest}); "
        f"~{args.step_tokens} tokens/step; median of {args.reps} runs",
        "",
        "| batch (rollouts) | time (s) | steps/s | tokens/s | peak GPU mem (GiB) |",
        "|---:|---:|---:|---:|---:|",
    ]
    for b, t, sps, tps, peak in rows:
        lines.append(f"| {b} | {t:.3f} | {sps:.1f} | {tps:.0f} | {'—' if peak != peak else f'{peak:.1f}'} |")
    lines += [
        "",
        f"One pass per rollout vs one forward per step prefix ({kpre} rollouts, {sub_steps} steps; per-prefix "
        f"feeds {pre_tokens} tokens vs {sum(len(e.ids) for e in sub)}):",
        "",
        "| method | time (s) | steps/s |",
        "|---|---:|---:|",
        f"| one pass per rollout | {t_one:.3f} | {sub_steps / t_one:.1f} |",
        f"| per-prefix forwards | {t_pre:.3f} | {sub_steps / t_pre:.1f} |",
        "",
        f"**per-prefix / one-pass time ratio: {t_pre / t_one:.1f}×**; largest difference between the two "
        f"methods' scores: {maxdiff:.2e}.",
        "",
    ]
    write_section(args.out, label.lower(), "\n".join(lines))
    print("\n".join(lines))
    print(f"wrote {args.out}")


HEADER = """## gpu_scorer — Python PRM scorer throughput (scorers/python)

`bash bench/gpu_scorer.sh` (see bench/gpu_scorer.py): steps/s of the scorer's Engine by batch size and
the time of one forward per rollout vs one forward per step prefix, on a randomly initialised
model built from a config. The GPU and CPU sections are written by separate runs; CPU figures come
from shared, noisy machines: compare the ratios, not the absolute times.
"""


def write_section(path, key, body):
    """Replace (or add) the ``key`` section of the results file, keeping the other sections."""
    start, end = f"<!-- gpu_scorer:{key} -->", f"<!-- /gpu_scorer:{key} -->"
    text = open(path, encoding="utf-8").read() if os.path.exists(path) else HEADER
    block = f"{start}\n{body}\n{end}"
    if start in text and end in text:
        a = text.index(start)
        z = text.index(end) + len(end)
        text = text[:a] + block + text[z:]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
