/**
 * The folder layout of Harbor jobs and trials, shared by the folder scan (core/load.ts
 * `findRolloutFiles`) and the Harbor loaders (atif.ts, harborTrialResult.ts): which folders are jobs and trials, which
 * attempt of a retried trial is the final one, and which files under a trial's `agent/` are the
 * agent's own raw session (linked from the trial's rollout, never listed as rollouts of their own).
 *
 * Source definitions (harbor-framework/harbor):
 * - `src/harbor/models/trial/paths.py` `TrialPaths`: `<trial>/{agent/, verifier/, artifacts/,
 *   config.json, result.json, trial.log, exception.txt}`; `agent/` is mounted as `/logs/agent` in
 *   the environment;
 * - `src/harbor/job.py`: `<job>/{config.json, lock.json, job.log, result.json, <trial>/}`;
 * - the installed agents write their own logs under `/logs/agent`: Claude Code with
 *   `CLAUDE_CONFIG_DIR=/logs/agent/sessions` → `agent/sessions/projects/<encoded cwd>/<session>.jsonl`
 *   (`src/harbor/agents/installed/claude_code.py`), Codex with `CODEX_HOME=/logs/agent` →
 *   `agent/sessions/YYYY/MM/DD/rollout-*.jsonl` (`codex.py`), and the CLI's output tee'd to
 *   `agent/<agent>.txt` (`claude-code.txt`, `codex.txt`, …);
 * - retried trials: releases that keep every attempt write `<trial>/attempts/<NNN>/` (each a trial
 *   folder of its own: `result.json`, `agent/trajectory.json`; found in public scripts globbing
 *   `<job>/<trial>/attempts/000/result.json`), forks that move a failed attempt aside write
 *   `<trial>/attempts/attempt-<N>/` and keep the latest attempt at the trial's top level.
 *
 * Nothing here imports `vscode`; every function reads only through FileAccess.
 */
import * as path from 'node:path';
import type { RolloutLink } from '../model';
import type { FileAccess } from './types';
import { isObject, str } from './util';

/** Files of a Harbor job folder that belong to the job and are no rollouts (not offered to the loaders). */
export const JOB_COMPANIONS = new Set(['config.json', 'lock.json', 'job.log']);
/** Files of a Harbor trial folder that belong to the trial and are no rollouts. */
export const TRIAL_COMPANIONS = new Set(['config.json', 'lock.json', 'trial.log', 'exception.txt']);
/** Folders of a Harbor trial that hold the verifier's and the environment's outputs, not rollouts. */
export const TRIAL_OUTPUT_DIRS = new Set(['verifier', 'artifacts']);

/** A Harbor trial folder by its entries: `agent/` or `verifier/` (or `attempts/`) beside `result.json`, `config.json` or `trial.log`. */
export function isTrialFolder(names: readonly string[]): boolean {
  const hasDir = names.includes('agent') || names.includes('verifier') || names.includes('attempts');
  return hasDir && (names.includes('result.json') || names.includes('config.json') || names.includes('trial.log'));
}

/** A Harbor job folder by its entries: `config.json` beside `job.log` or `lock.json`, and not a trial folder itself. */
export function isJobFolder(names: readonly string[]): boolean {
  return names.includes('config.json') && (names.includes('job.log') || names.includes('lock.json')) && !isTrialFolder(names);
}

/** `000`, `001`, `attempt-2`, `attempt_3`: the number of an attempt folder's name, or null when the name is no attempt. */
export function attemptNumber(name: string): number | null {
  const m = /^(?:attempt[-_]?)?(\d+)$/i.exec(name);
  return m ? Number(m[1]) : null;
}

/** One attempt of a retried trial. */
export interface Attempt {
  /** Folder name (`000`, `attempt-2`), or `.` for the trial's own top level when it holds an attempt. */
  name: string;
  /** Absolute folder of the attempt. */
  dir: string;
}

/** The attempts of a trial folder and the final one (see finalAttempt), or null when the trial has no `attempts/`. */
export interface TrialAttempts {
  attempts: Attempt[];
  final: Attempt;
}

/** The decoded path a `file://` URI names, or null. */
function uriPath(uri: string): string | null {
  if (!uri.startsWith('file://')) return null;
  try {
    return decodeURIComponent(new URL(uri).pathname);
  } catch {
    return null;
  }
}

/** The trial's own `result.json` object, or null when absent or not JSON. */
async function readResult(dir: string, files: FileAccess): Promise<Record<string, unknown> | null> {
  const text = await files.readText(path.join(dir, 'result.json'));
  if (text === null) return null;
  try {
    const v: unknown = JSON.parse(text);
    return isObject(v) ? v : null;
  } catch {
    return null;
  }
}

/**
 * The attempts of the trial at `trialDir` (`attempts/<NNN>/`, numbered order) and its final one:
 * the attempt the trial's own `result.json` names in `trial_uri` (`…/<trial>/attempts/<NNN>`); else
 * the trial's top level when it holds an attempt of its own (`result.json` or
 * `agent/trajectory.json`: the layout that moves failed attempts aside, the top being the latest);
 * else the latest numbered attempt. Null when the trial has no attempt folders.
 */
export async function trialAttempts(trialDir: string, files: FileAccess): Promise<TrialAttempts | null> {
  const attemptsDir = path.join(trialDir, 'attempts');
  if (!(await files.isDirectory(attemptsDir))) return null;
  const numbered: { n: number; a: Attempt }[] = [];
  for (const name of await files.list(attemptsDir)) {
    const n = attemptNumber(name);
    const dir = path.join(attemptsDir, name);
    // An attempt is a trial folder of its own (result.json, agent/, …).
    if (n !== null && (await files.isDirectory(dir)) && isTrialFolder(await files.list(dir))) numbered.push({ n, a: { name, dir } });
  }
  if (numbered.length === 0) return null;
  numbered.sort((x, y) => x.n - y.n || (x.a.name < y.a.name ? -1 : 1));
  const attempts = numbered.map((x) => x.a);
  const names = await files.list(trialDir);
  const topHolds = names.includes('result.json') || (names.includes('agent') && (await files.list(path.join(trialDir, 'agent'))).includes('trajectory.json'));
  if (names.includes('result.json')) {
    const uri = str((await readResult(trialDir, files))?.trial_uri);
    const named = uri ? uriPath(uri) : null;
    const hit = named ? attempts.find((a) => path.basename(named.replace(/\/+$/, '')) === a.name && path.basename(path.dirname(named.replace(/\/+$/, ''))) === 'attempts') : undefined;
    if (hit) return { attempts, final: hit };
  }
  if (topHolds) {
    const top: Attempt = { name: '.', dir: trialDir };
    return { attempts: [...attempts, top], final: top };
  }
  return { attempts, final: attempts[attempts.length - 1] };
}

/** The trial folder of an attempt folder `<trial>/attempts/<NNN>`, or null when `dir` is no attempt folder. */
export function trialOfAttempt(dir: string): string | null {
  const parent = path.dirname(dir);
  return path.basename(parent) === 'attempts' && attemptNumber(path.basename(dir)) !== null ? path.dirname(parent) : null;
}

/**
 * Links to the other attempts of the trial whose attempt folder is `attemptDir` (an
 * `attempts/<NNN>` folder, or the trial folder itself): each to its `agent/trajectory.json` when it
 * has one, else its `result.json`, labelled with its name and, from its result.json, its reward and
 * exception. Empty when the trial has no other attempts.
 */
export async function attemptLinks(attemptDir: string, files: FileAccess): Promise<RolloutLink[]> {
  const trialDir = trialOfAttempt(attemptDir) ?? attemptDir;
  const ta = await trialAttempts(trialDir, files);
  if (!ta) return [];
  const out: RolloutLink[] = [];
  for (const a of ta.attempts) {
    if (path.resolve(a.dir) === path.resolve(attemptDir)) continue;
    const agent = await files.list(path.join(a.dir, 'agent'));
    const traj = agent.includes('trajectory.json') ? path.join(a.dir, 'agent', 'trajectory.json') : null;
    const result = await readResult(a.dir, files);
    const rewards = isObject(result?.verifier_result) && isObject(result.verifier_result.rewards) ? result.verifier_result.rewards : null;
    const reward = typeof rewards?.reward === 'number' ? `reward ${rewards.reward}` : '';
    const exc = isObject(result?.exception_info) ? str(result.exception_info.exception_type) ?? '' : '';
    const what = [a.name === '.' ? 'latest attempt (trial folder)' : `attempt ${a.name}`, a.dir === ta.final.dir ? 'final' : '', reward, exc].filter(Boolean).join(' · ');
    const target = traj ?? (result ? path.join(a.dir, 'result.json') : null);
    out.push({ relation: 'attempt', label: what, path: target ?? a.dir, rolloutId: null, missing: target ? null : 'no result.json or agent/trajectory.json in this attempt' });
  }
  return out;
}

/** Depth of folders walked under `agent/sessions/` for session files (`YYYY/MM/DD/` for Codex). */
const SESSION_DEPTH = 5;

/**
 * The agent's own raw session files under a trial's `agent/` folder, as `raw-session` links
 * (absolute paths, sorted): Claude Code transcripts `sessions/projects/<cwd>/<id>.jsonl` (their
 * `<id>/subagents/` belong to the transcript and are not listed), Codex rollouts
 * `sessions/**\/rollout-*.jsonl`, other `.jsonl` session files under `sessions/`, and the CLI's
 * output logs directly in `agent/` (`*.txt`, `*.jsonl`, `*.log`). Configuration files
 * (`.claude.json`, `auth.json`, backups) are never listed.
 */
export async function rawSessionLinks(agentDir: string, files: FileAccess): Promise<RolloutLink[]> {
  const out: RolloutLink[] = [];
  const sessions = path.join(agentDir, 'sessions');
  const walk = async (d: string, depth: number): Promise<void> => {
    for (const name of (await files.list(d)).sort()) {
      const p = path.join(d, name);
      if (name.startsWith('.')) continue;
      if (await files.isDirectory(p)) {
        if (depth < SESSION_DEPTH && name !== 'subagents' && name !== 'backups') await walk(p, depth + 1);
      } else if (/\.jsonl$/i.test(name)) {
        const rel = path.relative(sessions, p).split(path.sep);
        const kind = rel[0] === 'projects' && rel.length === 3 ? 'Claude Code session' : /^rollout-.*\.jsonl$/i.test(name) ? 'Codex session' : 'agent session';
        out.push({ relation: 'raw-session', label: `${kind} ${name}`, path: p, rolloutId: null });
      }
    }
  };
  if (await files.isDirectory(sessions)) await walk(sessions, 0);
  for (const name of (await files.list(agentDir)).sort()) {
    if (!/\.(txt|jsonl|log)$/i.test(name) || name.startsWith('.')) continue;
    const p = path.join(agentDir, name);
    if (!(await files.isDirectory(p))) out.push({ relation: 'raw-session', label: `agent output ${name}`, path: p, rolloutId: null });
  }
  return out;
}

/**
 * The converted trajectory of a raw agent session inside a Harbor trial: for a file under a trial's
 * `agent/` folder (at most SESSION_DEPTH + 2 levels down) whose `agent/trajectory.json` exists, a
 * `converted` link to it (the trial's ATIF, with its reward); else null.
 */
export async function convertedLink(sessionFile: string, files: FileAccess): Promise<RolloutLink | null> {
  let dir = path.dirname(path.resolve(sessionFile));
  for (let up = 0; up <= SESSION_DEPTH + 2 && dir !== path.dirname(dir); up++, dir = path.dirname(dir)) {
    if (path.basename(dir) !== 'agent') continue;
    const trial = path.dirname(dir);
    if (!isTrialFolder(await files.list(trial))) return null;
    if (!(await files.list(dir)).includes('trajectory.json')) return null;
    return { relation: 'converted', label: `Harbor ATIF trajectory of ${path.basename(trial)}`, path: path.join(dir, 'trajectory.json'), rolloutId: null };
  }
  return null;
}

/**
 * Of the files a workspace search found (absolute paths), the ones the Rollouts view should read,
 * with the folder scan's Harbor rules (findRolloutFiles): a trial's `result.json` is dropped when its
 * `agent/trajectory.json` was found too (the ATIF loader joins it), and of a retried trial's
 * `attempts/<NNN>/` only the final attempt's files are kept (trialAttempts). Order is kept.
 */
export async function harborScanFilter(paths: readonly string[], files: FileAccess): Promise<string[]> {
  const found = new Set(paths.map((p) => path.resolve(p)));
  const finals = new Map<string, string | null>();
  const finalOf = async (trial: string): Promise<string | null> => {
    if (!finals.has(trial)) finals.set(trial, (await trialAttempts(trial, files))?.final.dir ?? null);
    return finals.get(trial) ?? null;
  };
  const out: string[] = [];
  for (const p of paths) {
    const abs = path.resolve(p);
    const base = path.basename(abs);
    const dir = path.dirname(abs);
    if (base === 'result.json' && found.has(path.join(dir, 'agent', 'trajectory.json'))) continue;
    // `<trial>/attempts/<NNN>/…`: the attempt folder is the first one below an `attempts` folder.
    const attemptDir = base === 'result.json' ? dir : path.basename(dir) === 'agent' ? path.dirname(dir) : null;
    const trial = attemptDir ? trialOfAttempt(attemptDir) : null;
    if (trial && attemptDir) {
      const final = await finalOf(trial);
      if (final !== null && path.resolve(final) !== attemptDir) continue;
    }
    out.push(p);
  }
  return out;
}
