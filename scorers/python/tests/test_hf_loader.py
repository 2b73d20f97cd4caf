"""ti_scorer.backends.hf.load with a stand-in `transformers` module (the real one is not installed on
these machines): kind detection, dtype/device choice, max length, and -32010 for every failure."""
import sys
import tempfile
import types
import unittest
from unittest import mock

import torch

from helpers import rollout
from test_engine import FakeTokenizer, TinyTokenClassifier
from ti_scorer.backends.hf import load
from ti_scorer.engine import Engine
from ti_scorer.protocol import MODEL_LOAD_FAILED, RpcError
from ti_scorer.render import RenderOptions


def fake_transformers(architectures, calls, fail_model=None):
    m = types.ModuleType("transformers")
    m.__version__ = "0-test"

    class AutoConfig:
        @staticmethod
        def from_pretrained(path, **kw):
            calls.append(("config", path, kw))
            return types.SimpleNamespace(architectures=architectures, max_position_embeddings=2048)

    class AutoTokenizer:
        @staticmethod
        def from_pretrained(path, **kw):
            calls.append(("tokenizer", path, kw))
            tok = FakeTokenizer()
            tok.model_max_length = 10 ** 30  # what HF tokenizers report when they do not know
            return tok

    def model_cls(name, classes):
        class Auto:
            @staticmethod
            def from_pretrained(path, **kw):
                calls.append((name, path, kw))
                if fail_model:
                    raise fail_model
                return TinyTokenClassifier(classes=classes)
        return Auto

    m.AutoConfig = AutoConfig
    m.AutoTokenizer = AutoTokenizer
    m.AutoModel = model_cls("AutoModel", 2)
    m.AutoModelForTokenClassification = model_cls("AutoModelForTokenClassification", 2)
    m.AutoModelForCausalLM = model_cls("AutoModelForCausalLM", 500)
    return m


class HfLoaderTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.calls = []

    def tearDown(self):
        self.dir.cleanup()

    def load(self, archs, fail_model=None, **opts):
        with mock.patch.dict(sys.modules, {"transformers": fake_transformers(archs, self.calls, fail_model)}):
            return load({"model": self.dir.name, "device": "cpu", **opts})

    def test_trl_token_classifier_loads_local_only_in_fp32_on_cpu_and_scores(self):
        m = self.load(["Qwen2ForTokenClassification"])
        self.assertEqual(m.kind, "token-classification")
        self.assertEqual((m.device, m.max_length, m.separator_ids), (torch.device("cpu"), 2048, [m.tokenizer.vocab["\n"]]))
        model_call = [c for c in self.calls if c[0] == "AutoModelForTokenClassification"][0]
        self.assertEqual(model_call[2]["torch_dtype"], torch.float32)
        self.assertTrue(all(c[2]["local_files_only"] for c in self.calls))
        self.assertFalse(model_call[2]["trust_remote_code"])
        res = Engine(m, RenderOptions()).score([rollout("r", 3)])[0]
        self.assertEqual(len([s for s in res["steps"] if s["value"] is not None]), 3)

    def test_qwen_prm_needs_trust_remote_code(self):
        with self.assertRaises(RpcError) as cm:
            self.load(["Qwen2ForProcessRewardModel"])
        self.assertEqual(cm.exception.code, MODEL_LOAD_FAILED)
        self.assertIn("trustRemoteCode", cm.exception.data["reason"])
        m = self.load(["Qwen2ForProcessRewardModel"], trustRemoteCode=True, maxLength=999)
        self.assertEqual((m.kind, m.max_length), ("qwen-prm", 999))
        self.assertEqual(m.separator_ids, [m.tokenizer.vocab["<extra_0>"]])
        self.assertEqual(m.strip, ("<extra_0>",))
        # No chat template on the stand-in tokenizer: the ChatML fallback is used.
        ids = m.prompt_ids("fix it")
        self.assertIn(m.tokenizer.vocab["<|im_start|>assistant"], ids)

    def test_causal_lm_is_math_shepherd_and_failures_are_model_load_failed(self):
        self.assertEqual(self.load(["MistralForCausalLM"]).kind, "math-shepherd")
        with self.assertRaises(RpcError) as cm:
            self.load(["BertModel"])
        self.assertIn("cannot tell the PRM kind", cm.exception.data["reason"])
        with self.assertRaises(RpcError) as cm:
            self.load(["LlamaForTokenClassification"], fail_model=OSError("no file named model.safetensors"))
        self.assertEqual(cm.exception.data, {"model": self.dir.name, "reason": "OSError: no file named model.safetensors"})
        if not torch.cuda.is_available():
            with self.assertRaises(RpcError) as cm:
                self.load(["LlamaForTokenClassification"], device="cuda")
            self.assertIn("cuda", cm.exception.data["reason"])


if __name__ == "__main__":
    unittest.main()
