"""The scorer as a child process, spoken to over LSP-framed stdio (scorer protocol v1)."""
import json
import os
import tempfile
import unittest

from fake_servers import dead_url
from helpers import ScorerProcess, rollout


class ProtocolTest(unittest.TestCase):
    def setUp(self):
        self.p = None

    def tearDown(self):
        if self.p:
            self.p.close()

    def test_lifecycle_score_progress_shutdown_exit(self):
        self.p = p = ScorerProcess("--backend", "toy")
        early = p.request("score", {"rollouts": []})
        self.assertEqual(early["error"]["code"], -32002)
        init = p.initialize({"batchRollouts": 1})["result"]
        self.assertEqual(init["protocolVersion"], 1)
        self.assertEqual(init["scoreRange"], [0, 1])
        self.assertEqual(init["device"], "cpu")
        self.assertEqual((init["maxBatchRollouts"], init["maxBatchSteps"]), (64, 12800))
        self.assertTrue(init["capabilities"]["progress"] and init["capabilities"]["cancel"])
        self.assertEqual(p.initialize()["error"]["code"], -32600)
        rs = [rollout("a", 3, context_every=1), rollout("b", 1)]
        res = p.request("score", {"rollouts": rs, "partialResultToken": "tok"})["result"]
        self.assertEqual([r["id"] for r in res["rollouts"]], ["a", "b"])
        a = res["rollouts"][0]["steps"]
        self.assertEqual([s["index"] for s in a], [s["index"] for s in rs[0]["steps"]])
        self.assertEqual([s["value"] is None for s in a], [False, True] * 3)
        for s in a:
            if s["value"] is not None:
                self.assertTrue(0 <= s["value"] <= 1)
        prog = [n["params"] for n in p.notifications if n["method"] == "$/progress"]
        self.assertEqual([x["token"] for x in prog], ["tok", "tok"])
        self.assertEqual([x["value"]["done"] for x in prog], [1, 7])  # shortest rollout first
        self.assertEqual(prog[-1]["value"]["total"], 7)
        self.assertEqual(prog[0]["value"]["rollouts"], [res["rollouts"][1]])
        # Same input, same scores (deterministic model).
        again = p.request("score", {"rollouts": rs})["result"]
        self.assertEqual(again, res)
        self.assertEqual(p.request("nope")["error"]["code"], -32601)
        self.assertIsNone(p.request("shutdown")["result"])
        self.assertEqual(p.request("score", {"rollouts": []})["error"]["code"], -32600)
        p.send({"method": "exit"})
        self.assertEqual(p.proc.wait(10), 0)

    def test_invalid_params_and_bad_messages(self):
        self.p = p = ScorerProcess("--backend", "toy")
        p.initialize()
        bad = rollout("a", 2)
        bad["steps"][1]["role"] = "robot"
        bad["steps"][0]["observations"][0]["exitCode"] = "1"
        err = p.request("score", {"rollouts": [bad, {"id": "a", "task": {}, "steps": "x"}]})["error"]
        self.assertEqual(err["code"], -32602)
        paths = [i["path"] for i in err["data"]["issues"]]
        self.assertEqual(paths, ["rollouts[0].steps[0].observations[0].exitCode", "rollouts[0].steps[1].role",
                                 "rollouts[1].id", "rollouts[1].steps"])
        self.assertEqual(p.request("score", [1])["error"]["code"], -32602)
        # Odd cancel notifications and unknown notifications are ignored; the scorer keeps serving.
        p.send({"method": "$/cancelRequest", "params": [1]})
        p.send({"method": "$/cancelRequest"})
        p.send({"method": "initialized", "params": {}})
        # Malformed JSON in a well-framed message → ParseError, and the scorer keeps serving.
        body = b'{"jsonrpc":"2.0","id":99,"method":'
        p.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        p.proc.stdin.flush()
        kind, m = p.inbox.get(timeout=30)
        self.assertEqual((m["id"], m["error"]["code"]), (None, -32700))
        self.assertEqual(len(p.request("score", {"rollouts": [rollout("ok", 1)]})["result"]["rollouts"]), 1)
        # exit without shutdown → exit code 1 (LSP)
        p.send({"method": "exit"})
        self.assertEqual(p.proc.wait(10), 1)

    def test_cancel_while_scoring(self):
        self.p = p = ScorerProcess("--backend", "toy", "--delay-ms", "200")
        p.initialize({"batchRollouts": 1})
        rs = [rollout(f"r{k}", 2) for k in range(30)]
        rid = p.start("score", {"rollouts": rs, "partialResultToken": 5})

        def cancel_on_first_progress(n):
            if n["method"] == "$/progress" and len(p.notifications) == 1:
                p.send({"method": "$/cancelRequest", "params": {"id": rid}})

        resp = p.wait(rid, on_notification=cancel_on_first_progress)
        self.assertEqual(resp["error"]["code"], -32800)
        done = [n["params"]["value"]["done"] for n in p.notifications]
        self.assertLess(done[-1], 60)
        # A queued request cancelled before it starts is answered -32800 too; the next one works.
        slow = p.start("score", {"rollouts": rs[:3]})
        queued = p.start("score", {"rollouts": rs[:1]})
        p.send({"method": "$/cancelRequest", "params": {"id": queued}})
        self.assertIn("result", p.wait(slow))
        self.assertEqual(p.wait(queued)["error"]["code"], -32800)
        self.assertIn("result", p.request("score", {"rollouts": rs[:1]}))

    def test_initialize_options_override_cli_and_errors(self):
        self.p = p = ScorerProcess("--backend", "hf", "--model", "/nonexistent/prm")
        err = p.initialize()["error"]
        self.assertEqual(err["code"], -32010)
        self.assertEqual(err["data"]["model"], "/nonexistent/prm")
        self.assertIn("not a folder", err["data"]["reason"])
        with tempfile.TemporaryDirectory() as d:
            err = p.initialize({"model": d})["error"]
            self.assertEqual(err["code"], -32010)
            self.assertEqual(err["data"]["model"], d)
            try:
                import transformers  # noqa: F401
            except ImportError:
                self.assertIn("transformers is not installed", err["data"]["reason"])
        self.assertEqual(p.initialize({"batchRollouts": "many"})["error"]["code"], -32602)
        url = dead_url()
        err = p.initialize({"backend": "vllm", "url": url})["error"]
        self.assertEqual(err["code"], -32013)
        self.assertEqual(err["data"]["url"], url + "/v1/models")
        ok = p.initialize({"backend": "toy", "seed": 3, "maxLength": 50})["result"]
        self.assertEqual(ok["model"], "toy-causal-prm(seed=3)")
        # Past maxLength: the steps beyond the context are not scored, and say so (not an error).
        res = p.request("score", {"rollouts": [rollout("long", 2)]})["result"]["rollouts"][0]["steps"]
        self.assertTrue(all(s["value"] is None for s in res))
        self.assertEqual(res[-1]["explanation"], "not scored: beyond model context (50 tokens)")

    def test_request_limits_are_announced_and_enforced(self):
        self.p = p = ScorerProcess("--backend", "toy")
        init = p.initialize({"maxRequestRollouts": 2, "maxRequestSteps": 5})["result"]
        self.assertEqual((init["maxBatchRollouts"], init["maxBatchSteps"]), (2, 5))
        err = p.request("score", {"rollouts": [rollout(f"r{k}", 1) for k in range(3)]})["error"]
        self.assertEqual(err["code"], -32602)
        self.assertIn("maxBatchRollouts", err["data"]["issues"][0]["message"])
        err = p.request("score", {"rollouts": [rollout("r", 6)]})["error"]
        self.assertIn("maxBatchSteps", err["data"]["issues"][0]["message"])
        self.assertIn("result", p.request("score", {"rollouts": [rollout("a", 2), rollout("b", 3)]}))

    def test_oom_error_code(self):
        self.p = p = ScorerProcess("--backend", "toy")
        p.initialize({"oomAboveTokens": 20})
        err = p.request("score", {"rollouts": [rollout("r", 2)]})["error"]
        self.assertEqual(err["code"], -32011)
        self.assertEqual(err["data"], {"device": "cpu", "batchRollouts": 1, "batchSteps": 2})

    def test_stdout_carries_only_protocol_frames(self):
        # A library printing to stdout (Python print or a raw write to fd 1) must not corrupt the
        # stream: the scorer keeps a private copy of fd 1 for frames and points fd 1 at stderr.
        import sys
        code = ("import sys, os; sys.path.insert(0, %r)\n"
                "import ti_scorer.backends.toy as toy\n"
                "orig = toy.ToyTokenModel.step_scores\n"
                "def noisy(self, *a):\n"
                "    print('NOISE FROM A LIBRARY'); os.write(1, b'RAW FD1 NOISE\\n'); return orig(self, *a)\n"
                "toy.ToyTokenModel.step_scores = noisy\n"
                "from ti_scorer.__main__ import main\nmain(['--backend', 'toy'])\n") % os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        self.p = p = ScorerProcess(cmd=[sys.executable, "-c", code])
        self.assertIn("result", p.initialize())
        self.assertEqual(len(p.request("score", {"rollouts": [rollout("r", 2)]})["result"]["rollouts"][0]["steps"]), 2)
        self.assertIsNone(p.request("shutdown")["result"])
        p.send({"method": "exit"})
        self.assertEqual(p.proc.wait(10), 0)
        import time
        for _ in range(50):
            if b"RAW FD1 NOISE" in b"".join(p.stderr):
                break
            time.sleep(0.1)
        err = b"".join(p.stderr)
        self.assertIn(b"NOISE FROM A LIBRARY", err)
        self.assertIn(b"RAW FD1 NOISE", err)


if __name__ == "__main__":
    unittest.main()
