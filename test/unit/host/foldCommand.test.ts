/** The fenced command a mini-swe-agent reply became is shown once (as the action), not again in the message. */
import * as assert from 'node:assert/strict';
import { loadFile } from '../../../src/core/load';
import { foldActionBlocks } from '../../../webview/foldCommand';
import { sample } from '../samples';

describe('webview/foldCommand: the command block that became the action', () => {
  it('folds the fenced command out of every mini-swe-agent reply of the real sample, keeping the THOUGHT', async () => {
    const f = await loadFile(sample('mini-swe-agent/harbor-rfc_mini-swe-agent-trajectory.json'));
    const agent = f.rollouts[0].steps.filter((s) => s.role === 'agent' && s.actions.some((a) => a.command));
    assert.ok(agent.length >= 3);
    for (const s of agent) {
      const cmd = s.actions.find((a) => a.command)!.command!.trim();
      assert.ok(s.message.includes(cmd), `#${s.index + 1}: the raw reply holds the command (the duplicate)`);
      const out = foldActionBlocks(s.message, s.actions);
      assert.equal(out.folded, 1, `#${s.index + 1}`);
      assert.ok(!out.text.includes('```'), `#${s.index + 1}: no fence left: ${out.text}`);
      if (s.reasoning) assert.ok(out.text.includes(s.reasoning.trim().slice(0, 40)), `#${s.index + 1}: the THOUGHT stays`);
    }
  });

  it('keeps blocks that are not an action, and a message without actions as written', () => {
    const msg = 'THOUGHT: the bug is here:\n```python\nx = 1\n```\nNow run it.\n```bash\npython x.py\n```';
    const out = foldActionBlocks(msg, [{ command: 'python x.py' }]);
    assert.equal(out.folded, 1);
    assert.equal(out.text, 'THOUGHT: the bug is here:\n```python\nx = 1\n```\nNow run it.');
    assert.deepEqual(foldActionBlocks(msg, []), { text: msg, folded: 0 });
    assert.deepEqual(foldActionBlocks('no fences', [{ command: 'ls' }]), { text: 'no fences', folded: 0 });
  });
});
