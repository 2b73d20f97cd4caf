/**
 * The timeline's view of the user's labels (pure: no DOM, no Lit). The host sends every annotator's
 * current labels of the rollout (`LabelsMessage`); the webview splits them into the user's own
 * (`mine`, editable) and the others' (shown beside them), and overlays the changes it has sent but
 * the host has not answered yet, so a key's effect shows at once and `Enter` knows the step is done.
 */
import type { CurrentLabel, LabelValue } from '../src/shared/model';
import type { LabelChangeView, LabelsMessage } from '../src/shared/protocol';

/** One label as a card shows it. */
export interface StepLabel {
  value: LabelValue | null;
  firstError: boolean;
  note: string | null;
  annotator: string;
  /** ISO time of the journal entry; null while the change is not written yet. */
  time: string | null;
  origin: 'manual' | 'propagated';
  /** The step changed since it was labelled (content hash differs). */
  stale: boolean;
  /** Sent to the host and not answered yet (`sending`), or its write failed and waits for a retry (`unsaved`). */
  pending: 'sending' | 'unsaved' | null;
}

/** A change the webview sent and the host has not answered yet. */
export interface SentChange extends LabelChangeView {
  seq: number;
}

export interface LabelIndex {
  annotator: string;
  /** The user's label per step (steps with neither value nor note are left out). */
  mine: Map<number, StepLabel>;
  /** Other annotators' labels per step. */
  others: Map<number, CurrentLabel[]>;
  /** The user's rollout verdict. */
  verdict: StepLabel | null;
  /** Other annotators' verdicts. */
  otherVerdicts: CurrentLabel[];
}

function fromCurrent(l: CurrentLabel): StepLabel {
  return { value: l.value, firstError: l.firstError, note: l.note, annotator: l.annotator, time: l.time, origin: l.origin, stale: l.stale, pending: null };
}

function overlay(base: StepLabel | undefined | null, c: LabelChangeView, annotator: string, pending: 'sending' | 'unsaved'): StepLabel {
  const l: StepLabel = base ? { ...base } : { value: null, firstError: false, note: null, annotator, time: null, origin: 'manual', stale: false, pending };
  if (c.value !== undefined) {
    l.value = c.value;
    l.origin = 'manual';
    l.stale = false;
    if (c.value !== -1) l.firstError = false;
  }
  if (c.firstError !== undefined) l.firstError = c.firstError;
  if (c.note !== undefined) l.note = c.note;
  l.pending = pending;
  return l;
}

function isEmpty(l: StepLabel): boolean {
  return l.value === null && !l.firstError && (l.note === null || l.note === '');
}

/**
 * Splits the host's labels into the user's and the others', then applies the unsaved changes the
 * host reports and the changes still in flight (`sent`, oldest first).
 */
export function indexLabels(msg: LabelsMessage | null, sent: readonly SentChange[], fallbackAnnotator = ''): LabelIndex {
  const annotator = msg?.annotator ?? fallbackAnnotator;
  const idx: LabelIndex = { annotator, mine: new Map(), others: new Map(), verdict: null, otherVerdicts: [] };
  for (const l of msg?.labels ?? []) {
    if (l.annotator === annotator) {
      if (l.stepIndex === null) idx.verdict = fromCurrent(l);
      else idx.mine.set(l.stepIndex, fromCurrent(l));
    } else if (l.value !== null || l.note) {
      if (l.stepIndex === null) idx.otherVerdicts.push(l);
      else {
        const list = idx.others.get(l.stepIndex) ?? [];
        list.push(l);
        idx.others.set(l.stepIndex, list);
      }
    }
  }
  const apply = (c: LabelChangeView, pending: 'sending' | 'unsaved'): void => {
    if (c.stepIndex === null) idx.verdict = overlay(idx.verdict, c, annotator, pending);
    else idx.mine.set(c.stepIndex, overlay(idx.mine.get(c.stepIndex), c, annotator, pending));
  };
  for (const c of msg?.unsaved ?? []) apply(c, 'unsaved');
  for (const c of sent) apply(c, 'sending');
  for (const [i, l] of idx.mine) if (isEmpty(l) && !l.pending) idx.mine.delete(i);
  if (idx.verdict && isEmpty(idx.verdict) && !idx.verdict.pending) idx.verdict = null;
  return idx;
}

/** True when the user has given step `i` a value (a note alone does not count). */
export function isLabelled(idx: LabelIndex, i: number): boolean {
  const l = idx.mine.get(i);
  return l !== undefined && l.value !== null;
}

/**
 * The steps a PRM label is for: the agent's (AgentProcessBench labels assistant messages; export,
 * propagation and the first error count agent steps only). A rollout without agent steps: all of them.
 */
export function labelableSteps(steps: readonly { index: number; role: string }[]): number[] {
  const agent = steps.filter((s) => s.role === 'agent').map((s) => s.index);
  return agent.length ? agent : steps.map((s) => s.index);
}

export interface LabelProgress {
  /** Labelable steps with a value. */
  labelled: number;
  /** Labelable steps. */
  total: number;
  /** Counts over every step the user labelled (labelable or not). */
  good: number;
  neutral: number;
  bad: number;
  propagated: number;
  stale: number;
  /** The user's first error (0-based), or null. */
  firstError: number | null;
  /** Steps the user labelled that are not labelable (a system or user step when agent steps count): not in `labelled`. */
  outside: number;
}

export function labelProgress(idx: LabelIndex, labelable: readonly number[]): LabelProgress {
  const p: LabelProgress = { labelled: 0, total: labelable.length, good: 0, neutral: 0, bad: 0, propagated: 0, stale: 0, firstError: null, outside: 0 };
  const counted = new Set(labelable);
  for (const i of labelable) if (isLabelled(idx, i)) p.labelled++;
  for (const [i, l] of idx.mine) if (l.value !== null && !counted.has(i)) p.outside++;
  for (const [i, l] of idx.mine) {
    if (l.value !== null) {
      if (l.value === 1) p.good++;
      else if (l.value === 0) p.neutral++;
      else p.bad++;
      if (l.origin === 'propagated') p.propagated++;
    }
    if (l.stale) p.stale++;
    if (l.firstError && (p.firstError === null || i < p.firstError)) p.firstError = i;
  }
  return p;
}

/**
 * The next labelable step after `from` the user has not labelled, wrapping around to the start;
 * null when every one is labelled.
 */
export function nextUnlabelled(idx: LabelIndex, labelable: readonly number[], from: number): number | null {
  const n = labelable.length;
  if (!n) return null;
  let start = labelable.findIndex((i) => i > from);
  if (start < 0) start = 0;
  for (let k = 0; k < n; k++) {
    const i = labelable[(start + k) % n];
    if (!isLabelled(idx, i)) return i;
  }
  return null;
}

/** The first error a propagated label at step `i` comes from: the nearest earlier step the user marked. */
export function propagatedFrom(idx: LabelIndex, i: number): number | null {
  for (let k = i - 1; k >= 0; k--) if (idx.mine.get(k)?.firstError) return k;
  return null;
}

/** `v` cycles the rollout verdict: none → good → neutral → bad → none (the order of the keys 1 2 3). */
export function nextVerdict(v: LabelValue | null): LabelValue | null {
  return v === null ? 1 : v === 1 ? 0 : v === 0 ? -1 : null;
}

/** `+1 good`, `0 neutral`, `−1 bad`. */
export function valueText(v: LabelValue): { sign: string; word: 'good' | 'neutral' | 'bad' } {
  return v === 1 ? { sign: '+1', word: 'good' } : v === -1 ? { sign: '−1', word: 'bad' } : { sign: '0', word: 'neutral' };
}

/** `2026-05-04 12:03` from an ISO time (as written, no zone conversion beyond what Date does). */
export function labelTime(iso: string | null): string {
  if (!iso) return 'not written yet';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const d = new Date(t);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** The tooltip of a label: value, origin, note, annotator, time, staleness. */
export function labelTitle(l: StepLabel, from: number | null, own: boolean): string {
  const lines: string[] = [];
  if (l.value !== null) {
    const t = valueText(l.value);
    lines.push(`${own ? 'Your label' : `${l.annotator}'s label`}: ${t.sign} (${t.word})${l.firstError ? ', the first error' : ''}`);
  } else lines.push(own ? 'Your note' : `${l.annotator}'s note`);
  if (l.origin === 'propagated') lines.push(`propagated from the first error${from !== null ? ` at #${from + 1}` : ''} (later agent steps count as bad unless labelled otherwise)`);
  if (l.note) lines.push(`note: ${l.note}`);
  lines.push(`annotator: ${l.annotator} · ${labelTime(l.time)}`);
  if (l.stale) lines.push('stale: the step changed since it was labelled');
  if (l.pending === 'sending') lines.push('saving…');
  if (l.pending === 'unsaved') lines.push('NOT SAVED YET: writing the journal failed; kept in memory and retried on the next change');
  return lines.join('\n');
}
