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
  /** Bytes inflated per archive (`.eval`) at most (`trajectoryInspector.load.maxInflatedMiB`, in MiB there). */
  maxInflatedBytes: number;
}

/** Default of `trajectoryInspector.load.maxInflatedMiB` (core zip.ts MAX_INFLATED_BYTES in MiB). */
export const DEFAULT_MAX_INFLATED_MIB = 2048;

function strings(v: unknown, fallback: string[]): string[] {
  return Array.isArray(v) && v.every((s) => typeof s === 'string') ? (v as string[]) : fallback;
}

/** A `load.maxInflatedMiB` value: a number of at least 1 (MiB), else the default. */
function inflatedMiB(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 1 ? Math.floor(v) : DEFAULT_MAX_INFLATED_MIB;
}

export function readConfig(scope?: vscode.ConfigurationScope): Config {
  const c = vscode.workspace.getConfiguration(SECTION, scope);
  const lines = c.get<unknown>('timeline.collapseOutputLines');
  return {
    include: strings(c.get('rollouts.include'), DEFAULT_INCLUDE),
    exclude: strings(c.get('rollouts.exclude'), DEFAULT_EXCLUDE),
    collapseOutputLines: typeof lines === 'number' && lines >= 0 ? Math.floor(lines) : DEFAULT_COLLAPSE_LINES,
    sessionRoots: strings(c.get('sessions.roots'), DEFAULT_SESSION_ROOTS),
    maxInflatedBytes: inflatedMiB(c.get<unknown>('load.maxInflatedMiB')) * 1024 * 1024,
  };
}
