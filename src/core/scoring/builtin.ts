/**
 * Where the built-in scorer lives and how to run it. Never imports `vscode`.
 */
import * as path from 'node:path';
import type { ScorerCommand } from './client';

/**
 * The command that runs the built-in scorer bundled at `<distDir>/scorers/builtin.js` with the
 * current Node (in the extension host `process.execPath` is Electron, so ELECTRON_RUN_AS_NODE=1
 * makes it behave as Node).
 */
export function builtinScorerCommand(distDir: string): ScorerCommand {
  return { command: process.execPath, args: [path.join(distDir, 'scorers', 'builtin.js')], env: { ELECTRON_RUN_AS_NODE: '1' } };
}

/** A configured command (`[executable, ...args]`) as a ScorerCommand; empty = null (use the built-in). */
export function configuredCommand(argv: readonly string[], cwd?: string): ScorerCommand | null {
  if (!argv.length || !argv[0]) return null;
  return { command: argv[0], args: argv.slice(1), ...(cwd ? { cwd } : {}) };
}
