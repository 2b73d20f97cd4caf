"""The ``hf`` backend: a process reward model loaded with Transformers from a LOCAL path (no hub
downloads: ``local_files_only=True``), run in-process with PyTorch.

Supported kinds (``kind`` option; ``auto`` picks from ``config.architectures``):

- ``token-classification`` — what TRL's PRMTrainer trains: ``AutoModelForTokenClassification``
  with 2 labels; input = BOS + prompt ids + for each step (step ids + separator ids) exactly as
  ``PRMTrainer.tokenize_row`` builds it (separator default ``"\\n"``, TRL's ``PRMConfig.step_separator``);
  score = softmax probability of label ``positiveLabel`` (default 1 = "correct") at the last
  separator token.
- ``qwen-prm`` — Qwen2.5-Math-PRM (``Qwen2ForProcessRewardModel``, custom code, needs
  ``trustRemoteCode``): ``AutoModel``; chat template system + user(task) + assistant whose content
  is each step followed by ``<extra_0>``; score = softmax P(label 1) at each ``<extra_0>``.
- ``math-shepherd`` — Math-Shepherd-style causal LM: ``AutoModelForCausalLM``; each step followed
  by `` ки``; score = P("+") normalised over {"+", "-"} from the logits at the ``ки`` token.

Device ``cuda`` (or ``cuda:N``) runs in bfloat16, ``cpu`` in float32 (``dtype`` overrides).
Transformers is imported only inside ``load`` so the rest of the scorer works without it.
"""

import logging
import os
from typing import Any, Dict, List, Optional

import torch

from ..engine import TokenModel
from ..protocol import RpcError, model_load_failed

log = logging.getLogger("ti_scorer.hf")

QWEN_SYSTEM = "Please reason step by step, and put your final answer within \\boxed{}."
KINDS = ("auto", "token-classification", "qwen-prm", "math-shepherd")


def pick_device(device: str) -> torch.device:
    """``auto`` → cuda when available else cpu; raises ValueError for cuda without a GPU."""
    if device in (None, "", "auto"):
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    d = torch.device(device)
    if d.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {device!r} asked for but torch.cuda.is_available() is False")
    return d


def pick_dtype(dtype: str, device: torch.device) -> torch.dtype:
    """bfloat16 on cuda and float32 on cpu unless ``dtype`` names one (bfloat16/float16/float32)."""
    if dtype in (None, "", "auto"):
        return torch.bfloat16 if device.type == "cuda" else torch.float32
    table = {"bfloat16": torch.bfloat16, "bf16": torch.bfloat16, "float16": torch.float16,
             "fp16": torch.float16, "float32": torch.float32, "fp32": torch.float32}
    if dtype not in table:
        raise ValueError(f"unknown dtype {dtype!r} (bfloat16, float16, float32)")
    return table[dtype]


def detect_kind(architectures: List[str]) -> Optional[str]:
    """The PRM kind for a config's ``architectures`` list, or None when none fits."""
    archs = architectures or []
    if any(a == "Qwen2ForProcessRewardModel" or a.endswith("ProcessRewardModel") for a in archs):
        return "qwen-prm"
    if any(a.endswith("ForTokenClassification") for a in archs):
        return "token-classification"
    if any(a.endswith("ForCausalLM") for a in archs):
        return "math-shepherd"
    return None


class HfTokenModel(TokenModel):
    """TokenModel over a Transformers model + tokenizer (see the module docstring for the kinds).

    Also used directly by bench/gpu_scorer.py with a model built from a config."""

    def __init__(self, model: Any, tokenizer: Any, kind: str, device: torch.device, model_id: str,
                 max_length: int, separator: Optional[str] = None, positive_label: int = 1,
                 system_prompt: Optional[str] = None):
        self.model = model
        self.tokenizer = tokenizer
        self.kind = kind
        self.device = device
        self.model_id = model_id
        self.max_length = int(max_length)
        self.positive_label = int(positive_label)
        self.system_prompt = system_prompt if system_prompt is not None else QWEN_SYSTEM
        pad = getattr(tokenizer, "pad_token_id", None)
        if pad is None:
            pad = getattr(tokenizer, "eos_token_id", None)
        self.pad_id = int(pad) if pad is not None else 0
        if kind == "qwen-prm":
            sep = separator or "<extra_0>"
        elif kind == "math-shepherd":
            sep = separator or " ки"
        else:
            sep = separator if separator is not None else "\n"
        self.separator = sep
        self.separator_ids = list(tokenizer.encode(sep, add_special_tokens=False))
        if not self.separator_ids:
            raise ValueError(f"the separator {sep!r} encodes to no tokens")
        if kind == "math-shepherd":
            tag_id = tokenizer.encode("ки", add_special_tokens=False)[-1]
            if self.separator_ids[-1] != tag_id:
                self.separator_ids.append(tag_id)
            plus = tokenizer.encode("+", add_special_tokens=False)
            minus = tokenizer.encode("-", add_special_tokens=False)
            self.candidates = [plus[-1], minus[-1]]
        # Remove the separator text from rollout text (a newline separator is left alone: it is
        # ordinary text and positions are recorded, not searched).
        self.strip = (sep.strip(),) if sep.strip() else ()

    def encode(self, text: str) -> List[int]:
        return list(self.tokenizer.encode(text, add_special_tokens=False)) if text else []

    def prompt_ids(self, instruction: str) -> List[int]:
        tok = self.tokenizer
        if self.kind == "qwen-prm":
            messages = [{"role": "system", "content": self.system_prompt}, {"role": "user", "content": instruction}]
            try:
                text = tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
            except Exception:  # noqa: BLE001 — tokenizer without a chat template
                text = (f"<|im_start|>system\n{self.system_prompt}<|im_end|>\n<|im_start|>user\n"
                        f"{instruction}<|im_end|>\n<|im_start|>assistant\n")
            return self.encode(text)
        ids = self.encode(instruction + "\n") if self.kind == "token-classification" else self.encode(instruction + " ")
        bos = getattr(tok, "bos_token_id", None)
        return ([bos] if bos is not None else []) + ids

    def step_scores(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        out = self.model(input_ids=input_ids, attention_mask=attention_mask)
        logits = out.logits if hasattr(out, "logits") else out[0]
        if self.kind == "math-shepherd":
            pair = logits[..., self.candidates].float()
            return torch.softmax(pair, dim=-1)[..., 0]
        return torch.softmax(logits.float(), dim=-1)[..., self.positive_label]


def load(options: Dict[str, Any]) -> HfTokenModel:
    """Load the PRM at ``options["model"]`` (a local folder). Raises RpcError -32010 (ModelLoadFailed)
    with the reason when transformers is missing, the path does not exist, the architecture is not
    a supported PRM, or the device is not available."""
    path = options.get("model")
    if not path:
        raise model_load_failed("", "no model path given (option 'model' / --model)")
    try:
        device = pick_device(options.get("device") or "auto")
        dtype = pick_dtype(options.get("dtype") or "auto", device)
    except ValueError as e:
        raise model_load_failed(path, str(e)) from None
    if not os.path.isdir(path):
        raise model_load_failed(path, f"{path} is not a folder (the hf backend loads local model folders only)")
    try:
        import transformers  # noqa: F401 — lazy: the only place transformers is imported
        from transformers import (AutoConfig, AutoModel, AutoModelForCausalLM,
                                  AutoModelForTokenClassification, AutoTokenizer)
    except ImportError as e:
        raise model_load_failed(path, f"transformers is not installed ({e})") from None
    trust = bool(options.get("trustRemoteCode", False))
    kind = options.get("kind") or "auto"
    try:
        config = AutoConfig.from_pretrained(path, local_files_only=True, trust_remote_code=trust)
        if kind == "auto":
            kind = detect_kind(list(getattr(config, "architectures", None) or []))
            if kind is None:
                raise ValueError(f"cannot tell the PRM kind from architectures {config.architectures}; set option 'kind'")
        if kind == "qwen-prm" and not trust:
            raise ValueError("Qwen2.5-Math-PRM needs its own model code: set option trustRemoteCode=true")
        cls = {"token-classification": AutoModelForTokenClassification, "qwen-prm": AutoModel,
               "math-shepherd": AutoModelForCausalLM}[kind]
        tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True, trust_remote_code=trust)
        model = cls.from_pretrained(path, local_files_only=True, trust_remote_code=trust, torch_dtype=dtype)
        model.to(device).eval()
    except RpcError:
        raise
    except Exception as e:  # noqa: BLE001 — every load failure is a -32010 with its reason
        reason = f"{type(e).__name__}: {e}"
        if is_oom_error(e):
            reason = f"out of memory while loading onto {device}: {e}"
        raise model_load_failed(path, reason) from None
    max_len = options.get("maxLength")
    if not max_len:
        tml = getattr(tokenizer, "model_max_length", None)
        mpe = getattr(config, "max_position_embeddings", None)
        cands = [x for x in (tml, mpe) if isinstance(x, int) and 0 < x < 10_000_000]
        max_len = min(cands) if cands else 4096
    log.info("loaded %s (%s) on %s as %s, max length %d", path, kind, device, dtype, max_len)
    return HfTokenModel(model, tokenizer, kind, device, path, max_len,
                        separator=options.get("separator"), positive_label=options.get("positiveLabel", 1),
                        system_prompt=options.get("systemPrompt"))


def is_oom_error(e: BaseException) -> bool:
    from ..engine import is_oom
    return is_oom(e)
