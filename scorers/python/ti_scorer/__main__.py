"""Entry point: ``python3 -m ti_scorer --backend hf|vllm|judge|toy --model PATH …`` (or the
``scorers/python/ti-scorer`` launcher). Speaks scorer protocol v1 on stdin/stdout; logs to stderr.

Before anything else, file descriptor 1 is duplicated for the protocol and fd 1 is pointed at stderr,
so a stray ``print`` or a library writing to stdout cannot corrupt the message stream.
"""

import argparse
import logging
import os
import sys


def parse_args(argv):
    p = argparse.ArgumentParser(prog="ti-scorer", description="Trajectory Inspector PRM scorer (scorer protocol v1 over stdio)")
    p.add_argument("--backend", choices=["hf", "vllm", "judge", "toy"])
    p.add_argument("--model", help="hf: local model folder; vllm/judge: served model name")
    p.add_argument("--device", help="auto | cpu | cuda | cuda:N")
    p.add_argument("--dtype", help="auto | bfloat16 | float16 | float32")
    p.add_argument("--kind", help="hf: auto | token-classification | qwen-prm | math-shepherd")
    p.add_argument("--separator", help="step separator text")
    p.add_argument("--trust-remote-code", dest="trustRemoteCode", action="store_const", const=True)
    p.add_argument("--max-length", dest="maxLength", type=int)
    p.add_argument("--batch-rollouts", dest="batchRollouts", type=int)
    p.add_argument("--batch-tokens", dest="batchTokens", type=int)
    p.add_argument("--observation-chars", dest="observationChars", type=int)
    p.add_argument("--url", help="vllm/judge: server base URL")
    p.add_argument("--timeout-s", dest="timeoutS", type=float)
    p.add_argument("--seed", type=int, help="toy: weight seed")
    p.add_argument("--delay-ms", dest="delayMs", type=float, help="toy: simulated compute per forward")
    p.add_argument("--log-level", default=os.environ.get("TI_SCORER_LOG", "INFO"))
    return p.parse_args(argv)


def main(argv=None) -> int:
    proto_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    os.environ.setdefault("VLLM_LOGGING_STREAM", "ext://sys.stderr")
    args = parse_args(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, str(args.log_level).upper(), logging.INFO),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    cli = {k: v for k, v in vars(args).items() if k != "log_level" and v is not None}

    from .backends.factory import make_backend
    from .framing import MessageReader, MessageWriter
    from .server import Server

    def exit_now(code: int) -> None:
        try:
            proto_out.flush()
        finally:
            sys.stderr.flush()
            os._exit(code)

    server = Server(MessageReader(sys.stdin.buffer), MessageWriter(proto_out), lambda opts: make_backend(cli, opts), exit_now)
    return server.serve()


if __name__ == "__main__":
    sys.exit(main())
