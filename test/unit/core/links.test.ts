/** Following a RolloutLink to its rollout and step in a loaded file (src/core/links.ts). */
import * as assert from 'node:assert/strict';
import { findLinkTarget } from '../../../src/core/links';
import { loadFile } from '../../../src/core/load';
import { sample } from '../samples';

describe('findLinkTarget', () => {
  it('finds the rollout by id and the step by index or by the call that started the target', async () => {
    // A NeMo-Gym Responses dump: several rollouts, steps with function call ids.
    const f = await loadFile(sample('openai-responses/nemo-gym_example_tool_call_multireward_example_rollouts.jsonl'));
    assert.ok(f.rollouts.length > 1);
    const r = f.rollouts[1];
    const withCall = r.steps.find((s) => s.actions.some((a) => a.callId));
    assert.deepEqual(findLinkTarget(f.rollouts, { rolloutId: r.id, stepIndex: 2 }), { rollout: 1, step: 2 });
    assert.deepEqual(findLinkTarget(f.rollouts, { rolloutId: null, stepIndex: null }), { rollout: 0, step: null });
    assert.equal(findLinkTarget(f.rollouts, { rolloutId: 'no such rollout', stepIndex: null }), null);
    assert.deepEqual(findLinkTarget(f.rollouts, { rolloutId: r.id, stepIndex: r.steps.length + 5 }), { rollout: 1, step: null });
    if (withCall) {
      const call = withCall.actions.find((a) => a.callId)!.callId;
      assert.deepEqual(findLinkTarget(f.rollouts, { rolloutId: r.id, stepIndex: null, callId: call }), { rollout: 1, step: withCall.index });
    }
  });
});
