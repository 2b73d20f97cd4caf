/**
 * Typed reader for the extension's settings (mirrors `contributes.configuration` in package.json;
 * keep both in step when adding a setting).
 */
import * as vscode from 'vscode';

export const SECTION = 'trajectoryInspector';

/** Defaults, also used when a user value has the wrong type. */
import { DEFAULT_COLLAPSE_LINES, DEFAULT_EXCLUDE, DEFAULT_INCLUDE, DEFAULT_SESSION_ROOTS } from '../shared/settings';

export { DEFAULT_COLLAPSE_LINES, DEFAULT_EXCLUDE, DEFAULT_INCLUDE, DEFAULT_SESSION_ROOTS };

export interface Config {
  /** Globs of rollout files the Rollouts view lists. */
  include: string[];
  /** Globs the Rollouts view leaves out. */
  exclude: string[];
  /** Observation lines shown before "show all" (0 = never collapse). */
  collapseOutputLines: number;
  /** More folders of Claude Code / Codex CLI session files for the Sessions view (`trajectoryInspector.sessions.roots`, machine scope). */
  sessionRoots: string[];
}

function strings(v: unknown, fallback: string[]): string[] {
  return Array.isArray(v) && v.every((s) => typeof s === 'string') ? (v as string[]) : fallback;
}

export function readConfig(scope?: vscode.ConfigurationScope): Config {
  const c = vscode.workspace.getConfiguration(SECTION, scope);
  const lines = c.get<unknown>('timeline.collapseOutputLines');
  return {
    include: strings(c.get('rollouts.include'), DEFAULT_INCLUDE),
    exclude: strings(c.get('rollouts.exclude'), DEFAULT_EXCLUDE),
    collapseOutputLines: typeof lines === 'number' && lines >= 0 ? Math.floor(lines) : DEFAULT_COLLAPSE_LINES,
    sessionRoots: strings(c.get('sessions.roots'), DEFAULT_SESSION_ROOTS),
  };
}
