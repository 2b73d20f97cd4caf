/**
 * The timeline webview's state changes without a DOM: applyHostMessage (webview/timeline/
 * hostMessages.ts) and the key actions of webview/timeline/update.ts, on the rollout message the
 * host builds for a real SWE-agent trajectory; and the key table (src/shared/keymap.ts) that drives
 * the key handler, the key overlay, the hint line and the host's labelling commands.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadFile } from '../../../src/core/load';
import { rolloutMessage } from '../../../src/host/rolloutMessage';
import { LoadedSource } from '../../../src/host/rolloutSource';
import { HINT_LINE, KEYMAP, LABEL_ACTION_COMMANDS, bindingFor, bindingOf, type KeyPress } from '../../../src/shared/keymap';
import type { LabelsMessage, PersistedState, RolloutMessage, LoadStepsMessage } from '../../../src/shared/protocol';
import { StepStore } from '../../../webview/stepStore';
import { applyHostMessage } from '../../../webview/timeline/hostMessages';
import { createState, labelIndexOf, stepFilesOf, type Effect, type TimelineState } from '../../../webview/timeline/state';
import { keyAction } from '../../../webview/timeline/update';
import { REPO_ROOT, sample } from '../samples';

const TRAJ = 'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj';

let base: RolloutMessage;

before(async () => {
  base = rolloutMessage(new LoadedSource(await loadFile(sample(TRAJ))), 0, null, { collapseOutputLines: 20 });
  assert.ok(base.rollout.steps.length > 5, 'the sample has steps to move between');
});

function fresh(restored: PersistedState | null = null): { s: TimelineState; sent: LoadStepsMessage[] } {
  const sent: LoadStepsMessage[] = [];
  return { s: createState(restored, new StepStore({ post: (m) => sent.push(m) })), sent };
}

function kinds(effects: readonly Effect[]): string[] {
  return effects.map((e) => e.kind);
}

function labels(m: RolloutMessage, over: Partial<LabelsMessage> = {}): LabelsMessage {
  return { type: 'labels', rolloutIndex: m.rolloutIndex, rolloutId: m.rollout.id, annotator: 'alice', labels: [], unsaved: [], journal: '/tmp/j.jsonl', error: null, warnings: [], seq: null, ...over };
}

function press(key: string, mods: Partial<KeyPress> = {}): KeyPress {
  return { key, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, ...mods };
}

describe('webview timeline state: applyHostMessage', () => {
  it('a first rollout shows, selects its first step and tells the host; the state is saved', () => {
    const { s } = fresh();
    const fx = applyHostMessage(s, base);
    assert.equal(s.view.kind, 'rollout');
    assert.equal(s.selected, 0);
    assert.deepEqual(fx.find((e) => e.kind === 'selected'), { kind: 'selected', rolloutIndex: 0, stepIndex: 0 });
    assert.equal(kinds(fx).at(-1), 'persist');
    assert.equal(s.restored, null, 'what was restored is used once');
  });

  it("a re-created webview gets back the saved selection, expansion and scroll place of the same rollout, and does not report a selection", () => {
    const n = base.rollout.steps.length;
    const { s } = fresh({ rolloutIndex: 0, rolloutId: base.rollout.id, selectedStep: 3, expanded: [1, 3, n + 5], scrollY: 420 });
    const fx = applyHostMessage(s, base);
    assert.equal(s.selected, 3);
    assert.deepEqual([...s.expanded], [1, 3], 'steps past the end are dropped');
    assert.equal(s.pendingScrollY, 420);
    assert.ok(!kinds(fx).includes('selected'));
  });

  it('a saved state of another rollout is not applied', () => {
    const { s } = fresh({ rolloutIndex: 0, rolloutId: 'another', selectedStep: 3, expanded: [3] });
    applyHostMessage(s, base);
    assert.equal(s.selected, 0);
    assert.equal(s.expanded.size, 0);
  });

  it('the host selecting a step selects it, reveals it centred (unless reveal is false) and seeks the player', () => {
    const { s } = fresh();
    applyHostMessage(s, base);
    s.pendingReveal = null;
    const fx = applyHostMessage(s, { type: 'revealStep', index: 4 });
    assert.equal(s.selected, 4);
    assert.deepEqual(s.pendingReveal, { index: 4, block: 'center' });
    assert.deepEqual(kinds(fx), ['selected', 'persist', 'seekPlayer']);
    s.pendingReveal = null;
    applyHostMessage(s, { type: 'revealStep', index: 2, reveal: false });
    assert.equal(s.selected, 2);
    assert.equal(s.pendingReveal, null);
    // Past the end: clamped to the last step.
    applyHostMessage(s, { type: 'revealStep', index: 10_000 });
    assert.equal(s.selected, base.rollout.steps.length - 1);
  });

  it('a rollout message with selectStep (Go to Step, the tree) selects that step', () => {
    const { s } = fresh();
    applyHostMessage(s, { ...base, revealStep: 5 });
    assert.equal(s.selected, 5);
    assert.deepEqual(s.pendingReveal, { index: 5, block: 'center' });
  });

  it('moveSelection moves from the selected step, within the rollout', () => {
    const { s } = fresh();
    applyHostMessage(s, base);
    applyHostMessage(s, { type: 'moveSelection', delta: 2 });
    assert.equal(s.selected, 2);
    applyHostMessage(s, { type: 'moveSelection', delta: -5 });
    assert.equal(s.selected, 0);
  });

  it('the same rollout read again keeps the selection and expansion; one with fewer steps clamps the selection', () => {
    const { s } = fresh();
    applyHostMessage(s, base);
    applyHostMessage(s, { type: 'revealStep', index: 5 });
    s.expanded = new Set([5]);
    const fx = applyHostMessage(s, base);
    assert.equal(s.selected, 5);
    assert.deepEqual([...s.expanded], [5]);
    assert.ok(!kinds(fx).includes('selected'));
    const shorter = { ...base, rollout: { ...base.rollout, steps: base.rollout.steps.slice(0, 3) } };
    applyHostMessage(s, shorter);
    assert.equal(s.selected, 2);
  });

  it('loading does not replace a rollout shown; a load error does', () => {
    const { s } = fresh();
    applyHostMessage(s, { type: 'loading', file: 'x.traj' });
    assert.deepEqual(s.view, { kind: 'loading', file: 'x.traj' });
    applyHostMessage(s, base);
    applyHostMessage(s, { type: 'loading', file: 'x.traj' });
    assert.equal(s.view.kind, 'rollout');
    const err = { type: 'loadError' as const, file: 'x.traj', title: 'Could not open', message: 'bad', issues: [], declined: [] };
    applyHostMessage(s, err);
    assert.deepEqual(s.view, { kind: 'error', msg: err });
  });

  it("labels of another rollout (a late answer) are dropped; an answer drops the changes it answers", () => {
    const { s } = fresh();
    applyHostMessage(s, base);
    applyHostMessage(s, labels(base, { rolloutId: 'another' }));
    assert.equal(s.labelsMsg, null);
    applyHostMessage(s, labels(base));
    assert.equal((s.labelsMsg as LabelsMessage | null)?.annotator, 'alice');
    // Two label keys: both shown at once (sent, not answered).
    applyHostMessage(s, { type: 'runLabelAction', action: 'good' });
    applyHostMessage(s, { type: 'moveSelection', delta: 1 });
    const fx = applyHostMessage(s, { type: 'runLabelAction', action: 'bad' });
    assert.deepEqual(fx, [{ kind: 'setLabel', rolloutIndex: 0, stepIndex: 1, value: -1, seq: 2 }]);
    assert.equal(s.sentChanges.length, 2);
    assert.equal(labelIndexOf(s).mine.get(0)?.value, 1);
    assert.equal(labelIndexOf(s).mine.get(1)?.pending, 'sending');
    applyHostMessage(s, labels(base, { seq: 1 }));
    assert.deepEqual(s.sentChanges.map((c) => c.seq), [2]);
  });

  it('the show-keys action toggles the key overlay; note opens the note editor on the selected step', () => {
    const { s } = fresh();
    applyHostMessage(s, base);
    applyHostMessage(s, { type: 'runLabelAction', action: 'showKeys' });
    assert.equal(s.showKeys, true);
    applyHostMessage(s, { type: 'runLabelAction', action: 'showKeys' });
    assert.equal(s.showKeys, false);
    applyHostMessage(s, { type: 'runLabelAction', action: 'note' });
    assert.equal(s.editingNote, 0);
  });

  it('a rolloutUpdate appends steps (counted as unseen while Follow is off); one that skips steps asks for the whole rollout again', () => {
    const { s } = fresh();
    const live = { mode: 'stream' as const, state: 'live' as const, bytes: 10, size: 10 };
    const head = { ...base, rollout: { ...base.rollout, steps: base.rollout.steps.slice(0, 4) }, live };
    applyHostMessage(s, head);
    const upd = { type: 'rolloutUpdate' as const, rolloutIndex: 0, rolloutId: base.rollout.id, from: 4, steps: base.rollout.steps.slice(4, 6), rollout: { ...base.rollout, steps: [] }, summaries: base.summaries, live };
    applyHostMessage(s, upd);
    assert.equal(s.view.kind === 'rollout' && s.view.msg.rollout.steps.length, 6);
    assert.equal(s.unseen, 2);
    assert.deepEqual(applyHostMessage(s, { ...upd, from: 9 }), [{ kind: 'resend' }]);
    // Follow on: the end is revealed, nothing is unseen.
    const fx = applyHostMessage(s, { type: 'toggleFollow' });
    assert.equal(s.follow, true);
    assert.equal(s.unseen, 0);
    assert.ok(kinds(fx).includes('revealEnd'));
    applyHostMessage(s, { ...upd, from: 6, steps: base.rollout.steps.slice(6, 7) });
    assert.equal(s.unseen, 0);
    // Moving to an earlier step of a live file stops Follow.
    applyHostMessage(s, { type: 'revealStep', index: 1 });
    assert.equal(s.follow, false);
  });

  it('a recording is asked for once per rollout and its answer kept', () => {
    const { s } = fresh();
    const withRec = { ...base, rollout: { ...base.rollout, recording: { path: '/tmp/x.cast' } } } as RolloutMessage;
    assert.deepEqual(applyHostMessage(s, withRec).filter((e) => e.kind === 'loadCast'), [{ kind: 'loadCast', rolloutIndex: 0 }]);
    assert.deepEqual(applyHostMessage(s, withRec).filter((e) => e.kind === 'loadCast'), []);
    assert.equal(s.cast?.msg, null);
  });
});

describe('webview timeline state: keys', () => {
  it('the key table matches keys as the old handler did (named keys, Ctrl/Cmd chords, Alt never)', () => {
    const at = (p: KeyPress): string | undefined => bindingFor(p)?.binding.action;
    assert.equal(at(press('j')), 'next');
    assert.equal(at(press('ArrowDown')), 'next');
    assert.equal(at(press('G', { shiftKey: true })), 'last');
    assert.equal(at(press(' ')), 'toggleExpand');
    assert.equal(at(press('Delete')), 'clear');
    assert.equal(at(press('?', { shiftKey: true })), 'showKeys');
    assert.equal(at(press('Escape')), 'showKeys');
    assert.equal(at(press('z', { ctrlKey: true })), 'undo');
    assert.equal(at(press('z', { metaKey: true })), 'undo');
    assert.equal(at(press('Z', { ctrlKey: true, shiftKey: true })), 'redo');
    assert.equal(at(press('y', { ctrlKey: true })), 'redo');
    assert.equal(at(press('Y', { ctrlKey: true, shiftKey: true })), undefined);
    assert.equal(at(press('j', { ctrlKey: true })), undefined);
    assert.equal(at(press('j', { altKey: true })), undefined);
    assert.equal(at(press('z', { ctrlKey: true, altKey: true })), undefined);
  });

  it('Esc only closes the key list; Enter and Space on a button are left to it; p needs a recording', () => {
    const { s } = fresh();
    applyHostMessage(s, base);
    const ctx = { onControl: false, canPlay: false };
    assert.equal(keyAction(s, 'showKeys', 'Esc', ctx), null);
    assert.deepEqual(keyAction(s, 'showKeys', '?', ctx), []);
    assert.equal(s.showKeys, true);
    assert.deepEqual(keyAction(s, 'showKeys', 'Esc', ctx), []);
    assert.equal(s.showKeys, false);
    assert.equal(keyAction(s, 'toggleExpand', 'Space', { ...ctx, onControl: true }), null);
    assert.equal(keyAction(s, 'commitAndNext', 'Enter', { ...ctx, onControl: true }), null);
    assert.equal(keyAction(s, 'playPause', 'p', ctx), null);
    assert.deepEqual(keyAction(s, 'playPause', 'p', { ...ctx, canPlay: true }), [{ kind: 'togglePlayer' }]);
    keyAction(s, 'toggleExpand', 'o', ctx);
    assert.ok(s.expanded.has(0));
  });

  it("Enter on a labelled step goes to the next unlabelled one; on an unlabelled one it expands it", () => {
    const { s } = fresh();
    applyHostMessage(s, base);
    applyHostMessage(s, labels(base));
    const ctx = { onControl: false, canPlay: false };
    keyAction(s, 'commitAndNext', 'Enter', ctx);
    assert.ok(s.expanded.has(0), 'unlabelled: expanded');
    keyAction(s, 'good', '1', ctx);
    const fx = keyAction(s, 'commitAndNext', 'Enter', ctx)!;
    assert.ok(s.selected! > 0);
    assert.ok(kinds(fx).includes('selected'));
  });

  it('every action has one binding; the hint line and the commands come from the table', () => {
    const actions = KEYMAP.map((b) => b.action);
    assert.equal(new Set(actions).size, actions.length);
    for (const p of HINT_LINE) for (const a of p.actions) assert.ok(bindingOf(a));
    assert.deepEqual(
      LABEL_ACTION_COMMANDS.map(([, a]) => a),
      ['good', 'neutral', 'bad', 'clear', 'firstError', 'note', 'commitAndNext', 'showKeys'],
    );
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    const declared = new Set(pkg.contributes.commands.map((c: { command: string }) => c.command));
    for (const [id] of LABEL_ACTION_COMMANDS) assert.ok(declared.has(id), `${id} is declared in package.json`);
  });
});

describe('webview timeline state: step files', () => {
  it("keeps the host's file chips of the rollout shown; a list for another rollout shows none", () => {
    const { s } = fresh();
    applyHostMessage(s, base);
    const chip = { label: 'src/a.py', recorded: '/repo/src/a.py', kind: 'edit' as const, local: true, failed: false };
    assert.deepEqual(applyHostMessage(s, { type: 'stepFiles', rolloutId: base.rollout.id, steps: [{ index: 2, files: [chip] }] }), []);
    assert.deepEqual(stepFilesOf(s, 2), [chip]);
    assert.deepEqual(stepFilesOf(s, 3), []);
    applyHostMessage(s, { type: 'stepFiles', rolloutId: 'another rollout', steps: [{ index: 2, files: [chip] }] });
    assert.deepEqual(stepFilesOf(s, 2), []);
  });
});
