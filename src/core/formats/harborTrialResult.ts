/**
 * Harbor trial `result.json` (`TrialResult`) opened on its own: the trial's trajectory with the
 * result joined, or the outcome alone when the trial has no readable trajectory.
 *
 * Source definitions (harbor-framework/harbor): `src/harbor/models/trial/result.py` (`TrialResult`),
 * `src/harbor/models/trial/paths.py` (the trial folder's layout). The result's schema and what it
 * gives a rollout are in atifTrial.ts; the trajectory is read by atif.ts.
 */
import * as path from 'node:path';
import { JsonDoc } from '../json';
import type { Rollout } from '../model';
import { loadTrajectory } from './atif';
import { errorLines, harborLinks, parseTrialResult, RESULT_LABEL, trialAgent, trialMetadata, trialOutcome, type LoadedTrialResult } from './atifTrial';
import { trialAttempts } from './harborLayout';
import type { FormatLoader } from './types';
import { isObject, singleDoc } from './util';

/**
 * Loader for a Harbor trial `result.json` (`TrialResult`, `src/harbor/models/trial/result.py`)
 * opened on its own.
 *
 * Detects by `task_name` + `trial_name` + (`verifier_result` or `agent_info`). When the trial folder
 * holds `agent/trajectory.json` (or `trajectory.json`), returns that trajectory's rollout with this
 * result joined. Otherwise (or when that trajectory cannot be read, noted in `metadata.warnings`)
 * returns one rollout with no steps carrying the outcome, task, agent, exception and timings.
 *
 * Throws RolloutLoadError (located) when the file's TrialResult fields have the wrong types.
 */
export const harborTrialResultLoader: FormatLoader = {
  id: 'harbor-trial-result',
  label: RESULT_LABEL,
  detect(input) {
    if (!input.doc) return { accept: false, reason: 'not a single JSON document' };
    const v = input.doc.value;
    if (!isObject(v)) return { accept: false, reason: 'top-level value is not a JSON object' };
    if (typeof v.task_name !== 'string' || typeof v.trial_name !== 'string') {
      return { accept: false, reason: 'no "task_name" and "trial_name" strings' };
    }
    if (!('verifier_result' in v) && !('agent_info' in v)) return { accept: false, reason: 'neither "verifier_result" nor "agent_info"' };
    return { accept: true, confidence: 0.9 };
  },
  async load(input) {
    const result = parseTrialResult(singleDoc(input, RESULT_LABEL));
    const trial: LoadedTrialResult = { path: input.path, result };
    const dir = path.dirname(input.path);
    const warnings: string[] = [];
    // A retried trial whose final attempt is an `attempts/<NNN>/` folder: that attempt's trajectory.
    const attempts = await trialAttempts(dir, input.files);
    const finalDir = attempts && attempts.final.dir !== dir ? attempts.final.dir : null;
    const candidates = [path.join(dir, 'agent', 'trajectory.json'), path.join(dir, 'trajectory.json')];
    if (finalDir) candidates.unshift(path.join(finalDir, 'agent', 'trajectory.json'));
    for (const candidate of candidates) {
      const text = await input.files.readText(candidate);
      if (text === null) {
        if (await input.files.isDirectory(candidate)) warnings.push(`${candidate} is a folder, not a trajectory file; showing the trial result only`);
        continue;
      }
      try {
        const rollout = await loadTrajectory(JsonDoc.parse(candidate, text), input.files, trial, (input.issues ??= []));
        rollout.metadata.openedFrom = input.path;
        return [rollout];
      } catch (e) {
        warnings.push(`trajectory ${candidate} could not be read; showing the trial result only:`, ...errorLines(e).map((l) => `  ${l}`));
        break;
      }
    }
    const metadata: Record<string, unknown> = { harbor: trialMetadata(trial) };
    if (warnings.length) metadata.warnings = warnings;
    const { outcome, derived } = trialOutcome(trial);
    const rollout: Rollout = {
      id: result.id ?? result.trial_name,
      format: 'harbor-trial-result',
      schemaVersion: null,
      source: { path: input.path, range: null, line: null },
      task: { id: result.task_name, instruction: null },
      agent: trialAgent(result),
      environment: { image: null, workdir: null },
      outcome,
      groupId: null,
      steps: [],
      metadata,
    };
    if (derived.length) rollout.derived = derived;
    // Without a trajectory, the agent's raw session is where its steps are: linked, with the other attempts.
    const links = await harborLinks(finalDir ?? dir, input.files);
    if (links.length) rollout.links = links;
    return [rollout];
  },
};
