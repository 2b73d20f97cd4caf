"""A local HTTP server (127.0.0.1, random port) that answers like vLLM's /v1/models and /pooling
(STEP pooler: one [p_neg, p_pos] row per <extra_0> in the input) and like an OpenAI-compatible
/v1/chat/completions with logprobs. Response shapes: docs/reference/scorer.md §2.2 and §3.

Scores it gives: a step whose text says "exit code 0" is good (pooling p_pos 0.9; judge top
logprobs good 0.8 / bad 0.15 / " Good" 0.03), any other step is bad (0.2; judge good 0.1 / bad 0.85)."""

import json
import math
import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL = "Qwen/Qwen2.5-Math-PRM-7B"
MAX_CHARS = 20000  # inputs longer than this get vLLM's "maximum context length" 400


class FakeState:
    def __init__(self):
        self.requests = []
        self.drop_row = False
        self.no_logprobs = False
        # Malformed replies: "hidden" (4096 floats per step, an embedding pooler), "logits" (2 values
        # outside [0, 1]), "unnormalised" (2 values in [0, 1] not summing to 1), "flat" (a number).
        self.row_mode = None
        # > 0: the server truncates every input to this many characters (rows only for the steps kept).
        self.truncate_chars = 0


def make_handler(state):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def _json(self, status, obj):
            body = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            if self.path == "/v1/models":
                return self._json(200, {"object": "list", "data": [{"id": MODEL, "object": "model", "max_model_len": 4096}]})
            self._json(404, {"error": "not found"})

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append((self.path, body))
            if self.path == "/pooling":
                inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                for t in inputs:
                    if len(t) > MAX_CHARS:
                        return self._json(400, {"object": "error", "type": "BadRequestError", "code": 400, "message":
                            f"This model's maximum context length is 4096 tokens. However, you requested {len(t) // 4} tokens in the input for embedding generation. Please reduce the length of the input."})
                data = []
                for k, t in enumerate(inputs):
                    if state.truncate_chars:
                        t = t[: state.truncate_chars]
                    segs = t.split("<extra_0>")[:-1]
                    rows = [[0.1, 0.9] if "exit code 0" in s else [0.8, 0.2] for s in segs]
                    if state.row_mode == "hidden":
                        rows = [[((i * 7919) % 1000) / 100.0 - 3.0 for i in range(4096)] for _ in segs]
                    elif state.row_mode == "logits":
                        rows = [[-2.3, 4.1] for _ in segs]
                    elif state.row_mode == "unnormalised":
                        rows = [[0.6, 0.9] for _ in segs]
                    elif state.row_mode == "flat":
                        rows = [0.61 for _ in segs]
                    if state.drop_row:
                        rows = rows[:-1]
                    data.append({"index": k, "object": "pooling", "data": rows})
                return self._json(200, {"id": "pool-1", "object": "list", "created": 1, "model": MODEL, "data": data,
                                        "usage": {"prompt_tokens": 10, "total_tokens": 10, "completion_tokens": 0}})
            if self.path == "/v1/chat/completions":
                text = body["messages"][-1]["content"]
                last = text.rsplit("### Step", 1)[1]
                good = "exit code 0" in last
                pg, pb = (0.8, 0.15) if good else (0.1, 0.85)
                word = "good" if good else "bad"
                choice = {"index": 0, "message": {"role": "assistant", "content": word}, "finish_reason": "length"}
                if not state.no_logprobs:
                    choice["logprobs"] = {"content": [{"token": word, "logprob": math.log(max(pg, pb)), "bytes": list(word.encode()),
                                                       "top_logprobs": [{"token": "good", "logprob": math.log(pg)},
                                                                        {"token": "bad", "logprob": math.log(pb)},
                                                                        {"token": " Good", "logprob": math.log(0.03)},
                                                                        {"token": "maybe", "logprob": math.log(0.02)}]}]}
                return self._json(200, {"id": "c1", "object": "chat.completion", "model": body.get("model"), "choices": [choice]})
            self._json(404, {"error": "not found"})

    return Handler


class FakeServer:
    def __init__(self):
        self.state = FakeState()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(self.state))
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def dead_url():
    """A 127.0.0.1 URL where nothing listens."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"http://127.0.0.1:{port}"


if __name__ == "__main__":  # python3 fake_servers.py [row_mode] (the integration tests start it so)
    import sys
    srv = FakeServer()
    if len(sys.argv) > 1 and sys.argv[1] != "good":
        srv.state.row_mode = sys.argv[1]
    print(srv.url, flush=True)
    srv.thread.join()
