#!/usr/bin/env bash
# GPU check of the Python PRM scorer: steps/s by batch size and one-pass vs per-prefix time ratio,
# on a randomly initialised Qwen2-shaped token-classification model (no downloads). Writes a section
# of bench/results/gpu_scorer.md.
#   GPU machine (PyTorch 2.x + transformers):  bash bench/gpu_scorer.sh            (7B shape, bf16)
#                                               bash bench/gpu_scorer.sh --size 1.5b
#   CPU smoke run (here):                       bash bench/gpu_scorer.sh --device cpu --tiny
# Env: PYTHON = interpreter (default: the first of python3, /usr/bin/python3 that imports torch).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-}"
if [[ -z "$PY" ]]; then
  for cand in python3 /usr/bin/python3; do
    if command -v "$cand" >/dev/null && "$cand" -c 'import torch' 2>/dev/null; then PY="$cand"; break; fi
  done
fi
[[ -n "$PY" ]] || { echo "gpu_scorer: no Python with torch found (set PYTHON=...)" >&2; exit 1; }
echo "gpu_scorer: $("$PY" -c 'import sys, torch; print(sys.executable, "torch", torch.__version__, "cuda" if torch.cuda.is_available() else "no cuda")')" >&2
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader >&2 || true
exec "$PY" bench/gpu_scorer.py "$@"
