/**
 * The Harbor trial a trajectory belongs to, for the ATIF loaders (atif.ts, harborTrialResult.ts): the trial `result.json`
 * (`TrialResult`, harbor-framework/harbor `src/harbor/models/trial/result.py`; layout
 * `src/harbor/models/trial/paths.py`) found beside a trajectory and read into an outcome, agent and
 * metadata, and the links of the trial folder (raw agent sessions, other attempts).
 *
 * This module never imports `vscode`.
 */
import * as path from 'node:path';
import { z } from 'zod';
import { formatIssue, RolloutLoadError } from '../errors';
import { JsonDoc } from '../json';
import type { Outcome, Rollout, RolloutLink } from '../model';
import { attemptLinks, isTrialFolder, rawSessionLinks, trialOfAttempt } from './harborLayout';
import type { FileAccess } from './types';
import { isObject, resolvedFromReward } from './util';

/** The label of a Harbor trial result in errors. */
export const RESULT_LABEL = 'Harbor trial result';

const TimingSchema = z.looseObject({ started_at: z.string().nullish(), finished_at: z.string().nullish() }).nullish();

/** The parts of Harbor's `TrialResult` (`src/harbor/models/trial/result.py`) this loader reads. */
const TrialResultSchema = z.looseObject({
  id: z.string().nullish(),
  task_name: z.string(),
  trial_name: z.string(),
  trial_uri: z.string().nullish(),
  task_id: z.unknown().optional(),
  source: z.string().nullish(),
  task_checksum: z.string().nullish(),
  config: z
    .looseObject({ agent: z.looseObject({ name: z.string().nullish(), model_name: z.string().nullish() }).nullish() })
    .nullish(),
  agent_info: z
    .looseObject({
      name: z.string().nullish(),
      version: z.string().nullish(),
      model_info: z.looseObject({ name: z.string().nullish(), provider: z.string().nullish() }).nullish(),
    })
    .nullish(),
  agent_result: z
    .looseObject({
      n_input_tokens: z.number().nullish(),
      n_cache_tokens: z.number().nullish(),
      n_output_tokens: z.number().nullish(),
      cost_usd: z.number().nullish(),
    })
    .nullish(),
  verifier_result: z.looseObject({ rewards: z.record(z.string(), z.number()).nullish() }).nullish(),
  exception_info: z
    .looseObject({
      exception_type: z.string(),
      exception_message: z.string().nullish(),
      exception_traceback: z.string().nullish(),
      occurred_at: z.string().nullish(),
    })
    .nullish(),
  started_at: z.string().nullish(),
  finished_at: z.string().nullish(),
  environment_setup: TimingSchema,
  agent_setup: TimingSchema,
  agent_execution: TimingSchema,
  verifier: TimingSchema,
});
/** The TrialResult fields read. */
export type TrialResult = z.infer<typeof TrialResultSchema>;

/** Issue lines of an error, for metadata warnings. */
export function errorLines(e: unknown): string[] {
  if (e instanceof RolloutLoadError) return e.issues.map(formatIssue);
  return [e instanceof Error ? e.message : String(e)];
}

/** Where the trial `result.json` of a trajectory at `<trial>/agent/trajectory.json` or `<trial>/trajectory.json` may be, most likely first. */
function trialResultPathFor(trajectoryFile: string): string[] {
  if (path.basename(trajectoryFile) !== 'trajectory.json') return [];
  const dir = path.dirname(trajectoryFile);
  const out: string[] = [];
  if (path.basename(dir) === 'agent') {
    const attemptDir = path.dirname(dir);
    out.push(path.join(attemptDir, 'result.json'));
    // An attempt `<trial>/attempts/<NNN>/` without a result of its own: the trial's.
    const trial = trialOfAttempt(attemptDir);
    if (trial) out.push(path.join(trial, 'result.json'));
  }
  out.push(path.join(dir, 'result.json'));
  return out;
}

/** The folder of the Harbor trial (or attempt) a trajectory belongs to: `<trial>` of `<trial>/agent/trajectory.json`, else null. */
export function trialDirOf(trajectoryFile: string): string | null {
  const dir = path.dirname(trajectoryFile);
  return path.basename(dir) === 'agent' ? path.dirname(dir) : null;
}

/**
 * Links of a Harbor trial (or attempt) folder: the agent's raw session files under its `agent/`
 * (formats/harborLayout.ts rawSessionLinks) and the trial's other attempts (attemptLinks).
 */
export async function harborLinks(trialDir: string, files: FileAccess): Promise<RolloutLink[]> {
  if (!isTrialFolder(await files.list(trialDir))) return [];
  return [...(await rawSessionLinks(path.join(trialDir, 'agent'), files)), ...(await attemptLinks(trialDir, files))];
}

/** A parsed and validated TrialResult. */
export interface LoadedTrialResult {
  path: string;
  result: TrialResult;
}

/** Reads and validates a TrialResult; throws RolloutLoadError (located) when it is not one. */
export function parseTrialResult(doc: JsonDoc): TrialResult {
  return doc.validate(TrialResultSchema, RESULT_LABEL);
}

/** Finds and reads the trial's result.json; a malformed one becomes a warning, never an error. */
export async function readTrialResultNear(trajectoryFile: string, files: FileAccess, warnings: string[]): Promise<LoadedTrialResult | null> {
  for (const p of trialResultPathFor(trajectoryFile)) {
    const text = await files.readText(p);
    if (text === null) continue;
    try {
      const doc = JsonDoc.parse(p, text);
      // Some other result.json (a job-level JobResult, a tool's own file): not this trial's, say nothing.
      if (!isObject(doc.value) || !('task_name' in doc.value || 'trial_name' in doc.value)) return null;
      return { path: p, result: parseTrialResult(doc) };
    } catch (e) {
      warnings.push(`trial result ${p} was not joined (no reward / task shown):`, ...errorLines(e).map((l) => `  ${l}`));
      return null;
    }
  }
  return null;
}

/**
 * Outcome of a trial: `verifier_result.rewards.reward`, every named reward, exception type as status.
 * Harbor records no "resolved": it is derived from a reward of 1 / 0 (listed in `derived`).
 */
export function trialOutcome(r: LoadedTrialResult): { outcome: Outcome; derived: string[] } {
  const rewards = r.result.verifier_result?.rewards ?? null;
  const reward = rewards && typeof rewards.reward === 'number' ? rewards.reward : null;
  const resolved = resolvedFromReward(reward);
  return {
    outcome: {
      reward,
      rewards: rewards && Object.keys(rewards).length ? { ...rewards } : null,
      resolved,
      status: r.result.exception_info?.exception_type ?? null,
      source: r.path,
    },
    derived: resolved !== null ? ['outcome.resolved'] : [],
  };
}

/** Metadata block describing the joined trial result. */
export function trialMetadata(r: LoadedTrialResult): Record<string, unknown> {
  const t = r.result;
  const timing = (x: z.infer<typeof TimingSchema>) => (x ? { startedAt: x.started_at ?? null, finishedAt: x.finished_at ?? null } : null);
  return {
    resultPath: r.path,
    trialId: t.id ?? null,
    trialName: t.trial_name,
    trialUri: t.trial_uri ?? null,
    taskName: t.task_name,
    taskId: t.task_id ?? null,
    dataset: t.source ?? null,
    taskChecksum: t.task_checksum ?? null,
    agentInfo: t.agent_info ?? null,
    agentResult: t.agent_result
      ? {
          inputTokens: t.agent_result.n_input_tokens ?? null,
          cacheTokens: t.agent_result.n_cache_tokens ?? null,
          outputTokens: t.agent_result.n_output_tokens ?? null,
          costUsd: t.agent_result.cost_usd ?? null,
        }
      : null,
    exception: t.exception_info
      ? {
          type: t.exception_info.exception_type,
          message: t.exception_info.exception_message ?? null,
          traceback: t.exception_info.exception_traceback ?? null,
          occurredAt: t.exception_info.occurred_at ?? null,
        }
      : null,
    timings: {
      startedAt: t.started_at ?? null,
      finishedAt: t.finished_at ?? null,
      environmentSetup: timing(t.environment_setup),
      agentSetup: timing(t.agent_setup),
      agentExecution: timing(t.agent_execution),
      verifier: timing(t.verifier),
    },
  };
}

/** Agent of a trial result: `agent_info`, model from the trial config (`provider/name`) or `agent_info.model_info.name`. */
export function trialAgent(t: TrialResult): Rollout['agent'] {
  return {
    name: t.agent_info?.name ?? t.config?.agent?.name ?? null,
    version: t.agent_info?.version ?? null,
    model: t.config?.agent?.model_name ?? t.agent_info?.model_info?.name ?? null,
  };
}
