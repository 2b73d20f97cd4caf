/**
 * Per-rollout totals people look for, shared by the timeline header (a chart of the context
 * growing over the steps) and the Rollouts view (the same totals per GRPO group): tokens, cost,
 * time per step and failed commands, from the steps as the loaders read them (core model `Step`).
 * Pure; types only from src/shared/model.ts.
 *
 * - Context of a step: the prompt tokens of the LLM call that produced it (`tokens.prompt`: what the
 *   model was sent, cached tokens included where the format counts them, as the loaders read them);
 *   a step without tokens has none (null), not 0.
 * - Time per step: the mean `durationSec` of the steps that record one (seconds).
 * - A command: a shell / keystrokes action with its observation (by call id, else by position); a
 *   failed one: its exit code is known and not 0, or the tool flagged it as an error.
 * Steps copied from an earlier context (ATIF `is_copied_context`) are left out, as in every count.
 * Unknown stays unknown: a total over no recorded value is null.
 */
import type { Step } from './model';

/** The fields of a step the totals read. */
export type TotalsStep = Pick<Step, 'tokens' | 'costUsd' | 'durationSec' | 'actions' | 'observations' | 'copiedContext'>;

/** Totals of one rollout, without the per-step series (what the Rollouts view keeps per rollout). */
export interface RolloutTotals {
  /** Steps counted (copied context left out). */
  steps: number;
  /** Sum of the steps' prompt / completion tokens; null when no step records any. */
  promptTokens: number | null;
  completionTokens: number | null;
  /** Largest prompt of one step (the context at its peak), or null. */
  peakContext: number | null;
  /** Sum of the steps' cost in USD, or null. */
  costUsd: number | null;
  /** Sum of the recorded step durations (s) and how many steps record one. */
  durationSec: number | null;
  timedSteps: number;
  /** Shell / keystrokes actions with a recorded result, and those that failed. */
  commands: number;
  failedCommands: number;
}

/** The per-step series the header's chart draws: by counted step, in order. */
export interface StepSeries {
  /** Step index (in `Rollout.steps`) of each point. */
  index: number[];
  /** Prompt tokens of the step's call (its context), or null. */
  context: (number | null)[];
  /** Cost of the step (USD), or null. */
  cost: (number | null)[];
}

const add = (a: number | null, b: number | null): number | null => (b === null ? a : (a ?? 0) + b);

function failed(o: TotalsStep['observations'][number]): boolean {
  return o.isError === true || (o.exitCode !== null && o.exitCode !== 0);
}

/** The observation answering action `i`: by call id, else by position (one action: the step's first). */
function observationOf(s: TotalsStep, a: TotalsStep['actions'][number], i: number): TotalsStep['observations'][number] | undefined {
  if (a.callId) {
    const byId = s.observations.find((o) => o.callId === a.callId);
    if (byId || s.observations.some((o) => o.callId)) return byId;
  }
  return s.observations[i] ?? (s.actions.length === 1 ? s.observations[0] : undefined);
}

/** Totals of a rollout's steps (rules in the module docs). */
export function rolloutTotals(steps: readonly TotalsStep[]): RolloutTotals {
  const t: RolloutTotals = { steps: 0, promptTokens: null, completionTokens: null, peakContext: null, costUsd: null, durationSec: null, timedSteps: 0, commands: 0, failedCommands: 0 };
  for (const s of steps) {
    if (s.copiedContext) continue;
    t.steps++;
    const p = s.tokens?.prompt ?? null;
    t.promptTokens = add(t.promptTokens, p);
    t.completionTokens = add(t.completionTokens, s.tokens?.completion ?? null);
    if (p !== null) t.peakContext = Math.max(t.peakContext ?? 0, p);
    t.costUsd = add(t.costUsd, s.costUsd);
    if (s.durationSec !== null) {
      t.durationSec = add(t.durationSec, s.durationSec);
      t.timedSteps++;
    }
    s.actions.forEach((a, i) => {
      if (a.kind !== 'shell' && a.kind !== 'keystrokes') return;
      const o = observationOf(s, a, i);
      if (!o) return;
      t.commands++;
      if (failed(o)) t.failedCommands++;
    });
  }
  return t;
}

/** The series of the header's chart (counted steps only). */
export function stepSeries(steps: readonly (TotalsStep & Pick<Step, 'index'>)[]): StepSeries {
  const out: StepSeries = { index: [], context: [], cost: [] };
  for (const s of steps) {
    if (s.copiedContext) continue;
    out.index.push(s.index);
    out.context.push(s.tokens?.prompt ?? null);
    out.cost.push(s.costUsd);
  }
  return out;
}

/** Totals of several rollouts (a GRPO group): sums, and how many rollouts there are. */
export function sumTotals(list: readonly RolloutTotals[]): RolloutTotals & { rollouts: number } {
  const t = { ...rolloutTotals([]), rollouts: list.length };
  for (const r of list) {
    t.steps += r.steps;
    t.promptTokens = add(t.promptTokens, r.promptTokens);
    t.completionTokens = add(t.completionTokens, r.completionTokens);
    if (r.peakContext !== null) t.peakContext = Math.max(t.peakContext ?? 0, r.peakContext);
    t.costUsd = add(t.costUsd, r.costUsd);
    t.durationSec = add(t.durationSec, r.durationSec);
    t.timedSteps += r.timedSteps;
    t.commands += r.commands;
    t.failedCommands += r.failedCommands;
  }
  return t;
}

/** A count in a few characters: `950`, `12.3k`, `4.1M`. */
export function compactCount(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 1e6) return `${(n / 1e3).toFixed(n < 1e4 ? 1 : 0)}k`;
  return `${(n / 1e6).toFixed(n < 1e7 ? 1 : 0)}M`;
}

/** A cost in USD: `$0.042`, `$1.23`. */
export function formatUsd(x: number): string {
  return `$${x < 0.1 ? x.toFixed(3) : x.toFixed(2)}`;
}

/**
 * The totals in words, the known ones only: `412k tokens`, `$1.23`, `3 of 40 commands failed`,
 * `4.1 s/step`.
 */
export function totalsParts(t: RolloutTotals): string[] {
  const parts: string[] = [];
  const tokens = add(t.promptTokens, t.completionTokens);
  if (tokens !== null) parts.push(`${compactCount(tokens)} tokens`);
  if (t.costUsd !== null) parts.push(formatUsd(t.costUsd));
  if (t.commands) parts.push(`${t.failedCommands} of ${t.commands} ${t.commands === 1 ? 'command' : 'commands'} failed`);
  if (t.durationSec !== null && t.timedSteps) parts.push(`${(t.durationSec / t.timedSteps).toFixed(1)} s/step`);
  return parts;
}

/**
 * Points of a sparkline over `values` (null = no point) in a `width` × `height` box, y growing
 * down, 0 at the bottom and the largest value at the top: `x,y` pairs joined by spaces, one run
 * per stretch of known values (a null breaks the line). Empty when no value is known.
 */
export function sparkRuns(values: readonly (number | null)[], width: number, height: number): string[] {
  const known = values.filter((v): v is number => v !== null && Number.isFinite(v));
  if (!known.length) return [];
  const max = Math.max(...known, 0) || 1;
  const step = values.length > 1 ? width / (values.length - 1) : 0;
  const runs: string[] = [];
  let cur: string[] = [];
  values.forEach((v, i) => {
    if (v === null || !Number.isFinite(v)) {
      if (cur.length) runs.push(cur.join(' '));
      cur = [];
      return;
    }
    const x = values.length > 1 ? i * step : width / 2;
    const y = height - (Math.max(0, v) / max) * height;
    cur.push(`${+x.toFixed(1)},${+y.toFixed(1)}`);
  });
  if (cur.length) runs.push(cur.join(' '));
  return runs;
}
