"""Scorer backends: ``toy`` (tiny deterministic PyTorch model), ``hf`` (Transformers PRM from a local
path), ``vllm`` (HTTP vLLM ``/pooling`` server) and ``judge`` (OpenAI-compatible chat completions)."""
