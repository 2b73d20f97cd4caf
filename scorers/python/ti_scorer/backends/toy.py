"""The ``toy`` backend: a byte-level tokenizer and a tiny causal PyTorch model with random (seeded)
weights. Its scores mean nothing; it exists so the whole scoring path (rendering, separator
positions, one pass per rollout, batching, padding, protocol) runs and is tested without a real
PRM. The model is strictly causal (causal convolution + running mean), so the score at a separator
equals the score of the prefix that ends there.
"""

import time
from typing import List, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

from ..engine import TokenModel

PAD, BOS, SEP = 0, 1, 2
OFFSET = 3
VOCAB = 256 + OFFSET


class ByteTokenizer:
    """UTF-8 bytes shifted by 3; ids 0/1/2 are pad / BOS / step separator."""

    def encode(self, text: str) -> List[int]:
        return [b + OFFSET for b in text.encode("utf-8")]

    def decode(self, ids: List[int]) -> str:
        return bytes(i - OFFSET for i in ids if i >= OFFSET).decode("utf-8", errors="replace")


class ToyCausalPRM(nn.Module):
    """Embedding → causal conv (kernel 4) → [conv, running mean] → 2 logits per token (class 1 = good).

    forward(input_ids [B,T] long) → logits [B,T,2]. Deterministic for a given ``seed``."""

    def __init__(self, seed: int = 0, dim: int = 32, kernel: int = 4):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        self.kernel = kernel
        self.emb = nn.Embedding(VOCAB, dim)
        self.conv = nn.Conv1d(dim, dim, kernel)
        self.head = nn.Linear(2 * dim, 2)
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(torch.randn(p.shape, generator=g) * 0.5)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        h = self.emb(input_ids)  # B,T,D
        c = self.conv(F.pad(h.transpose(1, 2), (self.kernel - 1, 0))).transpose(1, 2)
        n = torch.arange(1, input_ids.shape[1] + 1, device=input_ids.device, dtype=h.dtype).view(1, -1, 1)
        mean = torch.cumsum(h, dim=1) / n
        return self.head(torch.tanh(torch.cat([c, mean], dim=-1)))


class ToyTokenModel(TokenModel):
    """TokenModel over ToyCausalPRM. Test/demo knobs: ``delay_ms`` sleeps before every forward
    (simulated compute, to try cancel/progress), ``oom_above_tokens`` raises a CUDA-style
    out-of-memory RuntimeError when a batch has more padded tokens than that (to exercise the
    OOM retry path on CPU)."""

    def __init__(self, seed: int = 0, max_length: int = 1 << 20, device: str = "cpu",
                 delay_ms: float = 0.0, oom_above_tokens: Optional[int] = None):
        self.tokenizer = ByteTokenizer()
        self.net = ToyCausalPRM(seed).eval().to(device)
        self.model_id = f"toy-causal-prm(seed={seed})"
        self.device = torch.device(device)
        self.max_length = int(max_length)
        self.pad_id = PAD
        self.separator_ids = [SEP]
        self.strip = ()
        self.delay_ms = float(delay_ms)
        self.oom_above_tokens = oom_above_tokens
        self.batch_shapes: List[tuple] = []  # shapes of every forward (tests look at them)

    def encode(self, text: str) -> List[int]:
        return self.tokenizer.encode(text)

    def prompt_ids(self, instruction: str) -> List[int]:
        return [BOS] + self.tokenizer.encode(f"Task: {instruction}\n")

    def step_scores(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        self.batch_shapes.append(tuple(input_ids.shape))
        if self.oom_above_tokens is not None and input_ids.numel() > self.oom_above_tokens:
            raise RuntimeError(f"CUDA out of memory (simulated: {input_ids.numel()} > {self.oom_above_tokens} tokens)")
        if self.delay_ms > 0:
            time.sleep(self.delay_ms / 1000.0)
        logits = self.net(input_ids)
        return torch.softmax(logits.float(), dim=-1)[..., 1]
