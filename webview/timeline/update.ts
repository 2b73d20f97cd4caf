/**
 * The changes of the timeline state that the user (keys, clicks, the player) and the host (through
 * hostMessages.ts) both cause: selecting and moving, expanding, Follow, labelling. Each changes the
 * state in place and returns the effects it asks for (state.ts `Effect`); none touches the DOM.
 */
import type { LabelValue } from '../../src/shared/model';
import type { KeyAction } from '../../src/shared/keymap';
import type { LabelAction } from '../../src/shared/protocol';
import { stepAtTime } from '../cast';
import { isLabelled, nextUnlabelled, nextVerdict } from '../labels';
import { labelIndexOf, labelableOf, marksOf, rolloutMsg, type Block, type Effect, type TimelineState } from './state';

/**
 * Selects a step (clamped to the rollout), reports it to the host and scrolls it into view
 * (`block` null: no scroll). The player seeks to the step, unless the selection came from the
 * player (`fromPlayer`). Going to the newest step of a live file starts Follow; revealing an
 * earlier one stops it (it would be scrolled away).
 */
export function select(s: TimelineState, index: number, block: Block | null = 'nearest', fromPlayer = false): Effect[] {
  const r = rolloutMsg(s);
  if (!r) return [];
  const count = r.rollout.steps.length;
  if (count === 0) return [];
  const i = Math.max(0, Math.min(count - 1, index));
  const out: Effect[] = [];
  s.stepStore.want(i, i + 1);
  if (block && !fromPlayer && r.live) {
    if (i === count - 1) out.push(...setFollow(s, true));
    else if (s.follow) out.push(...setFollow(s, false));
  }
  const changed = i !== s.selected;
  if (s.highlight && s.highlight.index !== i) s.highlight = null;
  s.selected = i;
  if (block) s.pendingReveal = { index: i, block };
  if (changed) out.push({ kind: 'selected', rolloutIndex: r.rolloutIndex, stepIndex: i }, { kind: 'persist' });
  if (!fromPlayer) out.push({ kind: 'seekPlayer', index: i });
  return out;
}

/** Moves the selection by `delta` steps (from before the first / after the last when there is none). */
export function move(s: TimelineState, delta: number): Effect[] {
  const r = rolloutMsg(s);
  if (!r || r.rollout.steps.length === 0) return [];
  const from = s.selected ?? (delta > 0 ? -1 : r.rollout.steps.length);
  return select(s, from + delta);
}

export function toggleExpand(s: TimelineState, index: number): Effect[] {
  const next = new Set(s.expanded);
  if (next.has(index)) next.delete(index);
  else next.add(index);
  s.expanded = next;
  return [{ kind: 'persist' }];
}

/** Turns Follow on (and goes to the end) or off. */
export function setFollow(s: TimelineState, on: boolean): Effect[] {
  if (on === s.follow) return on ? [{ kind: 'revealEnd' }] : [];
  s.follow = on;
  const out: Effect[] = [];
  if (on) {
    s.unseen = 0;
    out.push({ kind: 'revealEnd' });
  }
  out.push({ kind: 'persist' });
  return out;
}

/** The player's time moved to `time` (playing or scrubbed): the step running then gets selected. */
export function playerTime(s: TimelineState, time: number): Effect[] {
  const r = rolloutMsg(s);
  if (!r) return [];
  const step = stepAtTime(marksOf(r.rollout).marks, time);
  if (step === s.playerStep) return [];
  s.playerStep = step;
  return step !== null && step !== s.selected ? select(s, step, 'nearest', true) : [];
}

/** Sends a label change (`stepIndex` null: the verdict) and shows it at once. */
function sendLabel(s: TimelineState, stepIndex: number | null, change: { value?: LabelValue | null; note?: string | null }): Effect[] {
  const r = rolloutMsg(s);
  if (!r) return [];
  const seq = ++s.labelSeq;
  s.sentChanges = [...s.sentChanges, { seq, stepIndex, ...change }];
  return [{ kind: 'setLabel', rolloutIndex: r.rolloutIndex, stepIndex, ...change, seq }];
}

function labelSelected(s: TimelineState, value: LabelValue | null): Effect[] {
  return s.selected === null ? [] : sendLabel(s, s.selected, { value });
}

function markFirstError(s: TimelineState): Effect[] {
  const r = rolloutMsg(s);
  if (!r || s.selected === null) return [];
  const seq = ++s.labelSeq;
  // Shown at once on the step itself; the propagated labels come with the host's answer.
  s.sentChanges = [...s.sentChanges, { seq, stepIndex: s.selected, value: -1, firstError: true }];
  return [{ kind: 'markFirstError', rolloutIndex: r.rolloutIndex, stepIndex: s.selected, seq }];
}

function undoRedo(s: TimelineState, type: 'undoLabel' | 'redoLabel'): Effect[] {
  if (!rolloutMsg(s)) return [];
  return [{ kind: 'undoRedo', type, seq: ++s.labelSeq }];
}

function editNote(s: TimelineState): Effect[] {
  if (s.selected === null) return [];
  s.editingNote = s.selected;
  s.pendingReveal = { index: s.selected, block: 'nearest' };
  return [];
}

/** The note editor of step `index` is done: `note` the text to save, undefined when cancelled. */
export function noteDone(s: TimelineState, index: number, note: string | null | undefined): Effect[] {
  if (s.editingNote !== index) return [];
  s.editingNote = null;
  return note !== undefined ? sendLabel(s, index, { note }) : [];
}

/**
 * Enter: on a step the user has labelled, go to the next unlabelled one (wrapping round); on an
 * unlabelled step, expand / collapse it as Enter always did.
 */
function commitAndNext(s: TimelineState): Effect[] {
  const r = rolloutMsg(s);
  if (!r || s.selected === null) return [];
  const idx = labelIndexOf(s);
  if (!isLabelled(idx, s.selected)) {
    const out = toggleExpand(s, s.selected);
    s.pendingReveal = { index: s.selected, block: 'nearest' };
    return out;
  }
  const labelable = labelableOf(r.rollout);
  const next = nextUnlabelled(idx, labelable, s.selected);
  if (next === null) {
    s.flash = `All ${labelable.length} steps to label are labelled.`;
    return [];
  }
  return select(s, next, 'center');
}

function cycleVerdict(s: TimelineState): Effect[] {
  if (!rolloutMsg(s)) return [];
  return sendLabel(s, null, { value: nextVerdict(labelIndexOf(s).verdict?.value ?? null) });
}

/** A labelling action (its key, or its command from the host): acts on the selected step. */
export function labelAction(s: TimelineState, action: LabelAction): Effect[] {
  switch (action) {
    case 'good':
      return labelSelected(s, 1);
    case 'neutral':
      return labelSelected(s, 0);
    case 'bad':
      return labelSelected(s, -1);
    case 'clear':
      return labelSelected(s, null);
    case 'firstError':
      return markFirstError(s);
    case 'note':
      return editNote(s);
    case 'commitAndNext':
      return commitAndNext(s);
    case 'verdict':
      return cycleVerdict(s);
    case 'showKeys':
      s.showKeys = !s.showKeys;
      return [];
  }
}

/** What the page around a key press is: the key's target is a button / link, a recording is loaded. */
export interface KeyContext {
  onControl: boolean;
  canPlay: boolean;
}

/**
 * A key of the key table (src/shared/keymap.ts) pressed with a rollout shown; `key` is the table
 * key it matched. Returns the effects, or null when the key is left to the page (Enter or Space
 * on a button, `p` with no recording, Esc with the key list closed).
 */
export function keyAction(s: TimelineState, action: KeyAction, key: string, ctx: KeyContext): Effect[] | null {
  const r = rolloutMsg(s);
  if (!r) return null;
  switch (action) {
    case 'next':
      return move(s, 1);
    case 'previous':
      return move(s, -1);
    case 'first':
      return select(s, 0);
    case 'last':
      return select(s, r.rollout.steps.length - 1);
    case 'commitAndNext':
      // Enter on a focused button or link keeps its own meaning.
      return s.selected === null || ctx.onControl ? null : commitAndNext(s);
    case 'toggleExpand': {
      if (s.selected === null || ctx.onControl) return null;
      const out = toggleExpand(s, s.selected);
      s.pendingReveal = { index: s.selected, block: 'nearest' };
      return out;
    }
    case 'showInSource':
      return s.selected !== null ? [{ kind: 'showInSource', rolloutIndex: r.rolloutIndex, stepIndex: s.selected }] : [];
    case 'playPause':
      return ctx.canPlay ? [{ kind: 'togglePlayer' }] : null;
    case 'undo':
      return undoRedo(s, 'undoLabel');
    case 'redo':
      return undoRedo(s, 'redoLabel');
    case 'showKeys':
      if (key === 'Esc') {
        // Esc closes the key overlay, else clears a search's marks.
        if (s.showKeys) s.showKeys = false;
        else if (s.highlight) s.highlight = null;
        else return null;
        return [];
      }
      return labelAction(s, action);
    default:
      return labelAction(s, action);
  }
}
