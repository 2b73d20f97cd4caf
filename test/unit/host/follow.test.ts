/**
 * The host's and the webview's pure parts of live follow (issue 13): StepSlices.update (the steps of
 * a `rolloutUpdate`, whole until the rollout passes the slicing size, then heads; sizes kept per
 * step), rolloutUpdateMessage, the webview's StepStore.update, the protocol guards of the new
 * messages, and the liveFiles registry the Rollouts view reads followed files from. Input: a
 * session of the OpenHands V1 fixture's real event shapes, read by the real follower.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { JsonlFollower } from '../../../src/core/follow';
import { loadFile } from '../../../src/core/load';
import { LiveFiles, LIVE_NOTIFY_MS } from '../../../src/host/liveFiles';
import { rolloutMessage, rolloutUpdateMessage } from '../../../src/host/rolloutMessage';
import { LoadedSource } from '../../../src/host/rolloutSource';
import { StepSlices } from '../../../src/host/stepSlices';
import { isHostMessage, isPersistedState, isWebviewMessage, type LiveInfo } from '../../../src/shared/protocol';
import { rolloutChars, stepHead } from '../../../src/shared/stepHeads';
import { StepStore } from '../../../webview/stepStore';
import { tmpDir } from '../samples';
import { session, toJsonl } from '../v1Session';
import { WAIT_MS, waitUntil } from '../../wait';

const LIVE: LiveInfo = { mode: 'stream', state: 'live', bytes: 10, size: 10 };

describe('live follow: host and webview parts', () => {
  it('StepSlices.update sends steps whole until the rollout passes the slicing size, then heads with their cuts, sizes as a whole count gives them', async () => {
    const all = session(120);
    const file = path.join(tmpDir(), 'events.jsonl');
    fs.writeFileSync(file, toJsonl(all.slice(0, 10)));
    const f = (await JsonlFollower.open(file))!;
    const slices = new StepSlices(30_000);
    const first = rolloutMessage(new LoadedSource(f.loaded), 0, null, { collapseOutputLines: 20 }, { slices });
    assert.equal(first.sliced, undefined, 'small: whole');
    let sent = first.rollout.steps.length;
    // A few more lines: still small, sent whole from the first changed step.
    fs.appendFileSync(file, toJsonl(all.slice(10, 20)));
    let r = await f.read();
    assert.equal(r.kind, 'update');
    let from = Math.min(r.kind === 'update' ? r.changes[0].changedFrom : 0, sent);
    let rollout = f.loaded.rollouts[0];
    let u = slices.update(rollout, from);
    assert.equal(u.sliced, undefined);
    assert.deepEqual(u.steps, rollout.steps.slice(from));
    sent = rollout.steps.length;
    // The rest: past 30,000 characters, the update comes as heads.
    fs.appendFileSync(file, toJsonl(all.slice(20)));
    r = await f.read();
    from = Math.min(r.kind === 'update' ? r.changes[0].changedFrom : 0, sent);
    rollout = f.loaded.rollouts[0];
    assert.ok(rolloutChars(rollout) > 30_000);
    u = slices.update(rollout, from);
    assert.ok(u.sliced, 'sliced from this update on');
    assert.equal(u.sliced.fullChars, rolloutChars(rollout), 'the full size as rolloutChars counts it');
    assert.ok(u.sliced.headChars < u.sliced.fullChars);
    assert.deepEqual(u.steps, rollout.steps.slice(from).map((s) => stepHead(s).head));
    assert.ok(u.sliced.cuts.length > 0 && u.sliced.cuts.every((c) => c.index >= from), 'cuts of the steps sent only');
    const msg = rolloutUpdateMessage(new LoadedSource(f.loaded), 0, from, u, LIVE);
    assert.ok(isHostMessage(JSON.parse(JSON.stringify(msg))));
    assert.equal(msg.rolloutId, rollout.id);
    assert.equal(msg.summaries[0].steps, rollout.steps.length);
    assert.equal((msg.rollout as { steps?: unknown }).steps, undefined, 'the shell carries no steps');
    // The same file read whole gives the same rollout the updates were made from.
    assert.deepEqual(JSON.parse(JSON.stringify(rollout)), JSON.parse(JSON.stringify((await loadFile(file)).rollouts[0])));
  });

  it('StepStore.update: a whole rollout becomes sliced by an update; changed steps are dropped and asked for again; old answers for them are not kept', () => {
    const posted: { from: number; to: number; seq: number }[] = [];
    const store = new StepStore({ post: (m) => posted.push(m) });
    store.reset(null);
    assert.equal(store.sliced, false);
    const cut = (index: number) => ({ index, fields: [{ field: 'observations.0.output', chars: 500, lines: 10 }] });
    store.update(0, 'r', 10, 60, [cut(10), cut(30), cut(55)]);
    assert.equal(store.sliced, true);
    assert.equal(store.cutOf(5), null, 'earlier steps came whole');
    assert.ok(store.cutOf(30));
    store.want(25, 35);
    assert.deepEqual(posted.map((p) => [p.from, p.to]), [[30, 31]]);
    const step = (i: number, out: string) => ({ index: i, sourceId: null, role: 'agent' as const, message: '', reasoning: null, actions: [], observations: [{ callId: null, output: out, exitCode: null, truncated: false }], timestamp: null, durationSec: null, tokens: null, costUsd: null, range: null });
    // Step 30 changes while the request is in flight: its answer (of before the change) is not kept.
    store.update(0, 'r', 30, 61, [cut(30), cut(60)]);
    assert.equal(store.receive({ type: 'steps', rolloutIndex: 0, rolloutId: 'r', from: 30, steps: [step(30, 'old')], seq: posted[0].seq }), true);
    assert.equal(store.full(30, step(30, 'head')), null, 'the old answer was dropped');
    store.want(25, 35);
    assert.equal(posted.length, 2, 'asked again');
    store.receive({ type: 'steps', rolloutIndex: 0, rolloutId: 'r', from: 30, steps: [step(30, 'new')], seq: posted[1].seq });
    assert.equal(store.full(30, step(30, 'head'))?.observations[0].output, 'new');
  });

  it('guards the new messages and the persisted Follow flag', () => {
    assert.ok(isHostMessage({ type: 'live', live: LIVE }));
    assert.ok(!isHostMessage({ type: 'live', live: { ...LIVE, state: 'gone' } }));
    assert.ok(isHostMessage({ type: 'toggleFollow' }));
    assert.ok(isHostMessage({ type: 'toggleFollow', on: true }));
    assert.ok(!isHostMessage({ type: 'toggleFollow', on: 1 }));
    const upd = { type: 'rolloutUpdate', rolloutIndex: 0, rolloutId: 'a', from: 2, steps: [{ index: 2, actions: [], observations: [], message: '' }], rollout: { id: 'a' }, summaries: [], live: LIVE };
    assert.ok(isHostMessage(upd));
    assert.ok(!isHostMessage({ ...upd, steps: [{ index: 3, actions: [], observations: [], message: '' }] }), 'steps must start at `from`');
    assert.ok(!isHostMessage({ ...upd, rollout: { id: 'b' } }), 'the shell is of the rollout named');
    assert.ok(isWebviewMessage({ type: 'resend' }));
    const st = { rolloutIndex: 0, rolloutId: 'a', selectedStep: null, expanded: [] };
    assert.ok(isPersistedState({ ...st, follow: true }));
    assert.ok(!isPersistedState({ ...st, follow: 'yes' }));
  });

  it('liveFiles: the Rollouts view reads a followed file from the timeline, told at most every LIVE_NOTIFY_MS', async () => {
    const told: number[] = [];
    const liveFiles = new LiveFiles();
    const off = liveFiles.onChange((_f, l) => told.push(l.rollouts.length));
    const a = {};
    const b = {};
    const loaded = { path: '/x/s.jsonl', format: 'openhands-v1' as const, schemaVersion: null, rollouts: [] };
    liveFiles.set('/x/s.jsonl', a, loaded);
    liveFiles.set('/x/s.jsonl', b, loaded);
    liveFiles.set('/x/s.jsonl', a, loaded);
    assert.equal(told.length, 1, 'the first change at once, the next ones coalesced');
    await waitUntil(() => told.length >= 2, LIVE_NOTIFY_MS + WAIT_MS, () => 'the coalesced change was never told');
    assert.equal(told.length, 2);
    assert.equal(liveFiles.get('/x/s.jsonl'), loaded);
    assert.equal(new LiveFiles().get('/x/s.jsonl'), undefined, 'a registry holds only what was set on it (no state shared between instances)');
    liveFiles.release('/x/s.jsonl', a);
    assert.equal(liveFiles.get('/x/s.jsonl'), loaded, 'still followed by the other timeline');
    liveFiles.release('/x/s.jsonl', b);
    assert.equal(liveFiles.get('/x/s.jsonl'), undefined);
    off();
  });
});
