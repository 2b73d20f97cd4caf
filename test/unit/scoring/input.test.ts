/**
 * What every scorer backend is sent (src/core/scoring/input.ts): text made well-formed, lone UTF-16
 * surrogates replaced by U+FFFD (issue 19 item 3), on a real rollout from ../shared with such a
 * surrogate put into its text the way a cut string or a JSON `\ud800` escape leaves it.
 */
import * as assert from 'node:assert/strict';
import { loadFile } from '../../../src/core/load';
import { toScoreRollout, wellFormed } from '../../../src/core/scoring/input';
import { asciiJson } from '../../../src/core/scoring/wire';
import { sample } from '../samples';

const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('scoring/input: well-formed text for every backend', () => {
  it('wellFormed replaces lone surrogates only (pairs and plain text unchanged)', () => {
    assert.equal(wellFormed('a\ud800b'), 'a\ufffdb');
    assert.equal(wellFormed('\udc00x\ud83d'), '\ufffdx\ufffd');
    assert.equal(wellFormed('ok 😀 é'), 'ok 😀 é');
    assert.equal(wellFormed(null), null);
  });

  it('toScoreRollout sends no lone surrogate in any text of a real rollout; ids are kept as they are', async () => {
    const r = (await loadFile(sample('swe-agent/6e44b9__sweagenttestrepo-1c2844.traj'))).rollouts[0];
    const agent = r.steps.find((s) => s.role === 'agent' && s.actions.length && s.observations.length)!;
    agent.message = `${agent.message} \ud800`;
    agent.reasoning = `\udfff${agent.reasoning ?? ''}`;
    agent.actions[0].command = `${agent.actions[0].command ?? ''}\ud83d`;
    agent.observations[0].output = `cut here \ud83d`;
    r.task.instruction = `${r.task.instruction} \udc00`;
    const sr = toScoreRollout({ ...r, id: `${r.id}\ud800` });
    assert.equal(sr.id, `${r.id}\ud800`);
    const text = JSON.stringify({ task: sr.task, steps: sr.steps });
    assert.doesNotMatch(text, LONE);
    assert.ok(text.includes('\ufffd'));
    // The wire form carries no raw surrogate escape outside the id.
    assert.doesNotMatch(asciiJson({ task: sr.task, steps: sr.steps }), /\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])/);
  });
});
