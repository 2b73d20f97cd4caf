/**
 * Agreement between two label sources (two annotators, or an annotator and the reference labels),
 * and between a scorer's per-step scores and labels. Formulas in docs/labels.md.
 *
 * Annotators: Cohen's κ over the steps both labelled (three categories +1 / 0 / −1),
 *   κ = (p_o − p_e) / (1 − p_e), p_o = share of steps with the same label,
 *   p_e = Σ_k (n_Ak / n)(n_Bk / n); the 3×3 confusion matrix (rows A, columns B, order +1, 0, −1);
 *   counts; first-error agreement (ProcessBench's first error of each side, where both define one).
 * Scores vs labels (score ∈ [0, 1], higher = better, `threshold` t):
 *   step accuracy = share of labelled, scored steps where (score ≥ t) ⇔ (label = +1); neutral per
 *   `neutral` (`drop`: left out — the default; `positive`/`negative`: counted as +1 / −1);
 *   first error as ProcessBench defines it: predicted first error = first agent step with score < t
 *   (−1 when none); accuracy on erroneous rollouts (gold ≠ −1), on correct rollouts (gold = −1),
 *   F1 = their harmonic mean; plus the exact-match rate over all (AgentProcessBench `first_neg1_idx_acc`);
 *   AUROC of (1 − score) as a detector of bad steps (−1, and 0 under `negative`) against good steps
 *   (+1, and 0 under `positive`): rank-based (Mann–Whitney), ties get the average rank.
 *
 * Scores file: JSON Lines, one `{"rolloutId": string, "stepIndex": int ≥ 0, "value": number}` per
 * line (other members, e.g. a full `Score`, are ignored).
 *
 * This module never imports `vscode`.
 */
import * as fs from 'node:fs';
import type { Rollout } from '../model';
import type { LabelValue } from './api';
import { labelConflictOf } from './conflicts';
import { firstError, type NeutralMapping } from './select';

/** Category order of the confusion matrix rows and columns. */
export const LABEL_ORDER: readonly LabelValue[] = [1, 0, -1];

function cat(v: LabelValue): number {
  return v === 1 ? 0 : v === 0 ? 1 : 2;
}

export interface KappaResult {
  /** Steps both sides labelled. */
  n: number;
  /** Observed agreement p_o (null when n = 0). */
  observed: number | null;
  /** Chance agreement p_e (null when n = 0). */
  expected: number | null;
  /** Cohen's κ; null when n = 0 or p_e = 1 (both sides used one and the same label throughout). */
  kappa: number | null;
  /** confusion[i][j] = steps A labelled LABEL_ORDER[i] and B labelled LABEL_ORDER[j]. */
  confusion: number[][];
}

/** Cohen's κ and the confusion matrix of paired labels. */
export function cohenKappa(pairs: Iterable<[LabelValue, LabelValue]>): KappaResult {
  const confusion = [0, 1, 2].map(() => [0, 0, 0]);
  let n = 0;
  for (const [a, b] of pairs) {
    confusion[cat(a)][cat(b)]++;
    n++;
  }
  if (n === 0) return { n, observed: null, expected: null, kappa: null, confusion };
  const observed = (confusion[0][0] + confusion[1][1] + confusion[2][2]) / n;
  let expected = 0;
  for (let k = 0; k < 3; k++) {
    const rowK = confusion[k][0] + confusion[k][1] + confusion[k][2];
    const colK = confusion[0][k] + confusion[1][k] + confusion[2][k];
    expected += (rowK / n) * (colK / n);
  }
  const kappa = expected === 1 ? null : (observed - expected) / (1 - expected);
  return { n, observed, expected, kappa, confusion };
}

/** One rollout with the labels of two sources (or the labels of one and the scores). */
export interface PairedLabels {
  rollout: Rollout;
  a: Map<number, LabelValue>;
  b: Map<number, LabelValue>;
}

export interface AnnotatorAgreement extends KappaResult {
  a: string;
  b: string;
  rollouts: number;
  labelledA: number;
  labelledB: number;
  onlyA: number;
  onlyB: number;
  /** Rollouts where both sides define a first error (select.ts `firstError`), and how many agree on it. */
  firstError: { compared: number; agree: number };
  /** Rollouts left out of κ and the first error because their dataset labels contradict each other (./conflicts.ts). */
  conflicting: number;
}

/** Agreement between two label sources over the steps of the given rollouts. */
export function annotatorAgreement(items: PairedLabels[], names: { a: string; b: string }, neutral: NeutralMapping = 'drop'): AnnotatorAgreement {
  const pairs: [LabelValue, LabelValue][] = [];
  let labelledA = 0;
  let labelledB = 0;
  let compared = 0;
  let agree = 0;
  let conflicting = 0;
  for (const it of items) {
    if (labelConflictOf(it.rollout)) {
      conflicting++;
      continue;
    }
    labelledA += it.a.size;
    labelledB += it.b.size;
    for (const [i, va] of it.a) {
      const vb = it.b.get(i);
      if (vb !== undefined) pairs.push([va, vb]);
    }
    const fa = firstError(it.rollout, it.a, neutral);
    const fb = firstError(it.rollout, it.b, neutral);
    if (fa.defined && fb.defined) {
      compared++;
      if (fa.index === fb.index) agree++;
    }
  }
  const k = cohenKappa(pairs);
  return { ...names, rollouts: items.length, labelledA, labelledB, onlyA: labelledA - k.n, onlyB: labelledB - k.n, ...k, firstError: { compared, agree }, conflicting };
}

// ---------------------------------------------------------------------------------------------
// Scores

/** Scores by rollout id, then step index. */
export type ScoreMap = Map<string, Map<number, number>>;

/** Reads a scores JSONL file; bad lines are located warnings (`file:line: …`), a repeated step keeps its last score. */
export function parseScores(file: string, text: string): { scores: ScoreMap; count: number; warnings: string[] } {
  const scores: ScoreMap = new Map();
  const warnings: string[] = [];
  let count = 0;
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const where = `${file}:${i + 1}`;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      warnings.push(`${where}: skipped: not JSON`);
      return;
    }
    const o = v as { rolloutId?: unknown; stepIndex?: unknown; value?: unknown } | null;
    if (!o || typeof o !== 'object' || typeof o.rolloutId !== 'string' || !Number.isInteger(o.stepIndex) || (o.stepIndex as number) < 0 || typeof o.value !== 'number' || !Number.isFinite(o.value)) {
      warnings.push(`${where}: skipped: expected {"rolloutId": string, "stepIndex": integer ≥ 0, "value": number}`);
      return;
    }
    let m = scores.get(o.rolloutId);
    if (!m) scores.set(o.rolloutId, (m = new Map()));
    if (m.has(o.stepIndex as number)) warnings.push(`${where}: a second score for ${o.rolloutId} step ${o.stepIndex as number}: this one is used`);
    else count++;
    m.set(o.stepIndex as number, o.value);
  });
  return { scores, count, warnings };
}

export async function readScores(file: string): Promise<{ scores: ScoreMap; count: number; warnings: string[] }> {
  return parseScores(file, await fs.promises.readFile(file, 'utf8'));
}

/**
 * Area under the ROC curve of a detector: P(a positive's value > a negative's value) + ½ P(equal),
 * computed from ranks (Mann–Whitney U; tied values share their average rank). Null when either
 * class is empty.
 * @param positives detector values of the positive cases (higher = more likely positive)
 * @param negatives detector values of the negative cases
 */
export function auroc(positives: number[], negatives: number[]): number | null {
  const np = positives.length;
  const nn = negatives.length;
  if (np === 0 || nn === 0) return null;
  const all = [...positives.map((v) => ({ v, pos: true })), ...negatives.map((v) => ({ v, pos: false }))].sort((x, y) => x.v - y.v);
  let rankSumPos = 0;
  for (let i = 0; i < all.length; ) {
    let j = i;
    while (j + 1 < all.length && all[j + 1].v === all[i].v) j++;
    const avgRank = (i + 1 + (j + 1)) / 2; // ranks are 1-based
    for (let k = i; k <= j; k++) if (all[k].pos) rankSumPos += avgRank;
    i = j + 1;
  }
  return (rankSumPos - (np * (np + 1)) / 2) / (np * nn);
}

export interface Ratio {
  n: number;
  correct: number;
  /** correct / n, null when n = 0. */
  value: number | null;
}

function ratio(correct: number, n: number): Ratio {
  return { n, correct, value: n ? correct / n : null };
}

export interface ScorerAgreement {
  threshold: number;
  neutral: NeutralMapping;
  /** Rollouts given; with at least one score. */
  rollouts: number;
  scoredRollouts: number;
  /** Scores in the file for rollouts or steps not among the given rollouts. */
  unmatchedScores: number;
  /** Step accuracy over labelled, scored steps (neutral per `neutral`). */
  stepAccuracy: Ratio;
  /** AUROC of 1 − score for bad vs good steps; `bad`/`good` are the class sizes. */
  auroc: { value: number | null; bad: number; good: number };
  /** ProcessBench: accuracy on erroneous and on correct rollouts, F1 (harmonic mean), and the exact-match rate over both. */
  firstError: { erroneous: Ratio; correct: Ratio; f1: number | null; exactMatch: Ratio; undefinedGold: number; conflicting: number };
}

/** Predicted first error: the first agent step (by index) with a score below the threshold, −1 when none. */
export function predictedFirstError(rollout: Rollout, scores: Map<number, number>, threshold: number): number {
  for (const s of rollout.steps) {
    if (s.role !== 'agent') continue;
    const v = scores.get(s.index);
    if (v !== undefined && v < threshold) return s.index;
  }
  return -1;
}

/**
 * Agreement of scores with labels.
 * @param items each rollout with its labels (in `a`; `b` is not read)
 */
export function scorerAgreement(items: { rollout: Rollout; labels: Map<number, LabelValue> }[], scores: ScoreMap, options: { threshold?: number; neutral?: NeutralMapping } = {}): ScorerAgreement {
  const threshold = options.threshold ?? 0.5;
  const neutral = options.neutral ?? 'drop';
  let stepsN = 0;
  let stepsOk = 0;
  const bad: number[] = [];
  const good: number[] = [];
  let errN = 0;
  let errOk = 0;
  let corN = 0;
  let corOk = 0;
  let undefinedGold = 0;
  let conflicting = 0;
  let scoredRollouts = 0;
  const known = new Map(items.map((it) => [it.rollout.id, it.rollout]));
  let unmatched = 0;
  for (const [rid, m] of scores) {
    const r = known.get(rid);
    for (const i of m.keys()) if (!r || i >= r.steps.length) unmatched++;
  }
  for (const { rollout, labels } of items) {
    const sc = scores.get(rollout.id);
    if (!sc || sc.size === 0) continue;
    scoredRollouts++;
    for (const [i, v] of labels) {
      const s = sc.get(i);
      if (s === undefined) continue;
      const isGood = v === 1 ? true : v === -1 ? false : neutral === 'positive' ? true : neutral === 'negative' ? false : null;
      if (isGood === null) continue;
      stepsN++;
      if ((s >= threshold) === isGood) stepsOk++;
      // Detector value 1 − score, ranked as −score (the same order, without rounding).
      (isGood ? good : bad).push(-s);
    }
    if (labelConflictOf(rollout)) {
      // The dataset's own labels contradict each other: no gold first error to compare with.
      conflicting++;
      continue;
    }
    const gold = firstError(rollout, labels, neutral);
    if (!gold.defined) {
      undefinedGold++;
      continue;
    }
    const pred = predictedFirstError(rollout, sc, threshold);
    if (gold.index === -1) {
      corN++;
      if (pred === -1) corOk++;
    } else {
      errN++;
      if (pred === gold.index) errOk++;
    }
  }
  const erroneous = ratio(errOk, errN);
  const correct = ratio(corOk, corN);
  const f1 =
    erroneous.value === null || correct.value === null
      ? null
      : erroneous.value + correct.value === 0
        ? 0
        : (2 * erroneous.value * correct.value) / (erroneous.value + correct.value);
  return {
    threshold,
    neutral,
    rollouts: items.length,
    scoredRollouts,
    unmatchedScores: unmatched,
    stepAccuracy: ratio(stepsOk, stepsN),
    auroc: { value: auroc(bad, good), bad: bad.length, good: good.length },
    firstError: { erroneous, correct, f1, exactMatch: ratio(errOk + corOk, errN + corN), undefinedGold, conflicting },
  };
}
