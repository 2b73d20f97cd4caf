"""The PyTorch scoring path with the toy causal model (real forwards, real padding)."""
import unittest

import torch

from helpers import rollout
from ti_scorer.backends.hf import HfTokenModel, detect_kind
from ti_scorer.backends.toy import BOS, SEP, ToyTokenModel
from ti_scorer.engine import Engine, encode_rollout, plan_batches
from ti_scorer.protocol import INPUT_TOO_LONG, OUT_OF_MEMORY, RpcError
from ti_scorer.render import RenderOptions, render_rollout


def engine(**kw):
    model_kw = {k: kw.pop(k) for k in list(kw) if k in ("max_length", "oom_above_tokens", "seed")}
    return Engine(ToyTokenModel(**model_kw), RenderOptions(), **kw)


class EngineTest(unittest.TestCase):
    def test_separator_positions_one_per_agent_step(self):
        m = ToyTokenModel()
        r = render_rollout(rollout("r", 5, context_every=2), RenderOptions())
        e = encode_rollout(m, r)
        self.assertEqual(e.ids[0], BOS)
        self.assertEqual(len(e.positions), 5)
        self.assertTrue(all(e.ids[p] == SEP for p in e.positions))
        self.assertEqual(sum(1 for t in e.ids if t == SEP), 5)
        # The text between separators is the step text.
        first = m.tokenizer.decode(e.ids[: e.positions[0]])
        self.assertTrue(first.endswith("$ pytest tests/test_0.py -x -v \nObservation (exit code 0):\n0 passed, 0 failed\n"), first)

    def test_one_pass_equals_per_prefix_scoring(self):
        eng = engine()
        r = rollout("r", 6, context_every=3)
        res = eng.score([r])[0]
        self.assertEqual(eng.forward_calls, 1)
        e = encode_rollout(eng.model, render_rollout(r, RenderOptions()))
        scored = [s["value"] for s in res["steps"] if s["value"] is not None]
        self.assertEqual(len(scored), 6)
        self.assertEqual([s["value"] is None for s in res["steps"]], [s["role"] != "agent" for s in r["steps"]])
        for pos, v in zip(e.positions, scored):
            prefix = torch.tensor([e.ids[: pos + 1]])
            alone = eng.model.step_scores(prefix, torch.ones_like(prefix))[0, -1].item()
            self.assertAlmostEqual(alone, v, places=5)
        self.assertGreater(max(scored) - min(scored), 1e-4, "scores differ between steps")

    def test_batches_sorted_by_length_padding_does_not_change_scores(self):
        rollouts = [rollout(f"r{k}", n, words=w) for k, (n, w) in enumerate([(9, 3), (1, 1), (4, 2), (2, 1), (7, 1)])]
        alone = [engine().score([r])[0] for r in rollouts]
        eng = engine(batch_rollouts=2)
        res = eng.score(rollouts)
        self.assertEqual([r["id"] for r in res], [r["id"] for r in rollouts])
        self.assertEqual(eng.forward_calls, 3)
        shapes = eng.model.batch_shapes
        self.assertEqual([s[0] for s in shapes], [2, 2, 1])
        self.assertEqual([s[1] for s in shapes], sorted(s[1] for s in shapes), "batches go shortest first")
        for a, b in zip(alone, res):
            for x, y in zip(a["steps"], b["steps"]):
                self.assertAlmostEqual(x["value"], y["value"], places=5)
        # token budget: 2 rollouts of the longest length must fit in batch_tokens
        lengths = [100, 10, 60, 50]
        self.assertEqual(plan_batches(lengths, 8, 120), [[1, 3], [2], [0]])

    def test_oom_splits_the_batch_and_gives_the_same_scores(self):
        rollouts = [rollout(f"r{k}", 3 + k) for k in range(4)]
        ref = engine().score(rollouts)
        biggest = max(len(encode_rollout(ToyTokenModel(), render_rollout(r, RenderOptions())).ids) for r in rollouts)
        eng = engine(batch_rollouts=4, oom_above_tokens=2 * biggest)
        self.assertEqual(eng.score(rollouts), ref)
        self.assertEqual(eng.model.batch_shapes[0][0], 4)  # tried all 4 first, then halves
        self.assertTrue(all(s[0] <= 2 for s in eng.model.batch_shapes[1:]))
        with self.assertRaises(RpcError) as cm:
            engine(oom_above_tokens=10).score([rollout("big", 3)])
        self.assertEqual(cm.exception.code, OUT_OF_MEMORY)
        self.assertEqual(cm.exception.data, {"device": "cpu", "batchRollouts": 1, "batchSteps": 3})

    def test_past_the_context_the_steps_inside_keep_their_scores(self):
        r = rollout("long", 6)
        enc = encode_rollout(ToyTokenModel(), render_rollout(r, RenderOptions()))
        full = engine(max_length=len(enc.ids)).score([r])[0]["steps"]
        limit = enc.positions[2] + 1  # steps 0..2 fit, 3..5 do not
        cut = engine(max_length=limit).score([rollout("ok", 1), r])[1]["steps"]
        for a, b in zip(cut[:3], full[:3]):
            self.assertAlmostEqual(a["value"], b["value"], places=5)
        for s in cut[3:]:
            self.assertEqual(s, {"index": s["index"], "value": None, "explanation": f"not scored: beyond model context ({limit} tokens)"})
        # Not even the first step fits: every agent step says why, no forward pass is run.
        eng = engine(max_length=enc.positions[0])
        res = eng.score([r])[0]["steps"]
        self.assertTrue(all(s["value"] is None and s["explanation"].startswith("not scored: beyond model context") for s in res))
        self.assertEqual(eng.forward_calls, 0)

    def test_lone_surrogates_are_replaced_before_tokenising(self):
        r = rollout("s", 2)
        r["steps"][0]["message"] = "half \ud800 a pair"
        r["task"]["instruction"] = "fix \udfff"
        rendered = render_rollout(r, RenderOptions())
        self.assertNotRegex(rendered.instruction + "".join(p.text for p in rendered.parts), "[\ud800-\udfff]")
        res = engine().score([r])[0]
        self.assertEqual(len(res["steps"]), 2)

    def test_rollout_without_agent_steps_needs_no_forward(self):
        eng = engine()
        r = {"id": "ctx", "task": {"id": None, "instruction": None}, "steps": [
            {"index": 3, "role": "user", "message": "hi", "reasoning": None, "actions": [], "observations": [], "durationMs": None}]}
        self.assertEqual(eng.score([r]), [{"id": "ctx", "steps": [{"index": 3, "value": None}]}])
        self.assertEqual(eng.forward_calls, 0)


class FakeTokenizer:
    """Word-level tokenizer standing in for a Transformers tokenizer (encode with add_special_tokens)."""

    def __init__(self):
        self.vocab = {"<pad>": 0, "<s>": 1}
        self.bos_token_id = 1
        self.pad_token_id = 0

    def encode(self, text, add_special_tokens=False):
        ids = []
        for w in text.replace("\n", " \n ").split(" "):
            if w == "":
                continue
            ids.append(self.vocab.setdefault(w, len(self.vocab)))
        return ids


class TinyTokenClassifier(torch.nn.Module):
    """Causal token classifier (running mean of embeddings → 2 logits), output like Transformers'."""

    def __init__(self, vocab=500, classes=2):
        super().__init__()
        torch.manual_seed(1)
        self.emb = torch.nn.Embedding(vocab, 16)
        self.head = torch.nn.Linear(16, classes)

    def forward(self, input_ids, attention_mask):
        h = self.emb(input_ids)
        h = torch.cumsum(h, 1) / torch.arange(1, h.shape[1] + 1).view(1, -1, 1)
        return type("Out", (), {"logits": self.head(h)})()


class HfAdapterTest(unittest.TestCase):
    def test_trl_layout_and_positive_label_readout(self):
        tok = FakeTokenizer()
        m = HfTokenModel(TinyTokenClassifier(), tok, "token-classification", torch.device("cpu"), "tiny", 4096, separator="<sep>")
        r = render_rollout(rollout("r", 3), RenderOptions())
        e = encode_rollout(m, r)
        sep = tok.vocab["<sep>"]
        self.assertEqual(e.ids[0], tok.bos_token_id)  # BOS + prompt, as PRMTrainer.tokenize_row
        self.assertEqual(e.ids[1:1 + len(tok.encode("Make the failing test pass.\n"))], tok.encode("Make the failing test pass.\n"))
        self.assertEqual([e.ids[p] for p in e.positions], [sep] * 3)
        res = Engine(m, RenderOptions()).score([rollout("r", 3)])[0]
        ids = torch.tensor([e.ids])
        probs = torch.softmax(m.model(ids, torch.ones_like(ids)).logits, -1)[0, e.positions, 1].tolist()
        for a, b in zip(probs, [s["value"] for s in res["steps"]]):
            self.assertAlmostEqual(a, b, places=6)

    def test_math_shepherd_readout_normalises_plus_over_minus(self):
        tok = FakeTokenizer()
        m = HfTokenModel(TinyTokenClassifier(classes=500), tok, "math-shepherd", torch.device("cpu"), "tiny", 4096)
        plus, minus = tok.vocab["+"], tok.vocab["-"]
        self.assertEqual(m.candidates, [plus, minus])
        self.assertEqual(m.separator_ids[-1], tok.vocab["ки"])
        self.assertEqual(m.strip, ("ки",))
        ids = torch.tensor([[1, 5, 6, tok.vocab["ки"]]])
        logits = m.model(ids, None).logits[0, -1]
        want = torch.softmax(logits[[plus, minus]], -1)[0].item()
        self.assertAlmostEqual(m.step_scores(ids, torch.ones_like(ids))[0, -1].item(), want, places=6)

    def test_detect_kind(self):
        self.assertEqual(detect_kind(["Qwen2ForProcessRewardModel"]), "qwen-prm")
        self.assertEqual(detect_kind(["Qwen2ForTokenClassification"]), "token-classification")
        self.assertEqual(detect_kind(["MistralForCausalLM"]), "math-shepherd")
        self.assertIsNone(detect_kind(["BertModel"]))


if __name__ == "__main__":
    unittest.main()
