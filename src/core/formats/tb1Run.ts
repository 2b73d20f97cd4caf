/**
 * The Terminal-Bench 1 run loader (format id `tb1-run`): a run folder's `results.json`, one rollout
 * per trial result, steps from the trial folders beside it. Sources and mapping: module docs of
 * tb1Results.ts.
 *
 * This module never imports `vscode`.
 */
import * as path from 'node:path';
import { describeValue } from '../errors';
import type { Rollout } from '../model';
import { needDoc, readRunMetadata, RUN_CAST_BUDGET_CHARS, trialRollout, BenchmarkResults, type TrialResults } from './tb1Results';
import type { FileAccess, FormatLoader } from './types';
import { isObject } from './util';

const RUN_FORMAT = 'Terminal-Bench 1 run results.json';

/** Loader for a Terminal-Bench 1 run's `results.json` (format id `tb1-run`). */
export const tb1RunLoader: FormatLoader = {
  id: 'tb1-run',
  label: 'Terminal-Bench 1 run (results.json with results[] of trials)',
  /** Accepts an object with a `results` array of TrialResults-like objects and `n_resolved`, `accuracy` or `pass_at_k` (0.9). */
  detect(input) {
    const v = input.doc?.value;
    if (!isObject(v)) return { accept: false, reason: 'not a JSON object' };
    if (!Array.isArray(v.results)) return { accept: false, reason: 'no results[] array' };
    if (!('n_resolved' in v || 'accuracy' in v || 'pass_at_k' in v)) return { accept: false, reason: 'no n_resolved / accuracy / pass_at_k' };
    const first = v.results[0];
    if (v.results.length && !(isObject(first) && typeof first.trial_name === 'string' && typeof first.task_id === 'string')) {
      return { accept: false, reason: `results[0] is not a TrialResults (trial_name, task_id): ${describeValue(first)}` };
    }
    return { accept: true, confidence: 0.9 };
  },
  /** Reads one rollout per trial result, with steps from the trial folders beside the file when they exist. */
  async load(input) {
    const doc = needDoc(input, RUN_FORMAT);
    const br = doc.validate(BenchmarkResults, RUN_FORMAT);
    const issues = input.issues ?? [];
    const runDir = path.dirname(input.path);
    const run = await readRunMetadata(runDir, input.files, issues);
    const runLevel: Record<string, unknown> = { results: input.path };
    if (br.id) runLevel.id = br.id;
    for (const k of ['n_resolved', 'n_unresolved', 'accuracy', 'pass_at_k'] as const) if (br[k] !== undefined) runLevel[k] = br[k];
    const out: Rollout[] = [];
    const castBudget = { left: RUN_CAST_BUDGET_CHARS };
    for (let i = 0; i < br.results.length; i++) {
      const tr = br.results[i];
      const trialDir = await findTrialDir(runDir, tr, input.files);
      out.push(
        await trialRollout(tr, {
          format: 'tb1-run',
          path: input.path,
          index: i,
          range: doc.rangeOf(['results', i]),
          trialDir,
          run,
          runLevel,
          castBudget,
          files: input.files,
          issues,
        }),
      );
    }
    return out;
  },
};

/**
 * The trial folder of a run-level result: `<run>/<task_id>/<trial_name>/`, else the folder named by
 * `recording_path` (`<run_id>/<task>/<trial>/sessions/agent.cast`, relative to the runs folder or to
 * the results file's folder), else null.
 */
async function findTrialDir(runDir: string, tr: TrialResults, files: FileAccess): Promise<string | null> {
  const plain = (n: string) => n !== '' && n !== '.' && n !== '..' && !/[\\/]/.test(n);
  const candidates = plain(tr.task_id) && plain(tr.trial_name) ? [path.join(runDir, tr.task_id, tr.trial_name)] : [];
  if (tr.recording_path && !path.isAbsolute(tr.recording_path)) {
    const rel = path.dirname(path.dirname(tr.recording_path));
    if (rel !== '.' && !rel.split(/[\\/]/).includes('..')) {
      candidates.push(path.join(path.dirname(runDir), rel), path.join(runDir, rel));
    }
  }
  for (const c of candidates) if (await files.isDirectory(c)) return c;
  return null;
}
