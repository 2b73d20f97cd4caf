// Cases for harbor.test.ts (run inside the watchdog's worker): broken Harbor trials, each said.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadPath } from '../../src/core/load';
import { formatIssue, isWarning } from '../../src/core/errors';
import { nodeFiles } from '../../src/core/nodeFiles';
import type { FileAccess } from '../../src/core/formats/types';

/** What a user of the CLI or the views is told of a folder: its rollouts, warnings and failures. */
export interface FolderOutcome {
  rollouts: { path: string; format: string; steps: number; reward: number | null; task: string | null }[];
  warnings: string[];
  failures: string[];
}

/**
 * Loads `dir` as the folder scan does. `unlistable` names folders a FileAccess refuses to list
 * (EACCES), as a folder of another user is (the tests run as root, where chmod does not stop reads).
 */
export async function loadFolder(dir: string, unlistable: string[] = []): Promise<FolderOutcome> {
  const denied = new Set(unlistable.map((p) => path.resolve(p)));
  const files: FileAccess = {
    ...nodeFiles,
    list: async (p) => (denied.has(path.resolve(p)) ? [] : nodeFiles.list(p)),
    listError: async (p) => (denied.has(path.resolve(p)) ? 'permission denied (EACCES)' : nodeFiles.listError!(p)),
  };
  const r = await loadPath(dir, files);
  return {
    rollouts: r.files.flatMap((f) => f.rollouts.map((ro) => ({ path: f.path, format: f.format, steps: ro.steps.length, reward: ro.outcome.reward, task: ro.task.id }))),
    warnings: r.files.flatMap((f) => (f.issues ?? []).filter(isWarning).map(formatIssue)),
    failures: r.failures.map((f) => `${f.path}: ${f.error.message}`),
  };
}

/** True once `fs` is used (keeps the import for callers that build inputs in the worker). */
export const hasFs = typeof fs.existsSync === 'function';
