"""Options (CLI flags merged with initialize ``options``) and the backend they select.

Every option, its type and default is in ``OPTIONS``; initialize options override CLI flags; an
unknown option is logged and ignored; a wrong type is -32602 (InvalidParams) with issues.
"""

import logging
from typing import Any, Dict, List, Optional

from ..engine import Engine
from ..protocol import INVALID_PARAMS, RpcError, model_load_failed
from ..render import RenderOptions

log = logging.getLogger("ti_scorer.factory")

BACKENDS = ("hf", "vllm", "judge", "toy")

# name: (types, default, help)
OPTIONS: Dict[str, tuple] = {
    "backend": (str, None, "hf | vllm | judge | toy"),
    "model": (str, None, "hf: local model folder; vllm/judge: served model name (default: the server's first)"),
    "device": (str, "auto", "hf/toy: auto | cpu | cuda | cuda:N"),
    "dtype": (str, "auto", "hf: auto (bfloat16 on cuda, float32 on cpu) | bfloat16 | float16 | float32"),
    "kind": (str, "auto", "hf: auto | token-classification | qwen-prm | math-shepherd"),
    "separator": (str, None, "step separator text (hf: by kind; vllm: <extra_0>)"),
    "positiveLabel": (int, 1, "hf token-classification: the label index meaning 'step is good'"),
    "trustRemoteCode": (bool, False, "hf: allow the model folder's own code (Qwen2.5-Math-PRM needs it)"),
    "maxLength": (int, None, "token limit (default: from the model / server)"),
    "batchRollouts": (int, 8, "rollouts per forward pass / per /pooling request"),
    "batchTokens": (int, 32768, "hf/toy: padded tokens per forward pass"),
    "observationChars": (int, 2000, "characters kept of each observation output (head + tail)"),
    "systemPrompt": (str, None, "qwen-prm / vllm / judge system prompt"),
    "url": (str, "http://127.0.0.1:8000", "vllm/judge: server base URL"),
    "timeoutS": ((int, float), None, "vllm/judge: HTTP timeout in seconds"),
    "useEnvProxy": (bool, False, "vllm/judge: honour http_proxy/https_proxy"),
    "poolingTask": ((str, type(None)), "token_classify", "vllm: the /pooling task field (null to omit, for vLLM < 0.11)"),
    "positiveIndex": (int, 1, "vllm: column of the 'good' probability in each row"),
    "rowWidth": (int, 2, "vllm: values per /pooling row (2 class probabilities; 1 = one probability per step); other rows are rejected"),
    "apiKeyEnv": (str, "OPENAI_API_KEY", "judge: environment variable holding the API key"),
    "topLogprobs": (int, 20, "judge: top_logprobs asked for"),
    "concurrency": (int, 4, "judge: parallel requests"),
    "seed": (int, 0, "toy: weight seed"),
    "delayMs": ((int, float), 0, "toy: simulated compute time per forward (to try cancel/progress)"),
    "oomAboveTokens": (int, None, "toy: simulate CUDA OOM above this many padded tokens per batch"),
    "maxRequestRollouts": (int, None, "rollouts per score request announced as maxBatchRollouts (toy 64, hf/vllm 32, judge 8)"),
    "maxRequestSteps": (int, None, "steps per score request announced as maxBatchSteps (toy 12800, hf/vllm 4096, judge 256)"),
}

# Default request limits per backend: (maxBatchRollouts, maxBatchSteps). Sized so that one request
# stays well inside the extension's per-request timeout on a GPU (hf/vllm) or with per-step judge calls.
REQUEST_LIMITS = {"toy": (64, 12800), "hf": (32, 4096), "vllm": (32, 4096), "judge": (8, 256)}


def merge_options(cli: Dict[str, Any], init: Dict[str, Any]) -> Dict[str, Any]:
    """CLI options overridden by initialize options; raises -32602 for wrongly typed values."""
    issues: List[Dict[str, str]] = []
    out = {k: v for k, v in cli.items() if v is not None}
    for k, v in (init or {}).items():
        if k not in OPTIONS:
            log.warning("ignoring unknown option %r", k)
            continue
        types = OPTIONS[k][0]
        types = types if isinstance(types, tuple) else (types,)
        ok = v is None or (isinstance(v, types) and not (isinstance(v, bool) and bool not in types))
        if not ok:
            issues.append({"path": f"options.{k}", "message": f"must be {' or '.join(t.__name__ for t in types)}"})
            continue
        if v is not None or type(None) in types:
            out[k] = v  # an explicit null only counts where null means something (poolingTask)
    if issues:
        raise RpcError(INVALID_PARAMS, "invalid initialize options", {"issues": issues})
    for k, (_, default, _) in OPTIONS.items():
        if k not in out and default is not None:
            out[k] = default
    return out


def request_limits(name: str, o: Dict[str, Any]) -> Dict[str, int]:
    r, s = REQUEST_LIMITS[name]
    return {"maxRequestRollouts": o.get("maxRequestRollouts") or r, "maxRequestSteps": o.get("maxRequestSteps") or s}


class EngineBackend:
    """hf/toy: a TokenModel behind the batching Engine."""

    def __init__(self, name: str, engine: Engine, limits: Dict[str, int]):
        self.name = name
        self.engine = engine
        self.limits = limits

    def info(self) -> Dict[str, Any]:
        m = self.engine.model
        return {"backend": self.name, "model": m.model_id, "device": str(m.device), "explanations": False, "labels": False, **self.limits}

    def score(self, rollouts, check_cancel, on_done):
        return self.engine.score(rollouts, check_cancel, on_done)


class HttpBackend:
    """vllm/judge: an HTTP client backend."""

    def __init__(self, name: str, impl: Any, explanations: bool, limits: Dict[str, int]):
        self.name = name
        self.impl = impl
        self.explanations = explanations
        self.limits = limits

    def info(self) -> Dict[str, Any]:
        return {"backend": self.name, "model": self.impl.model, "device": self.impl.url,
                "explanations": self.explanations, "labels": self.explanations, **self.limits}

    def score(self, rollouts, check_cancel, on_done):
        return self.impl.score(rollouts, check_cancel, on_done)


def make_backend(cli: Dict[str, Any], init_options: Dict[str, Any]):
    """The backend the merged options select, loaded and probed. Raises RpcError -32010 (model load
    failed), -32013 (HTTP backend unreachable) or -32602 (bad options)."""
    o = merge_options(cli, init_options)
    name = o.get("backend") or ("hf" if o.get("model") else None)
    if name not in BACKENDS:
        raise model_load_failed(str(o.get("model") or ""), f"no usable backend: {name!r} (choose one of {', '.join(BACKENDS)} with --backend or option 'backend')")
    render = RenderOptions(observation_chars=o["observationChars"])
    if name == "toy":
        from .toy import ToyTokenModel
        try:
            from .hf import pick_device
            device = str(pick_device(o.get("device", "auto")))
        except ValueError as e:
            raise model_load_failed("toy", str(e)) from None
        model = ToyTokenModel(seed=o["seed"], max_length=o.get("maxLength") or (1 << 20), device=device,
                              delay_ms=o["delayMs"], oom_above_tokens=o.get("oomAboveTokens"))
        return EngineBackend("toy", Engine(model, render, o["batchRollouts"], o["batchTokens"]), request_limits("toy", o))
    if name == "hf":
        from .hf import load
        model = load(o)
        return EngineBackend("hf", Engine(model, render, o["batchRollouts"], o["batchTokens"]), request_limits("hf", o))
    if name == "vllm":
        from .vllm_http import VllmPoolingBackend
        impl = VllmPoolingBackend(o)
        impl.probe()
        return HttpBackend("vllm", impl, explanations=False, limits=request_limits("vllm", o))
    from .judge import JudgeBackend
    impl = JudgeBackend(o)
    impl.probe()
    return HttpBackend("judge", impl, explanations=True, limits=request_limits("judge", o))
