import unittest

from fake_servers import MODEL, FakeServer, dead_url
from helpers import rollout, step
from ti_scorer.backends.factory import make_backend
from ti_scorer.backends.judge import parse_verdict
from ti_scorer.protocol import BACKEND_UNAVAILABLE, INPUT_TOO_LONG, INTERNAL_ERROR, RpcError

NOOP = lambda: None  # noqa: E731


class VllmPoolingTest(unittest.TestCase):
    def setUp(self):
        self.srv = FakeServer()

    def tearDown(self):
        self.srv.close()

    def test_one_request_per_batch_rows_mapped_to_agent_steps(self):
        b = make_backend({}, {"backend": "vllm", "url": self.srv.url, "batchRollouts": 2})
        self.assertEqual(b.info()["model"], MODEL)
        rs = [rollout(f"r{k}", 3 + k, context_every=2) for k in range(3)]
        progress = []
        res = b.score(rs, NOOP, lambda fin, done: progress.append((done, [r["id"] for r in fin])))
        posts = [body for path, body in self.srv.state.requests if path == "/pooling"]
        self.assertEqual([len(p["input"]) for p in posts], [2, 1])
        self.assertTrue(all(p["task"] == "token_classify" and p["model"] == MODEL for p in posts))
        text = posts[0]["input"][0]
        self.assertTrue(text.startswith("<|im_start|>system\n"))
        self.assertIn("<|im_start|>user\nMake the failing test pass.<|im_end|>\n<|im_start|>assistant\n", text)
        for r_in, r_out in zip(rs, res):
            self.assertEqual([s["index"] for s in r_out["steps"]], [s["index"] for s in r_in["steps"]])
            for s_in, s_out in zip(r_in["steps"], r_out["steps"]):
                if s_in["role"] != "agent":
                    self.assertIsNone(s_out["value"])
                else:
                    want = 0.9 if s_in["observations"][0]["exitCode"] == 0 else 0.2
                    self.assertEqual(s_out["value"], want)
        self.assertEqual(progress[-1][0], sum(len(r["steps"]) for r in rs))

    def test_pooling_task_can_be_left_out_for_older_vllm(self):
        b = make_backend({}, {"backend": "vllm", "url": self.srv.url, "poolingTask": None, "positiveIndex": 0})
        res = b.score([rollout("r", 2)], NOOP, None)[0]
        body = [b for p, b in self.srv.state.requests if p == "/pooling"][0]
        self.assertNotIn("task", body)
        self.assertEqual([s["value"] for s in res["steps"]], [0.1, 0.8])  # column 0 of [0.1, 0.9] / [0.8, 0.2]

    def test_separator_in_rollout_text_is_removed_so_rows_match(self):
        b = make_backend({}, {"backend": "vllm", "url": self.srv.url})
        r = {"id": "x", "task": {"id": None, "instruction": "do <extra_0> it"},
             "steps": [step(0, command="echo '<extra_0>'", output="<extra_0>", exit_code=0)]}
        self.assertEqual(b.score([r], NOOP, None)[0]["steps"][0]["value"], 0.9)

    def test_row_count_mismatch_is_an_error(self):
        b = make_backend({}, {"backend": "vllm", "url": self.srv.url})
        self.srv.state.drop_row = True
        with self.assertRaises(RpcError) as cm:
            b.score([rollout("r", 3)], NOOP, None)
        self.assertEqual(cm.exception.code, INTERNAL_ERROR)
        self.assertEqual(cm.exception.data, {"rolloutId": "r", "rows": 2, "steps": 3})

    def test_too_long_for_the_server(self):
        b = make_backend({}, {"backend": "vllm", "url": self.srv.url, "observationChars": 100000})
        big = {"id": "big", "task": {"id": None, "instruction": "x"}, "steps": [step(0, command="cat", output="z" * 30000)]}
        res = b.score([rollout("small", 1), big], NOOP, None)
        # Not even its first step fits: nothing scored, each agent step says why.
        self.assertEqual(res[1]["steps"], [{"index": 0, "value": None, "explanation": "not scored: beyond model context (the server's limit is 4096 tokens)"}])
        self.assertIsNotNone(res[0]["steps"][0]["value"])

    def _long(self):
        """A 50-agent-step rollout whose text is over the fake server's 20,000 characters."""
        steps = [step(i, command=f"pytest tests/test_{i}.py", output=("ok " * 120) + ("exit code 0" if i % 3 else "boom"), exit_code=0 if i % 3 else 1)
                 for i in range(50)]
        return {"id": "long", "task": {"id": None, "instruction": "Fix it."}, "steps": steps}

    def _check_prefix(self, res, r):
        vals = [s["value"] for s in res["steps"]]
        scored = [v for v in vals if v is not None]
        self.assertTrue(5 < len(scored) < 50, vals)
        # The scored steps are the first ones, each with ITS OWN score (never another step's).
        self.assertEqual(vals[: len(scored)], scored)
        for s_in, v in zip(r["steps"][: len(scored)], scored):
            self.assertEqual(v, 0.9 if "exit code 0" in s_in["observations"][0]["output"] else 0.2)
        for s in res["steps"][len(scored):]:
            self.assertIsNone(s["value"])
            self.assertTrue(s["explanation"].startswith("not scored: beyond model context"), s)

    def test_past_the_context_the_prefix_that_fits_is_scored(self):
        b = make_backend({}, {"backend": "vllm", "url": self.srv.url})
        r = self._long()
        self._check_prefix(b.score([r], NOOP, None)[0], r)

    def test_a_server_that_truncates_gets_the_prefix_re_asked(self):
        b = make_backend({}, {"backend": "vllm", "url": self.srv.url})
        self.srv.state.truncate_chars = 15000
        r = self._long()
        self._check_prefix(b.score([r], NOOP, None)[0], r)

    def test_malformed_rows_are_rejected_with_a_short_reason(self):
        b = make_backend({}, {"backend": "vllm", "url": self.srv.url})
        cases = {"hidden": "has 4096 values, expected 2", "logits": "outside [0, 1]", "unnormalised": "sums to 1.5, not 1", "flat": "is float 0.61, expected a list of 2"}
        for mode, want in cases.items():
            self.srv.state.row_mode = mode
            with self.assertRaises(RpcError) as cm:
                b.score([rollout("r", 3)], NOOP, None)
            self.assertEqual(cm.exception.code, INTERNAL_ERROR)
            self.assertIn(want, cm.exception.message, mode)
            self.assertLess(len(cm.exception.message), 300, cm.exception.message)
        # One probability per step, as configured: accepted.
        b1 = make_backend({}, {"backend": "vllm", "url": self.srv.url, "rowWidth": 1, "positiveIndex": 0})
        self.srv.state.row_mode = "flat"
        self.assertEqual([s["value"] for s in b1.score([rollout("r", 2)], NOOP, None)[0]["steps"]], [0.61, 0.61])

    def test_lone_surrogates_are_replaced_before_sending(self):
        b = make_backend({}, {"backend": "vllm", "url": self.srv.url})
        r = {"id": "s\ud800", "task": {"id": None, "instruction": "fix \udc00 it"},
             "steps": [step(0, command="echo '\ud83d'", output="bad \udfff byte exit code 0", exit_code=0, message="half \ud800 pair")]}
        res = b.score([r], NOOP, None)[0]
        self.assertEqual(res["id"], "s\ud800")  # ids are echoed as given
        self.assertEqual(res["steps"][0]["value"], 0.9)
        text = [body for path, body in self.srv.state.requests if path == "/pooling"][-1]["input"][0]
        self.assertNotRegex(text, "[\ud800-\udfff]")
        self.assertIn("\ufffd", text)

    def test_backend_down(self):
        url = dead_url()
        with self.assertRaises(RpcError) as cm:
            make_backend({}, {"backend": "vllm", "url": url})
        self.assertEqual(cm.exception.code, BACKEND_UNAVAILABLE)
        self.assertEqual(cm.exception.data["url"], url + "/v1/models")
        self.assertIn("refused", cm.exception.data["reason"].lower())
        b = make_backend({}, {"backend": "vllm", "url": self.srv.url})
        self.srv.close()
        with self.assertRaises(RpcError) as cm:
            b.score([rollout("r", 1)], NOOP, None)
        self.assertEqual(cm.exception.code, BACKEND_UNAVAILABLE)
        self.srv = FakeServer()


class JudgeTest(unittest.TestCase):
    def setUp(self):
        self.srv = FakeServer()

    def tearDown(self):
        self.srv.close()

    def test_one_request_per_agent_step_with_the_prefix(self):
        b = make_backend({}, {"backend": "judge", "url": self.srv.url, "model": "judge-model"})
        r = rollout("r", 4, context_every=2)
        res = b.score([r], NOOP, None)[0]
        posts = [body for path, body in self.srv.state.requests if path == "/v1/chat/completions"]
        self.assertEqual(len(posts), 4)
        for p in posts:
            self.assertEqual((p["logprobs"], p["top_logprobs"], p["max_tokens"], p["model"]), (True, 20, 1, "judge-model"))
        prompts = sorted(p["messages"][-1]["content"] for p in posts)
        self.assertEqual(sorted(x.count("### Step") for x in prompts), [1, 2, 4, 5])
        good = (0.8 + 0.03) / (0.8 + 0.03 + 0.15)
        bad = (0.1 + 0.03) / (0.1 + 0.03 + 0.85)
        for s_in, s_out in zip(r["steps"], res["steps"]):
            if s_in["role"] != "agent":
                self.assertIsNone(s_out["value"])
                continue
            ok = s_in["observations"][0]["exitCode"] == 0
            self.assertAlmostEqual(s_out["value"], good if ok else bad, places=9)
            self.assertEqual(s_out["label"], "good" if ok else "bad")
            self.assertIn("P(good)=", s_out["explanation"])

    def test_without_logprobs_the_verdict_word_counts(self):
        b = make_backend({}, {"backend": "judge", "url": self.srv.url})
        self.srv.state.no_logprobs = True
        res = b.score([rollout("r", 2)], NOOP, None)[0]
        self.assertEqual([s["value"] for s in res["steps"]], [1.0, 0.0])
        self.assertEqual(parse_verdict({"choices": [{"message": {"content": "unsure"}}]})[0], None)

    def test_judge_down(self):
        with self.assertRaises(RpcError) as cm:
            make_backend({}, {"backend": "judge", "url": dead_url()})
        self.assertEqual(cm.exception.code, BACKEND_UNAVAILABLE)


if __name__ == "__main__":
    unittest.main()
