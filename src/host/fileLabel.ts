/** The name a rollout file goes by in the tree, the timeline's header, search and compare. Nothing here imports `vscode`. */
import * as path from 'node:path';
import { attemptNumber } from '../core/formats/harborLayout';

/**
 * The name a rollout file goes by in the tree: the trial folder for a Harbor trial
 * (`…/<trial>/agent/trajectory.json`), else the task id of its single rollout, else the file name.
 */
export function fileLabel(file: string, singleTaskId: string | null): string {
  const parts = file.split(/[\\/]/);
  const n = parts.length;
  // A retried Harbor trial's attempt folder `<trial>/attempts/<NNN>` goes by its trial.
  const trialAt = (i: number) => (i >= 2 && parts[i - 1] === 'attempts' && attemptNumber(parts[i]) !== null ? parts[i - 2] : parts[i]);
  if (n >= 3 && parts[n - 1] === 'trajectory.json' && parts[n - 2] === 'agent') return trialAt(n - 3);
  if (n >= 2 && parts[n - 1] === 'result.json') return trialAt(n - 2); // a Harbor trial's result.json
  return singleTaskId ?? path.basename(file);
}
