import unittest

from helpers import rollout, step
from ti_scorer.render import RenderOptions, cut_middle, render_rollout, render_text, step_text


class RenderTest(unittest.TestCase):
    def test_agent_step_layout(self):
        s = step(0, command="ls -la", output="a\nb", exit_code=2, message="Listing files.", reasoning="Need to look around.")
        self.assertEqual(step_text(s, RenderOptions()),
                         "Thought: Need to look around.\nListing files.\n$ ls -la\nObservation (exit code 2):\na\nb")
        t = step(1, kind="tool", tool="str_replace_editor", arguments='{"path":"a.py"}', output="ok")
        self.assertEqual(step_text(t, RenderOptions()), 'Tool call: str_replace_editor {"path":"a.py"}\nObservation:\nok')
        k = step(2, kind="keys", command="C-c")
        self.assertEqual(step_text(k, RenderOptions()), "Keys: C-c")

    def test_context_steps_and_separator_after_agent_steps_only(self):
        r = rollout("r", 3, context_every=1)
        rendered = render_rollout(r, RenderOptions())
        self.assertEqual([p.scored for p in rendered.parts], [True, False] * 3)
        self.assertEqual(rendered.scored_indexes, [0, 2, 4])
        text = render_text(rendered, "P:", "<extra_0>")
        self.assertEqual(text.count("<extra_0>"), 3)
        self.assertTrue(text.startswith("P:Thought") or text.startswith("P:$ pytest"))
        self.assertIn("Environment: note\nOutput:\ndisk 0% full\n", text)

    def test_observation_cut_and_separator_removed_from_text(self):
        out = "x" * 5000 + "<extra_0>" + "y" * 5000
        s = step(0, command="cat big <extra_0>", output=out)
        text = step_text(s, RenderOptions(observation_chars=100, strip=("<extra_0>",)))
        self.assertNotIn("<extra_0>", text)
        self.assertIn("$ cat big \n", text)
        self.assertIn("…[9909 chars cut]…", text)
        self.assertEqual(cut_middle("abcdef", 4), "ab\n…[2 chars cut]…\nef")
        self.assertEqual(cut_middle("abc", 0), "abc")
        # Removal cannot leave a new separator behind.
        s2 = step(0, command="<extra<extra_0>_0>")
        self.assertNotIn("<extra_0>", step_text(s2, RenderOptions(strip=("<extra_0>",))))


if __name__ == "__main__":
    unittest.main()
