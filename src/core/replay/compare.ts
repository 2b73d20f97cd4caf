/**
 * Comparison of a replayed step with the recording: exit code first, then cwd, then the
 * normalised text (normalize.ts). Where the replay kept stdout and stderr apart, their lines are
 * interleaved the way the recording shows them (streams.ts mergeLike): the engine does not keep
 * the order between the two. The first step that differs is the divergence; every later step
 * is marked "state may differ" (the container's state is no longer the recording's).
 *
 * A file edit is compared on its success, not its text: the recording's observation says the edit
 * applied or failed (edits.ts recordedEditOutcome), the replay says whether it applies now; they
 * differ when one applied and the other did not (the summary gives the replay's reason).
 */
import { createTwoFilesPatch } from 'diff';
import type { FileChange } from './applyPatch';
import type { EditOutcome } from './edits';
import type { StepRun } from './executors';
import { DEFAULT_RULES, normalizeOutput, type NormalizationRule } from './normalize';
import type { ReplayPlan, ReplayStep } from './plan';
import { mergeLike } from './streams';

/** Per-step verdict shown in the timeline, the raw file and the CLI. */
export type StepStatus = 'same' | 'differs' | 'not-replayable';

/** What differed, in the order it is checked. */
export type DiffKind = 'exit-code' | 'cwd' | 'output' | 'timeout' | 'output-cap' | 'error' | 'edit';

/** The outcome of one replayed (or skipped) plan step. */
export interface StepComparison {
  /** Position in plan.steps. */
  planIndex: number;
  stepIndex: number;
  status: StepStatus;
  /** Set when status is 'differs'. */
  diffKind: DiffKind | null;
  /** One line for people: "exit code 0 → 127", "output differs (line 3)". */
  summary: string;
  /** True for steps after the first divergence. */
  stateMayDiffer: boolean;
  recorded: { exitCode: number | null; cwd: string | null; text: string };
  replayed: { exitCode: number | null; cwd: string | null; text: string; raw: string } | null;
  /** Names of the normalisation rules that changed either side. */
  rulesFired: string[];
  /**
   * For a file edit: whether it applied in the replay (`written` false when it was only checked
   * because the recording says it failed) and the files it changed, before and after.
   */
  edit?: { applied: boolean; written: boolean; changes: FileChange[] };
}

function firstDifferentLine(a: string, b: string): number {
  const x = a.split('\n');
  const y = b.split('\n');
  for (let i = 0; i < Math.max(x.length, y.length); i++) if (x[i] !== y[i]) return i + 1;
  return 0;
}

/**
 * Compares one replayed step with its recording.
 * @param stateMayDiffer whether an earlier step already diverged
 */
export async function compareStep(plan: ReplayPlan, planIndex: number, run: StepRun | null, o: { rules?: readonly NormalizationRule[]; stateMayDiffer?: boolean } = {}): Promise<StepComparison> {
  const step: ReplayStep = plan.steps[planIndex];
  const rules = o.rules ?? DEFAULT_RULES;
  const rec = await normalizeOutput(step.recorded.output, { rules, truncation: plan.truncation, cols: plan.mode === 'tmux' ? plan.terminal.cols : undefined });
  const base = {
    planIndex,
    stepIndex: step.stepIndex,
    stateMayDiffer: o.stateMayDiffer ?? false,
    recorded: { exitCode: step.recorded.exitCode, cwd: step.recorded.cwd, text: rec.text },
  };
  if (!step.replayable || !run) {
    return { ...base, status: 'not-replayable', diffKind: null, summary: step.reason ?? 'not replayable', replayed: null, rulesFired: [] };
  }
  // stdout and stderr came apart, their relative order unknown: interleaved as the recording shows them.
  const raw = run.streams ? mergeLike(step.recorded.output, { ...run.streams, arrival: run.output }) : run.output;
  const rep = await normalizeOutput(raw, { rules, truncation: plan.truncation });
  const replayed = { exitCode: run.exitCode, cwd: run.cwd, text: rep.text, raw };
  const fired = [...new Set([...rec.fired, ...rep.fired])];
  const differs = (diffKind: DiffKind, summary: string): StepComparison => ({ ...base, status: 'differs', diffKind, summary, replayed, rulesFired: fired });
  if (run.error) return differs('error', run.error);
  if (run.timedOut) return differs('timeout', 'ran past the step timeout (stopped)');
  if (run.capped) return differs('output-cap', 'printed more than the output cap (stopped)');
  if (step.background) {
    if (run.exitCode !== null && run.exitCode !== 0) return differs('exit-code', `could not start in the background (exit ${run.exitCode})`);
    return { ...base, status: 'same', diffKind: null, summary: `started in the background, as recorded (output in ${step.background}, not compared)`, replayed, rulesFired: fired };
  }
  if (step.recorded.exitCode !== null && run.exitCode !== null && step.recorded.exitCode !== run.exitCode) {
    return differs('exit-code', `exit code ${step.recorded.exitCode} → ${run.exitCode}`);
  }
  if (step.recorded.cwd !== null && run.cwd !== null && step.recorded.cwd !== run.cwd) {
    return differs('cwd', `cwd ${step.recorded.cwd} → ${run.cwd}`);
  }
  if (rec.text !== rep.text) {
    const why = step.recorded.missing ? ': the recording holds no result for this call (it ends before it)' : '';
    return differs('output', `output differs (line ${firstDifferentLine(rec.text, rep.text)})${why}`);
  }
  return { ...base, status: 'same', diffKind: null, summary: fired.length ? `same after ${fired.join(', ')}` : 'same', replayed, rulesFired: fired };
}

/**
 * Compares a re-applied file edit with the recording (see the module comment).
 * @param outcome what applying it did; null when the step is not replayable
 * @param written whether the edit was written (false for a dry run of an edit recorded as failed)
 */
export async function compareEdit(plan: ReplayPlan, planIndex: number, outcome: EditOutcome | null, o: { rules?: readonly NormalizationRule[]; stateMayDiffer?: boolean; written?: boolean } = {}): Promise<StepComparison> {
  const step = plan.steps[planIndex];
  const rec = await normalizeOutput(step.recorded.output, { rules: o.rules ?? DEFAULT_RULES, truncation: plan.truncation });
  const base = {
    planIndex,
    stepIndex: step.stepIndex,
    stateMayDiffer: o.stateMayDiffer ?? false,
    recorded: { exitCode: step.recorded.exitCode, cwd: step.recorded.cwd, text: rec.text },
    rulesFired: [],
  };
  if (!step.replayable || !outcome) return { ...base, status: 'not-replayable', diffKind: null, summary: step.reason ?? 'not replayable', replayed: null };
  const text = outcome.applied ? outcome.summary : `does not apply: ${outcome.reason}`;
  const replayed = { exitCode: null, cwd: null, text, raw: text };
  const edit = { applied: outcome.applied, written: o.written ?? outcome.applied, changes: outcome.changes };
  const was = step.recorded.editOutcome ?? 'unknown';
  if (was === 'rejected') {
    const would = outcome.applied ? `it would apply now: ${outcome.summary}` : `it would not apply now: ${outcome.reason}`;
    return { ...base, status: 'same', diffKind: null, summary: `not applied: declined or interrupted in the recording (${would})`, replayed, edit };
  }
  if (was === 'failed') {
    return outcome.applied
      ? { ...base, status: 'differs', diffKind: 'edit', summary: `the recording says this edit failed; it applies now (not written): ${outcome.summary}`, replayed, edit }
      : { ...base, status: 'same', diffKind: null, summary: `fails as recorded: ${outcome.reason}`, replayed, edit };
  }
  if (!outcome.applied) return { ...base, status: 'differs', diffKind: 'edit', summary: outcome.reason ?? 'the edit does not apply', replayed, edit };
  return { ...base, status: 'same', diffKind: null, summary: outcome.summary, replayed, edit };
}

/** A unified diff of recorded vs replayed normalised text (for the CLI and logs). */
export function unifiedDiff(c: StepComparison): string {
  return createTwoFilesPatch(`recorded/step-${c.stepIndex + 1}`, `replayed/step-${c.stepIndex + 1}`, c.recorded.text + '\n', (c.replayed?.text ?? '') + '\n');
}
