/**
 * One outcome text (src/shared/outcome.ts) for the Rollouts view (describeRollout / summarize /
 * describeCounts), the timeline header and the CLI: a real SWE-agent rollout that records only
 * `exit_status: submitted` reads "submitted" in the view, not "—".
 */
import * as assert from 'node:assert/strict';
import { loadFile } from '../../../src/core/load';
import { describeCounts, describeRollout, summarize } from '../../../src/host/rolloutSummary';
import { outcomeText } from '../../../src/shared/outcome';
import { sample } from '../samples';

const SWE_AGENT = 'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj';

describe('outcome text: the same words in every view', () => {
  it('a SWE-agent rollout that was submitted reads "submitted" in the Rollouts view', async () => {
    const r = (await loadFile(sample(SWE_AGENT))).rollouts[0];
    assert.equal(r.outcome.status, 'submitted');
    assert.equal(r.outcome.resolved, null);
    assert.match(describeRollout(r), / · submitted$/);
    const s = summarize(r, 0);
    assert.equal(s.status, 'submitted');
    assert.equal(describeCounts(s.steps, s.reward, s.resolved, [], s.status ?? null), describeRollout(r));
  });

  it('words pass/fail, the recorded status, both, or unknown', () => {
    assert.equal(outcomeText({ resolved: true, status: null }), 'resolved');
    assert.equal(outcomeText({ resolved: false, status: 'exit_cost' }), 'failed · exit_cost');
    assert.equal(outcomeText({ resolved: null, status: 'submitted' }), 'submitted');
    assert.equal(outcomeText({ resolved: true, status: 'Resolved' }), 'resolved', 'a status equal to the word is not repeated');
    assert.equal(outcomeText({ resolved: null, status: '  ' }), '—');
    assert.equal(outcomeText({ resolved: null, status: null }, 'outcome unknown'), 'outcome unknown');
  });
});
