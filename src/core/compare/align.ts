/**
 * Step-level alignment of two rollouts of the same task (two models, two checkpoints, two rollouts
 * of one GRPO group): which steps correspond, which differ, which exist on one side only, and the
 * first point where the two part.
 *
 * Method:
 * 1. Every step gets a key: its role plus its normalised actions (shell command / keystrokes with
 *    whitespace collapsed, or tool name + canonical JSON arguments); a step without actions is keyed
 *    by its normalised message (and, failing that, its first output).
 * 2. The two key sequences are aligned with the `diff` package's `diffArrays` (Myers' O(ND) diff,
 *    i.e. a longest common subsequence), so a retry inserted on one side does not shift everything
 *    after it.
 * 3. Each run of removed steps next to a run of added steps is paired in order where the steps are
 *    similar (same role, word-set similarity of their keys ≥ `pairThreshold`) by a small dynamic
 *    programme that maximises total similarity; those pairs are `changed`, the rest `only-left` /
 *    `only-right`.
 * 4. Aligned pairs whose content (actions, outputs, exit codes, message, reasoning) is equal are
 *    `same`; otherwise `changed`, with what differs and inline word / line diffs of the texts.
 *
 * Pure TypeScript (no vscode); unit-tested on real samples in test/unit/compare/align.test.ts.
 */
import { diffArrays, diffLines, diffWords } from 'diff';
import type { Action, Rollout, Step } from '../model';

/** How a row of the alignment relates its two sides. */
export type RowStatus = 'same' | 'changed' | 'only-left' | 'only-right';

/** Which parts of a paired step differ. */
export type StepPart = 'actions' | 'output' | 'exitCode' | 'message' | 'reasoning' | 'role';

/** One piece of an inline text diff: text common to both sides, only left (`del`), or only right (`add`). */
export interface DiffSegment {
  kind: 'same' | 'del' | 'add';
  text: string;
}

/** An inline diff of one text field of a changed pair; `null` segments when a side is too long to diff. */
export interface TextDiff {
  left: string;
  right: string;
  /** The diff, or null when either side is longer than `maxDiffChars` (both texts are still given, cut). */
  segments: DiffSegment[] | null;
}

/** One row of an alignment. `left` / `right` are 0-based step indices, null on the side that has no step. */
export interface AlignedRow {
  status: RowStatus;
  left: number | null;
  right: number | null;
  /** For `changed`: what differs. Empty otherwise. */
  differs: StepPart[];
  /** Similarity of the two steps' keys in [0, 1] (1 for key-equal pairs), null for one-sided rows. */
  similarity: number | null;
  /** Inline diffs of the changed texts (commands, outputs, message, reasoning); only for `changed` rows. */
  diffs?: { command?: TextDiff; output?: TextDiff; message?: TextDiff; reasoning?: TextDiff };
}

/** Where the two rollouts first part: the first row that is not `same`, and its step on each side. */
export interface Divergence {
  row: number;
  status: Exclude<RowStatus, 'same'>;
  /** Step index on the left at (or, for an `only-right` row, just after) the divergence; null past the end. */
  left: number | null;
  right: number | null;
}

/** The alignment of two rollouts. */
export interface Alignment {
  rows: AlignedRow[];
  counts: Record<RowStatus, number>;
  /** First row that is not `same` (any difference, message or reasoning included); null when identical. */
  firstDivergence: Divergence | null;
  /** First row whose actions differ (a changed command / tool call, or a step on one side only); null when the actions agree throughout. */
  firstActionDivergence: Divergence | null;
}

/** Options of `alignRollouts`. */
export interface AlignOptions {
  /** Smallest key similarity for a removed and an added step to be shown as one `changed` row (default 0.3). */
  pairThreshold?: number;
  /** Texts longer than this many characters are not diffed inline (default 20 000). */
  maxDiffChars?: number;
  /** Runs longer than this are paired in order without the similarity programme (default 400). */
  maxPairRun?: number;
  /** Compute inline diffs of changed rows (default true). */
  inlineDiffs?: boolean;
}

// ------------------------------------------------------------------------------------------ keys

/** Whitespace runs collapsed to one space, ends trimmed. */
export function normaliseText(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** JSON with object keys sorted (so argument order does not matter). */
function canonicalJson(v: unknown): string {
  if (v === undefined) return '';
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? '';
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
    .join(',')}}`;
}

/** The text of one action as a key: `shell: ls -la`, `tool str_replace_editor {"command":…}`. */
export function actionKey(a: Action): string {
  if (a.command !== null && a.command.trim() !== '') return `${a.kind}: ${normaliseText(a.command)}`;
  const args = a.arguments === undefined ? '' : ` ${normaliseText(canonicalJson(a.arguments))}`;
  return `${a.kind} ${a.tool ?? ''}${a.path ? ` ${a.path}` : ''}${args}`;
}

/**
 * The command text of a step as shown and diffed: each action's command (trailing newlines cut) or
 * `tool <name> <canonical JSON arguments>`, one per line ('' when none).
 */
export function commandText(step: Step): string {
  return step.actions
    .map((a) => (a.command !== null && a.command.trim() !== '' ? a.command.replace(/\s+$/, '') : actionKey(a)))
    .join('\n');
}

/** The output text of a step: its observations' outputs joined by blank lines. */
export function outputText(step: Step): string {
  return step.observations.map((o) => o.output).join('\n\n');
}

/** Messages longer than this are keyed by their head (a long system prompt differing at its end still pairs). */
const KEY_MESSAGE_CHARS = 2000;

/**
 * The alignment key of a step: role plus normalised actions; for a step without actions its
 * normalised message (first 2 000 characters), else its first output, else its reasoning.
 */
export function stepKey(step: Step): string {
  if (step.actions.length > 0) return `${step.role}|${step.actions.map(actionKey).join('\u0001')}`;
  const msg = normaliseText(step.message);
  if (msg) return `${step.role}|msg: ${msg.slice(0, KEY_MESSAGE_CHARS)}`;
  const out = normaliseText(outputText(step));
  if (out) return `${step.role}|out: ${out.slice(0, KEY_MESSAGE_CHARS)}`;
  return `${step.role}|reasoning: ${normaliseText(step.reasoning ?? '').slice(0, KEY_MESSAGE_CHARS)}`;
}

/** Word set of a key (lower case, words of letters / digits / a few path characters). */
function words(s: string): Set<string> {
  return new Set(s.toLowerCase().match(/[\p{L}\p{N}_./-]+/gu) ?? []);
}

/**
 * Similarity of two steps in [0, 1]: 0 when their roles differ; else the Jaccard index of the word
 * sets of their keys (1 when the keys are equal).
 */
export function stepSimilarity(a: Step, b: Step, ka = stepKey(a), kb = stepKey(b)): number {
  if (a.role !== b.role) return 0;
  if (ka === kb) return 1;
  const wa = words(ka);
  const wb = words(kb);
  if (wa.size === 0 && wb.size === 0) return 1;
  let inter = 0;
  for (const w of wa) if (wb.has(w)) inter++;
  return inter / (wa.size + wb.size - inter);
}

// ------------------------------------------------------------------------------------- compare

/** Which parts of two steps differ (empty: the same step). */
export function stepDifferences(a: Step, b: Step): StepPart[] {
  const out: StepPart[] = [];
  if (a.role !== b.role) out.push('role');
  if (commandText(a) !== commandText(b)) out.push('actions');
  if (outputText(a) !== outputText(b)) out.push('output');
  const codes = (s: Step) => s.observations.map((o) => o.exitCode).join(',');
  if (codes(a) !== codes(b)) out.push('exitCode');
  if (a.message !== b.message) out.push('message');
  if ((a.reasoning ?? '') !== (b.reasoning ?? '')) out.push('reasoning');
  return out;
}

/** An inline diff of two texts: words for short single-line texts, lines otherwise. */
export function textDiff(left: string, right: string, maxChars = 20_000): TextDiff {
  if (left.length > maxChars || right.length > maxChars) {
    return { left: left.slice(0, maxChars), right: right.slice(0, maxChars), segments: null };
  }
  const multiline = left.includes('\n') || right.includes('\n');
  const changes = multiline ? diffLines(left, right) : diffWords(left, right);
  const segments: DiffSegment[] = changes.map((c) => ({ kind: c.added ? 'add' : c.removed ? 'del' : 'same', text: c.value }));
  return { left, right, segments };
}

function inlineDiffs(a: Step, b: Step, differs: StepPart[], maxChars: number): NonNullable<AlignedRow['diffs']> {
  const d: NonNullable<AlignedRow['diffs']> = {};
  if (differs.includes('actions')) d.command = textDiff(commandText(a), commandText(b), maxChars);
  if (differs.includes('output')) d.output = textDiff(outputText(a), outputText(b), maxChars);
  if (differs.includes('message')) d.message = textDiff(a.message, b.message, maxChars);
  if (differs.includes('reasoning')) d.reasoning = textDiff(a.reasoning ?? '', b.reasoning ?? '', maxChars);
  return d;
}

// ------------------------------------------------------------------------------------- pairing

/**
 * Pairs a run of left-only steps with the run of right-only steps beside it: in order, maximising
 * the summed similarity of the pairs, each pair at least `threshold` similar. Returns the rows.
 */
function pairRuns(
  left: number[],
  right: number[],
  sim: (l: number, r: number) => number,
  threshold: number,
  maxRun: number,
): { status: RowStatus; left: number | null; right: number | null; similarity: number | null }[] {
  const m = left.length;
  const n = right.length;
  const rows: { status: RowStatus; left: number | null; right: number | null; similarity: number | null }[] = [];
  if (m === 0 || n === 0 || m > maxRun || n > maxRun) {
    // Too long to pair carefully (or nothing to pair): pair in order while similar enough.
    let i = 0;
    let j = 0;
    while (i < m && j < n) {
      const s = sim(left[i], right[j]);
      if (s < threshold) break;
      rows.push({ status: 'changed', left: left[i++], right: right[j++], similarity: s });
    }
    for (; i < m; i++) rows.push({ status: 'only-left', left: left[i], right: null, similarity: null });
    for (; j < n; j++) rows.push({ status: 'only-right', left: null, right: right[j], similarity: null });
    return rows;
  }
  // best[i][j]: the best total similarity pairing left[i..] with right[j..].
  const s: number[][] = left.map((l) => right.map((r) => sim(l, r)));
  const best: Float64Array[] = Array.from({ length: m + 1 }, () => new Float64Array(n + 1));
  for (let i = m - 1; i >= 0; i--) {
    for (let j = n - 1; j >= 0; j--) {
      let v = Math.max(best[i + 1][j], best[i][j + 1]);
      if (s[i][j] >= threshold) v = Math.max(v, s[i][j] + best[i + 1][j + 1]);
      best[i][j] = v;
    }
  }
  let i = 0;
  let j = 0;
  while (i < m && j < n) {
    if (s[i][j] >= threshold && best[i][j] === s[i][j] + best[i + 1][j + 1]) {
      rows.push({ status: 'changed', left: left[i], right: right[j], similarity: s[i][j] });
      i++;
      j++;
    } else if (best[i][j] === best[i + 1][j]) {
      rows.push({ status: 'only-left', left: left[i++], right: null, similarity: null });
    } else {
      rows.push({ status: 'only-right', left: null, right: right[j++], similarity: null });
    }
  }
  for (; i < m; i++) rows.push({ status: 'only-left', left: left[i], right: null, similarity: null });
  for (; j < n; j++) rows.push({ status: 'only-right', left: null, right: right[j], similarity: null });
  return rows;
}

// ------------------------------------------------------------------------------------- align

function divergenceAt(rows: AlignedRow[], k: number): Divergence {
  const row = rows[k];
  // The step on each side at the divergence: the row's own, else the next one that side has.
  const next = (side: 'left' | 'right'): number | null => {
    for (let i = k; i < rows.length; i++) {
      const v = rows[i][side];
      if (v !== null) return v;
    }
    return null;
  };
  return { row: k, status: row.status as Divergence['status'], left: row.left ?? next('left'), right: row.right ?? next('right') };
}

/**
 * Aligns the steps of two rollouts (see the module comment for the method). Never throws for any
 * pair of valid rollouts; cost is O((N+M)·D) for the diff plus O(m·n) per removed/added run pair
 * (runs over `maxPairRun` are paired in order).
 */
export function alignRollouts(left: Pick<Rollout, 'steps'>, right: Pick<Rollout, 'steps'>, options: AlignOptions = {}): Alignment {
  const threshold = options.pairThreshold ?? 0.3;
  const maxChars = options.maxDiffChars ?? 20_000;
  const maxRun = options.maxPairRun ?? 400;
  const wantDiffs = options.inlineDiffs ?? true;
  const L = left.steps;
  const R = right.steps;
  const lk = L.map(stepKey);
  const rk = R.map(stepKey);
  const sim = (i: number, j: number): number => stepSimilarity(L[i], R[j], lk[i], rk[j]);

  const rows: AlignedRow[] = [];
  const push = (r: { status: RowStatus; left: number | null; right: number | null; similarity: number | null }): void => {
    if (r.left !== null && r.right !== null) {
      const differs = stepDifferences(L[r.left], R[r.right]);
      if (differs.length === 0) rows.push({ status: 'same', left: r.left, right: r.right, differs, similarity: r.similarity });
      else {
        const row: AlignedRow = { status: 'changed', left: r.left, right: r.right, differs, similarity: r.similarity };
        if (wantDiffs) row.diffs = inlineDiffs(L[r.left], R[r.right], differs, maxChars);
        rows.push(row);
      }
    } else rows.push({ ...r, differs: [] });
  };

  let i = 0;
  let j = 0;
  let removed: number[] = [];
  let added: number[] = [];
  const flush = (): void => {
    for (const r of pairRuns(removed, added, sim, threshold, maxRun)) push(r);
    removed = [];
    added = [];
  };
  for (const c of diffArrays(lk, rk)) {
    if (c.removed) {
      for (let k = 0; k < c.count; k++) removed.push(i++);
    } else if (c.added) {
      for (let k = 0; k < c.count; k++) added.push(j++);
    } else {
      flush();
      for (let k = 0; k < c.count; k++) push({ status: 'same', left: i++, right: j++, similarity: 1 });
    }
  }
  flush();

  const counts: Record<RowStatus, number> = { same: 0, changed: 0, 'only-left': 0, 'only-right': 0 };
  for (const r of rows) counts[r.status]++;
  const first = rows.findIndex((r) => r.status !== 'same');
  const firstAction = rows.findIndex((r) => r.status === 'only-left' || r.status === 'only-right' || (r.status === 'changed' && r.differs.includes('actions')));
  return {
    rows,
    counts,
    firstDivergence: first >= 0 ? divergenceAt(rows, first) : null,
    firstActionDivergence: firstAction >= 0 ? divergenceAt(rows, firstAction) : null,
  };
}
