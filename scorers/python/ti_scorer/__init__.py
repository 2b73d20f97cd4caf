"""Trajectory Inspector PRM scorer: a JSON-RPC 2.0 child process (scorer protocol v1, LSP framing)
that gives per-step scores for agent rollouts from a process reward model (Transformers), a vLLM
``/pooling`` server, an OpenAI-compatible judge, or a tiny deterministic toy model.

Protocol contract: docs/scorer-protocol.md of the extension (Content-Length framed JSON-RPC on
stdin/stdout, logs on stderr). Only the standard library and PyTorch are needed; transformers is
imported lazily by the ``hf`` backend's loader.
"""

__version__ = "0.1.0"
SCORER_NAME = "ti-scorer-python"
PROTOCOL_VERSION = 1
