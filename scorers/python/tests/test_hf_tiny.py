"""The ``hf`` path with transformers' own Qwen2 token-classification architecture built from a tiny
config (random weights, no download), on the CPU: a rollout past its context keeps the scores of the
steps inside it (the same values as scored alone) and marks the rest. Needs ``transformers`` (and
``tokenizers``); skipped with the reason when they are not installed (Debian's python3-torch comes
without them). The GPU run of the same path is bench/gpu_scorer.sh."""

import unittest

from helpers import rollout

try:
    import torch  # noqa: F401
    import transformers  # noqa: F401
    from tokenizers import Tokenizer, models, pre_tokenizers
    MISSING = None
except ImportError as e:  # pragma: no cover - depends on the machine
    MISSING = f"transformers/tokenizers not installed ({e}): the hf path with a tiny config-built Qwen2 model is not run"


@unittest.skipIf(MISSING is not None, MISSING or "")
class TinyQwen2Test(unittest.TestCase):
    def model(self, max_length):
        from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForTokenClassification
        from ti_scorer.backends.hf import HfTokenModel
        words = ["[UNK]", "[PAD]", "[BOS]", "\n"] + [f"w{i}" for i in range(200)]
        vocab = {w: i for i, w in enumerate(words)}
        tk = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
        tk.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
        tok = PreTrainedTokenizerFast(tokenizer_object=tk, unk_token="[UNK]", pad_token="[PAD]", bos_token="[BOS]")
        cfg = Qwen2Config(vocab_size=len(words), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                          num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=4096, num_labels=2)
        torch.manual_seed(0)
        m = Qwen2ForTokenClassification(cfg).eval()
        return HfTokenModel(m, tok, "token-classification", torch.device("cpu"), "tiny-qwen2", max_length, separator="w0")

    def test_scores_inside_the_context_and_marks_the_rest(self):
        from ti_scorer.engine import Engine, encode_rollout
        from ti_scorer.render import RenderOptions, render_rollout
        r = rollout("r", 6)
        full_model = self.model(4096)
        enc = encode_rollout(full_model, render_rollout(r, RenderOptions(strip=full_model.strip)))
        full = Engine(full_model, RenderOptions()).score([r])[0]["steps"]
        self.assertTrue(all(0.0 <= s["value"] <= 1.0 for s in full))
        cut_model = self.model(enc.positions[2] + 1)
        cut = Engine(cut_model, RenderOptions()).score([r])[0]["steps"]
        for a, b in zip(cut[:3], full[:3]):
            self.assertAlmostEqual(a["value"], b["value"], places=4)
        self.assertTrue(all(s["value"] is None and s["explanation"].startswith("not scored: beyond model context") for s in cut[3:]))


if __name__ == "__main__":
    unittest.main()
