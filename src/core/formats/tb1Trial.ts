/**
 * The Terminal-Bench 1 trial loader (format id `tb1-trial`): a trial folder's `results.json` with the
 * folder's commands.txt and sessions/agent.cast. Sources and mapping: module docs of tb1Results.ts.
 *
 * This module never imports `vscode`.
 */
import * as path from 'node:path';
import { TRIAL_FORMAT } from './tb1Commands';
import { looksLikeTrial, needDoc, readRunMetadata, trialRollout, TrialResults } from './tb1Results';
import type { FormatLoader } from './types';

/** Loader for a Terminal-Bench 1 trial's `results.json` (format id `tb1-trial`). */
export const tb1TrialLoader: FormatLoader = {
  id: 'tb1-trial',
  label: 'Terminal-Bench 1 trial (results.json + commands.txt + sessions/agent.cast)',
  /** Accepts an object with TrialResults fields `trial_name`, `task_id` (strings), `instruction` and one of `is_resolved`/`failure_mode`/`parser_results` (0.9). */
  detect(input) {
    if (looksLikeTrial(input.doc?.value)) return { accept: true, confidence: 0.9 };
    return { accept: false, reason: 'no TrialResults fields (trial_name, task_id, instruction, is_resolved / failure_mode / parser_results)' };
  },
  /** Reads the trial (steps from the folder's commands.txt and sessions/agent.cast). Throws RolloutLoadError with located issues. */
  async load(input) {
    const doc = needDoc(input, TRIAL_FORMAT);
    const tr = doc.validate(TrialResults, TRIAL_FORMAT);
    const issues = input.issues ?? [];
    const trialDir = path.dirname(input.path);
    const run = await readRunMetadata(path.dirname(path.dirname(trialDir)), input.files, issues);
    return [await trialRollout(tr, { format: 'tb1-trial', path: input.path, index: 0, range: null, trialDir, run, files: input.files, issues })];
  },
};
