/**
 * The timeline's webview state without VS Code (src/host/timelineSession.ts): ready state, load
 * order, the rollout shown, the step a command asked to reveal and the last step the webview
 * selected, and the label answers; and the one stat of src/host/rolloutSource.ts
 * `openRolloutSource` for a file read whole.
 */
import * as assert from 'node:assert/strict';
import { loadFile } from '../../../src/core/load';
import { rolloutMessage } from '../../../src/host/rolloutMessage';
import { LoadedSource, openRolloutSource } from '../../../src/host/rolloutSource';
import { inThreadFiles } from '../../../src/host/rolloutFiles';
import { TimelineSession } from '../../../src/host/timelineSession';
import type { HostMessage, PersistedState } from '../../../src/shared/protocol';
import { sample } from '../samples';

const SWE_AGENT = 'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj';

function session(initial = 0): { s: TimelineSession; sent: HostMessage[] } {
  const sent: HostMessage[] = [];
  return { s: new TimelineSession({ post: (m) => sent.push(m) }, initial), sent };
}

const state = (rolloutIndex: number, selectedStep: number | null): PersistedState => ({ rolloutIndex, rolloutId: 'r', selectedStep, expanded: [] });

describe('host/timelineSession', () => {
  it('posts only while the webview is ready', () => {
    const { s, sent } = session();
    assert.equal(s.post({ type: 'loading', file: 'f' }), false);
    s.webviewReady(null);
    assert.equal(s.post({ type: 'loading', file: 'f' }), true);
    s.webviewHidden();
    assert.equal(s.isReady, false);
    assert.equal(s.post({ type: 'loading', file: 'f' }), false);
    assert.equal(sent.length, 1);
  });

  it('keeps only the newest load current', () => {
    const { s } = session();
    const a = s.beginLoad();
    const b = s.beginLoad();
    assert.ok(!s.isCurrent(a));
    assert.ok(s.isCurrent(b));
    s.cancelLoads();
    assert.ok(!s.isCurrent(b));
  });

  it('keeps the last stepSelected of the rollout shown, for the commands', () => {
    const { s } = session(1);
    assert.equal(s.selectedStep, null);
    s.stepSelected(1, 4);
    assert.equal(s.selectedStep, 4);
    s.stepSelected(0, 7); // a late one of another rollout is ignored
    assert.equal(s.selectedStep, 4);
    s.rolloutPicked(2);
    assert.equal(s.rolloutIndex, 2);
    assert.equal(s.selectedStep, null, 'the selection belongs to the rollout it was made in');
  });

  it('a re-created webview brings back its rollout and selection, unless a command chose another', () => {
    const a = session();
    a.s.webviewReady(state(3, 5));
    assert.equal(a.s.rolloutIndex, 3);
    assert.equal(a.s.selectedStep, 5);

    const b = session();
    b.s.show(2, 8);
    b.s.webviewReady(state(3, 5));
    assert.equal(b.s.rolloutIndex, 2, 'the rollout asked for wins over the saved state');
    assert.equal(b.s.takeReveal(), 8);
  });

  it('reveals a step with the rollout when the webview is not ready, at once when it is', () => {
    const { s, sent } = session();
    assert.equal(s.reveal(6), false);
    s.webviewReady(null);
    assert.equal(s.takeReveal(), 6);
    assert.equal(s.takeReveal(), null, 'taken once');
    assert.equal(s.reveal(2), true);
    assert.deepEqual(sent, [{ type: 'revealStep', index: 2 }]);
  });

  it('sends a reveal the webview did not confirm again to a webview created anew', () => {
    // A step opened from the search view while its timeline is being created: the rollout message
    // carrying the step goes to a webview that is torn down before it shows it.
    const { s } = session();
    s.show(0, 8);
    s.webviewReady(null);
    assert.equal(s.takeReveal(), 8);
    s.stepSelected(0, 0); // the old webview's own first selection, before it went
    s.webviewHidden();
    s.webviewReady(null);
    assert.equal(s.takeReveal(), null, 'a stepSelected after the post confirms the reveal');

    const t = session();
    t.s.show(0, 8);
    t.s.webviewReady(null);
    assert.equal(t.s.takeReveal(), 8);
    t.s.webviewHidden();
    t.s.webviewReady(null);
    assert.equal(t.s.takeReveal(), 8, 'no stepSelected came: the new webview is asked again');
    t.s.stepSelected(0, 8);
    t.s.webviewReady(null);
    assert.equal(t.s.takeReveal(), null);
  });

  it('keeps the rollout, selection and reveal inside the file', () => {
    const { s } = session(9);
    s.show(9, 40);
    s.clamp(3, (i) => [10, 20, 30][i]);
    assert.equal(s.rolloutIndex, 2);
    assert.equal(s.takeReveal(), null, 'a step past the end is not revealed');
    s.stepSelected(2, 29);
    s.clamp(3, () => 5);
    assert.equal(s.selectedStep, 4);
  });

  it('echoes the newest label request answered', () => {
    const { s } = session();
    assert.equal(s.labelSeq, null);
    s.labelAnswered(undefined);
    assert.equal(s.labelSeq, null);
    s.labelAnswered(3);
    s.labelAnswered(2);
    assert.equal(s.labelSeq, 3);
  });
});

describe('host/rolloutSource', () => {
  it('reads a small file whole and builds the rollout message from it', async () => {
    const source = await openRolloutSource(sample(SWE_AGENT), { files: inThreadFiles(), show: 0 });
    assert.ok(source instanceof LoadedSource);
    assert.equal(source.count, 1);
    assert.equal(source.readNow(0), source.file.rollouts[0]);
    assert.equal(await source.rollout(0), source.file.rollouts[0]);
    await assert.rejects(source.rollout(1), RangeError);
    const msg = rolloutMessage(source, 0, 3, { collapseOutputLines: 20 }, { live: { mode: 'reload', state: 'live', bytes: 0, size: 0 } });
    assert.equal(msg.revealStep, 3);
    assert.equal(msg.rollout, source.file.rollouts[0]);
    assert.deepEqual(msg.summaries.map((x) => x.index), [0]);
    assert.equal(msg.live?.mode, 'reload');
    const whole = new LoadedSource(await loadFile(sample(SWE_AGENT)));
    assert.deepEqual(rolloutMessage(whole, 0, null, { collapseOutputLines: 20 }).summaries, msg.summaries);
  });

  it('says what is wrong with a path it cannot read', async () => {
    await assert.rejects(openRolloutSource('/nonexistent/x.traj', { files: inThreadFiles(), show: 0 }));
  });
});
