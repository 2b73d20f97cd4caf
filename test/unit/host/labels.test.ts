/**
 * The host's label logic without VS Code: the label session over core's real journal (writes,
 * failed writes kept and retried, undo of an unsaved change, the `labels` message), the journal
 * location check, the Export Labels logic, the webview's label index, the protocol guards and the
 * label settings' defaults against package.json.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadFile, type LoadedFile } from '../../../src/core/load';
import { LabelSession, checkJournalLocation } from '../../../src/host/labelSession';
import { defaultExportPath, exportFileLabels, labelSources } from '../../../src/host/labelExport';
import { isHostMessage, isWebviewMessage } from '../../../src/shared/protocol';
import { DEFAULT_ANNOTATOR, DEFAULT_EXPORT_NEUTRAL, NEUTRAL_MAPPING_CHOICES } from '../../../src/shared/settings';
import { indexLabels, labelProgress, labelableSteps, nextUnlabelled, nextVerdict, propagatedFrom } from '../../../webview/labels';
import { sample } from '../samples';

const SWE_AGENT = 'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj';

describe('host/labels: the label session over the journal', () => {
  let tmp: string;
  let swe: LoadedFile;
  let rid: string;

  before(async () => {
    swe = await loadFile(sample(SWE_AGENT));
    rid = swe.rollouts[0].id;
  });
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ti-label-session-'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  function lines(file: string): { stepIndex: number | null; value: number | null; origin: string; annotator: string }[] {
    return fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  }

  it('writes labels to the journal on disk, answers with a valid labels message, and tells listeners', async () => {
    const journal = path.join(tmp, '.trajectory-labels', 'a.traj.labels.jsonl');
    const s = await LabelSession.open(journal, 'alice', swe.rollouts);
    assert.equal(fs.existsSync(journal), false, 'opening creates nothing');
    let told = 0;
    s.onChange(() => told++);
    await s.run({ kind: 'apply', changes: [{ rolloutId: rid, stepIndex: 3, value: 1 }] });
    await s.run({ kind: 'apply', changes: [{ rolloutId: rid, stepIndex: 4, note: 'hm' }] });
    await s.run({ kind: 'firstError', rolloutId: rid, stepIndex: 10 });
    assert.equal(told, 3);
    const written = lines(journal);
    assert.deepEqual(written.slice(0, 2).map((e) => [e.stepIndex, e.value, e.annotator]), [[3, 1, 'alice'], [4, null, 'alice']]);
    // 10 is the first error; 11–15 (agent steps) propagated.
    assert.deepEqual(written.slice(2).map((e) => [e.stepIndex, e.value, e.origin]), [[10, -1, 'manual'], [11, -1, 'propagated'], [12, -1, 'propagated'], [13, -1, 'propagated'], [14, -1, 'propagated'], [15, -1, 'propagated']]);
    const msg = s.message(0, rid, 7);
    assert.ok(isHostMessage(msg), 'the labels message passes the webview guard');
    assert.equal(msg.seq, 7);
    assert.equal(msg.error, null);
    assert.equal(msg.labels.length, 8);
    assert.equal(msg.labels.find((l) => l.stepIndex === 4)?.note, 'hm');
    // A second window (another session on the same journal) sees them after reload, and its labels merge in.
    const other = await LabelSession.open(journal, 'bob', swe.rollouts);
    await other.run({ kind: 'apply', changes: [{ rolloutId: rid, stepIndex: 3, value: -1 }] });
    assert.equal(await s.reload(), true);
    assert.equal(told, 4, 'a reload that changed something tells the listeners');
    assert.deepEqual(s.message(0, rid, null).labels.filter((l) => l.stepIndex === 3).map((l) => [l.annotator, l.value]), [['alice', 1], ['bob', -1]]);
    assert.equal(await s.reload(), false);
    // Undo reverts the whole first-error batch.
    assert.equal(await s.undo(), true);
    assert.deepEqual(s.current().filter((l) => l.annotator === 'alice').map((l) => l.stepIndex), [3, 4]);
  });

  it('keeps a change whose write failed in memory (unsaved, error), writes it with the next change, and undo drops it first', async () => {
    // The journal's folder cannot be made: a file stands where it should be.
    const blocker = path.join(tmp, '.trajectory-labels');
    fs.writeFileSync(blocker, 'not a folder');
    const journal = path.join(blocker, 'a.traj.labels.jsonl');
    const s = await LabelSession.open(journal, 'alice', swe.rollouts);
    await s.run({ kind: 'apply', changes: [{ rolloutId: rid, stepIndex: 2, value: -1 }] });
    await s.run({ kind: 'firstError', rolloutId: rid, stepIndex: 5 });
    assert.equal(s.unsavedCount, 2);
    assert.match(s.error ?? '', /EEXIST|ENOTDIR/);
    const msg = s.message(0, rid, null);
    assert.deepEqual(msg.unsaved, [{ stepIndex: 2, value: -1 }, { stepIndex: 5, value: -1, firstError: true }]);
    assert.deepEqual(msg.labels, []);
    assert.ok(isHostMessage(msg));
    assert.match(s.unsavedJson(), /"stepIndex":2/);
    // Undo takes back the newest unsaved change without touching the disk.
    assert.equal(await s.undo(), true);
    assert.equal(s.unsavedCount, 1);
    // The folder becomes writable: the next change writes the queued one first, in order.
    fs.rmSync(blocker);
    await s.run({ kind: 'apply', changes: [{ rolloutId: rid, stepIndex: 3, value: 1 }] });
    assert.equal(s.unsavedCount, 0);
    assert.equal(s.error, null);
    assert.deepEqual(lines(journal).map((e) => [e.stepIndex, e.value]), [[2, -1], [3, 1]]);
  });

  it('retry writes what is queued; a request for a step the file does not have throws and is not queued', async () => {
    const blocker = path.join(tmp, 'x');
    fs.writeFileSync(blocker, '');
    const s = await LabelSession.open(path.join(blocker, 'j.labels.jsonl'), 'alice', swe.rollouts);
    await s.run({ kind: 'apply', changes: [{ rolloutId: rid, stepIndex: null, value: 1 }] });
    assert.equal(await s.retry(), false);
    fs.rmSync(blocker);
    assert.equal(await s.retry(), true);
    assert.equal(s.current().find((l) => l.stepIndex === null)?.value, 1);
    await assert.rejects(s.run({ kind: 'apply', changes: [{ rolloutId: rid, stepIndex: 99, value: 1 }] }), RangeError);
    assert.equal(s.unsavedCount, 0);
  });

  it('refuses a .trajectory-labels that is a link out of the workspace folder', async () => {
    const ws = path.join(tmp, 'ws');
    const outside = path.join(tmp, 'elsewhere');
    fs.mkdirSync(ws);
    fs.mkdirSync(outside);
    await checkJournalLocation(path.join(ws, '.trajectory-labels', 'sub', 'a.traj.labels.jsonl'), ws);
    fs.symlinkSync(outside, path.join(ws, '.trajectory-labels'));
    await assert.rejects(checkJournalLocation(path.join(ws, '.trajectory-labels', 'sub', 'a.traj.labels.jsonl'), ws), /leads out of/);
    // A link that stays inside the folder is fine.
    fs.rmSync(path.join(ws, '.trajectory-labels'));
    fs.mkdirSync(path.join(ws, 'real'));
    fs.symlinkSync(path.join(ws, 'real'), path.join(ws, '.trajectory-labels'));
    await checkJournalLocation(path.join(ws, '.trajectory-labels', 'a.labels.jsonl'), ws);
  });
});

describe('host/labelExport', () => {
  let swe: LoadedFile;
  let tmp: string;
  before(async () => {
    swe = await loadFile(sample(SWE_AGENT));
  });
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ti-label-export-'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('exports the user\'s labels of a file as TRL rows whose labels match the journal', async () => {
    const rid = swe.rollouts[0].id;
    const s = await LabelSession.open(path.join(tmp, 'j.labels.jsonl'), 'alice', swe.rollouts);
    // Agent steps 2..6 labelled: + + 0 − −(first error → 7.. propagated)
    await s.run({ kind: 'apply', changes: [{ rolloutId: rid, stepIndex: 2, value: 1 }, { rolloutId: rid, stepIndex: 3, value: 1 }, { rolloutId: rid, stepIndex: 4, value: 0 }] });
    await s.run({ kind: 'firstError', rolloutId: rid, stepIndex: 5 });
    assert.deepEqual(labelSources(swe.rollouts, s.current(), 'alice'), ['alice']);
    assert.deepEqual(labelSources(swe.rollouts, s.current(), 'carol'), ['alice'], 'a user with no labels is offered the labels there are');
    const out = exportFileLabels(swe.rollouts, s.current(), 'alice', 'trl', 'negative');
    assert.equal(out.result.rows.length, 1);
    const row = JSON.parse(out.result.text.trim());
    assert.deepEqual(Object.keys(row).sort(), ['completions', 'labels', 'prompt']);
    // 14 agent steps: 2,3 true; 4 neutral → false (negative); 5..15 false.
    assert.deepEqual(row.labels, [true, true, false, ...Array(11).fill(false)]);
    assert.equal(row.completions.length, 14);
    assert.match(out.summary, /^1 row \(labels of alice\) · 1 neutral label\(s\) written as `false` \(setting labels\.exportNeutralAs: negative\)$/);
    const drop = exportFileLabels(swe.rollouts, s.current(), 'alice', 'trl', 'drop');
    assert.equal(JSON.parse(drop.result.text).labels.length, 13, 'neutral dropped: its text joins the next step');
  });

  it('names the output after the rollout file', () => {
    assert.equal(defaultExportPath('/w/runs/marshmallow-1867.traj', 'trl'), path.join('/w/runs', 'marshmallow-1867.trl.jsonl'));
    assert.equal(defaultExportPath('/w/a/agent/trajectory.json', 'processbench'), path.join('/w/a/agent', 'trajectory.processbench.json'));
    assert.equal(defaultExportPath('/w/x.traj.json', 'agentprocessbench'), path.join('/w', 'x.agentprocessbench.jsonl'));
  });
});

describe('webview/labels: the label index the timeline renders', () => {
  const base = { rolloutId: 'r', firstError: false, note: null, time: '2026-01-01T00:00:00.000Z', origin: 'manual' as const, stale: false };
  const msg = {
    type: 'labels' as const,
    rolloutIndex: 0,
    rolloutId: 'r',
    annotator: 'alice',
    labels: [
      { ...base, stepIndex: 1, value: 1 as const, annotator: 'alice' },
      { ...base, stepIndex: 3, value: -1 as const, annotator: 'alice', firstError: true },
      { ...base, stepIndex: 4, value: -1 as const, annotator: 'alice', origin: 'propagated' as const },
      { ...base, stepIndex: 4, value: 1 as const, annotator: 'bob' },
      { ...base, stepIndex: null, value: 0 as const, annotator: 'alice' },
    ],
    unsaved: [{ stepIndex: 5, value: 0 as const }],
    journal: '/j',
    error: null,
    warnings: [],
    seq: null,
  };
  const steps = [0, 1, 2, 3, 4, 5, 6].map((index) => ({ index, role: index === 0 ? 'user' : 'agent' }));

  it('splits mine from the others, overlays unsaved and in-flight changes, and counts progress over agent steps', () => {
    const idx = indexLabels(msg, [{ seq: 1, stepIndex: 2, value: -1 }, { seq: 2, stepIndex: 1, value: null }]);
    assert.equal(idx.mine.get(1)?.value, null, 'step 1 cleared in flight');
    assert.equal(idx.mine.get(2)?.pending, 'sending');
    assert.equal(idx.mine.get(5)?.pending, 'unsaved');
    assert.deepEqual(idx.others.get(4)?.map((l) => l.annotator), ['bob']);
    assert.equal(idx.verdict?.value, 0);
    const labelable = labelableSteps(steps);
    assert.deepEqual(labelable, [1, 2, 3, 4, 5, 6]);
    const p = labelProgress(idx, labelable);
    assert.deepEqual([p.labelled, p.total, p.bad, p.propagated, p.firstError], [4, 6, 3, 1, 3]);
    assert.equal(nextUnlabelled(idx, labelable, 2), 6);
    assert.equal(nextUnlabelled(idx, labelable, 6), 1, 'wraps round');
    assert.equal(propagatedFrom(idx, 4), 3);
    assert.deepEqual([nextVerdict(null), nextVerdict(1), nextVerdict(0), nextVerdict(-1)], [1, 0, -1, null]);
  });
});

describe('protocol: label messages', () => {
  it('accepts well-formed label requests and rejects the rest', () => {
    assert.ok(isWebviewMessage({ type: 'setLabel', rolloutIndex: 0, stepIndex: 2, value: -1, seq: 3 }));
    assert.ok(isWebviewMessage({ type: 'setLabel', rolloutIndex: 0, stepIndex: null, value: null }));
    assert.ok(isWebviewMessage({ type: 'setLabel', rolloutIndex: 0, stepIndex: 1, note: 'x' }));
    assert.ok(!isWebviewMessage({ type: 'setLabel', rolloutIndex: 0, stepIndex: 1 }), 'a change with nothing to change');
    assert.ok(!isWebviewMessage({ type: 'setLabel', rolloutIndex: 0, stepIndex: 1, value: 2 }));
    assert.ok(!isWebviewMessage({ type: 'setLabel', rolloutIndex: 0, stepIndex: -1, value: 1 }));
    assert.ok(!isWebviewMessage({ type: 'setLabel', rolloutIndex: 0, stepIndex: 1, note: 'x'.repeat(10_001) }));
    assert.ok(isWebviewMessage({ type: 'markFirstError', rolloutIndex: 0, stepIndex: 4, seq: 1 }));
    assert.ok(!isWebviewMessage({ type: 'markFirstError', rolloutIndex: 0, stepIndex: null }));
    assert.ok(isWebviewMessage({ type: 'undoLabel', seq: 2 }));
    assert.ok(isWebviewMessage({ type: 'redoLabel' }));
    assert.ok(!isWebviewMessage({ type: 'redoLabel', seq: -1 }));
    assert.ok(isHostMessage({ type: 'runLabelAction', action: 'firstError' }));
    assert.ok(!isHostMessage({ type: 'runLabelAction', action: 'rm' }));
    const ok = { type: 'labels', rolloutIndex: 0, rolloutId: 'r', annotator: 'a', labels: [], unsaved: [], journal: '/j', error: null, warnings: [], seq: null };
    assert.ok(isHostMessage(ok));
    assert.ok(!isHostMessage({ ...ok, labels: [{ stepIndex: 0, value: 5 }] }));
    assert.ok(!isHostMessage({ ...ok, seq: 'x' }));
  });
});

describe('host/config: label settings', () => {
  it('match the defaults package.json declares', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pkg = require('../../../package.json');
    const props = Object.assign({}, ...pkg.contributes.configuration.map((c: { properties: object }) => c.properties));
    assert.equal(props['trajectoryInspector.labels.annotator'].default, DEFAULT_ANNOTATOR);
    assert.equal(props['trajectoryInspector.labels.exportNeutralAs'].default, DEFAULT_EXPORT_NEUTRAL);
    assert.deepEqual([...props['trajectoryInspector.labels.exportNeutralAs'].enum].sort(), [...NEUTRAL_MAPPING_CHOICES].sort());
  });

  it('declares every labelling command, enabled only with a timeline', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pkg = require('../../../package.json');
    const declared = pkg.contributes.commands as { command: string; enablement?: string }[];
    for (const id of ['labelGood', 'labelNeutral', 'labelBad', 'clearLabel', 'markFirstError', 'addNote', 'commitAndNext', 'undoLabel', 'redoLabel', 'showLabelKeys', 'labelRollout', 'exportLabels']) {
      const c = declared.find((d) => d.command === `trajectoryInspector.${id}`);
      assert.ok(c, `package.json declares trajectoryInspector.${id}`);
      assert.equal(c.enablement, 'trajectoryInspector.hasTimeline');
    }
  });
});
