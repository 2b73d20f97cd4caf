"""Shared helpers for the scorer tests: protocol rollouts and a scorer child process client."""

import os
import subprocess
import sys
import threading
import queue

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)  # scorers/python
sys.path.insert(0, ROOT)

from ti_scorer.framing import MessageReader, MessageWriter  # noqa: E402

LAUNCHER = os.path.join(ROOT, "ti-scorer")


def step(index, role="agent", command=None, output=None, exit_code=None, message=None, reasoning=None, kind="shell", tool=None, arguments=None):
    actions = []
    if command is not None or tool is not None:
        actions.append({"kind": kind, "command": command, "tool": tool, "arguments": arguments})
    obs = [] if output is None else [{"output": output, "exitCode": exit_code, "truncated": False}]
    return {"index": index, "role": role, "message": message, "reasoning": reasoning,
            "actions": actions, "observations": obs, "durationMs": None}


def rollout(rid, n_agent, instruction="Make the failing test pass.", context_every=0, words=1):
    """A protocol rollout with n_agent agent steps (commands/outputs vary with the index), and an
    environment step after every ``context_every`` agent steps when > 0."""
    steps = []
    i = 0
    for k in range(n_agent):
        steps.append(step(i, command=f"pytest tests/test_{k}.py -x " + "-v " * words,
                          output=f"{k} passed, {k % 3} failed\n" * words, exit_code=k % 3,
                          reasoning=f"Try test file {k}." if k % 2 else None))
        i += 1
        if context_every and (k + 1) % context_every == 0:
            steps.append(step(i, role="environment", message="note", output=f"disk {k}% full"))
            i += 1
    return {"id": rid, "task": {"id": "t-" + rid, "instruction": instruction}, "steps": steps}


class ScorerProcess:
    """The scorer as a child process (the launcher), spoken to with LSP framing. Messages are read
    on a thread into a queue; ``request`` returns the response to its id and collects notifications."""

    def __init__(self, *args, env=None, cmd=None):
        self.proc = subprocess.Popen(cmd or [sys.executable, LAUNCHER, *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd="/", env=env)
        self.writer = MessageWriter(self.proc.stdin)
        self.reader = MessageReader(self.proc.stdout)
        self.inbox = queue.Queue()
        self.notifications = []
        self.stderr = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr), daemon=True).start()
        self.next_id = 1

    def _read(self):
        import json
        while True:
            try:
                raw = self.reader.read_raw()
            except Exception as e:  # noqa: BLE001
                self.inbox.put(("error", e))
                return
            if raw is None:
                self.inbox.put(("eof", None))
                return
            self.inbox.put(("msg", json.loads(raw.decode("utf-8"))))

    def send(self, msg):
        self.writer.write({"jsonrpc": "2.0", **msg})

    def start(self, method, params=None):
        rid = self.next_id
        self.next_id += 1
        msg = {"id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return rid

    def wait(self, rid, timeout=60, on_notification=None):
        while True:
            kind, m = self.inbox.get(timeout=timeout)
            if kind != "msg":
                raise AssertionError(f"scorer stream ended ({kind} {m}); stderr: {b''.join(self.stderr).decode(errors='replace')[-2000:]}")
            if "id" in m and m["id"] == rid and "method" not in m:
                return m
            if "method" in m:
                self.notifications.append(m)
                if on_notification:
                    on_notification(m)
            else:
                raise AssertionError(f"unexpected message {m}")

    def request(self, method, params=None, timeout=60):
        return self.wait(self.start(method, params), timeout)

    def initialize(self, options=None):
        params = {"protocolVersion": 1, "client": {"name": "test", "version": "0"}}
        if options is not None:
            params["options"] = options
        return self.request("initialize", params)

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                f.close()
            except Exception:  # noqa: BLE001
                pass
