/**
 * Where coding-agent sessions live, and finding their files (Node fs, no vscode).
 *
 * Defaults, as the tools themselves resolve them:
 * - Claude Code: `$CLAUDE_CONFIG_DIR/projects` when CLAUDE_CONFIG_DIR is set, else `~/.claude/projects`
 *   (code.claude.com/docs/en/claude-directory: "If you set CLAUDE_CONFIG_DIR, every ~/.claude path …
 *   lives under that directory instead"). Sessions are `<project dir>/<session id>.jsonl`; the
 *   project dir's name is the cwd with every character but ASCII letters and digits replaced by `-`
 *   (lossy, so the list filters by the cwd recorded in the file); `<session id>/subagents/` holds
 *   subagent transcripts, which are not sessions of their own.
 * - Codex CLI: `$CODEX_HOME/sessions` when CODEX_HOME is set, else `~/.codex/sessions`
 *   (developers.openai.com/codex/environment-variables: CODEX_HOME "sets the root for Codex state,
 *   including … sessions"). Rollouts are `YYYY/MM/DD/rollout-<time>-<id>.jsonl` (older versions:
 *   `rollout-*.jsonl` directly in `sessions/`).
 * `~` is `os.homedir()`, which is $HOME on Linux and macOS.
 */
import { promises as fs, type Dirent } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SessionFormat, SessionRoot } from './types';

/**
 * The default roots for an environment: Claude Code's projects folder and Codex's sessions folder.
 * @param env environment variables (CLAUDE_CONFIG_DIR, CODEX_HOME)
 * @param home the home folder (default `os.homedir()`)
 */
export function defaultSessionRoots(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): SessionRoot[] {
  const claude = env.CLAUDE_CONFIG_DIR?.trim();
  const codex = env.CODEX_HOME?.trim();
  return [
    { path: path.join(claude ? path.resolve(claude) : path.join(home, '.claude'), 'projects'), format: 'claude-code', origin: claude ? 'env' : 'default' },
    { path: path.join(codex ? path.resolve(codex) : path.join(home, '.codex'), 'sessions'), format: 'codex-cli', origin: codex ? 'env' : 'default' },
  ];
}

/**
 * Roots from a setting or the command line: `~` and `~/…` expanded, relative paths resolved
 * against `base`, duplicates of earlier roots dropped. The format of a file under them is told
 * by its first record.
 */
export function extraSessionRoots(paths: readonly string[], origin: SessionRoot['origin'], base = process.cwd(), home = os.homedir()): SessionRoot[] {
  return paths
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => ({ path: path.resolve(base, p === '~' ? home : p.startsWith('~/') ? path.join(home, p.slice(2)) : p), format: null, origin }));
}

/** Roots without repeats (the first of two roots with the same path wins). */
export function uniqueRoots(roots: readonly SessionRoot[]): SessionRoot[] {
  const seen = new Set<string>();
  return roots.filter((r) => {
    const k = path.resolve(r.path);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/**
 * Claude Code's project folder name for a path: every UTF-16 unit that is not an ASCII letter or
 * digit becomes `-` (older versions replaced fewer characters; `projectDirMatches` allows for that).
 */
export function claudeProjectDirName(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, '-');
}

/**
 * Whether a Claude Code project folder named `dirName` can hold sessions started in `folder` or
 * below it. Only orders the work (see findSessionFiles): a session is listed by its recorded cwd.
 * Long names are cut at 200 characters by Claude Code (and get a hash), so at most that much is compared.
 */
export function projectDirMatches(dirName: string, folder: string): boolean {
  const a = claudeProjectDirName(dirName).slice(0, 200);
  const b = claudeProjectDirName(folder).replace(/-+$/, '').slice(0, 200);
  return a.startsWith(b) && (a.length === b.length || a[b.length] === '-' || b.length === 200);
}

/** A session file found under a root. */
export interface FoundSession {
  path: string;
  root: SessionRoot;
  /** The format the root implies (null: tell from the first record). */
  format: SessionFormat | null;
  size: number;
  mtimeMs: number;
  ino: number;
  /**
   * False for a Claude Code project folder whose name cannot come from any of the folders asked
   * for: still read (names are lossy and have changed), but after the others.
   */
  likely: boolean;
}

/** Folder names under a root that never hold sessions (Claude Code per-session folders hold subagents and spilled tool output). */
const SKIP_DIRS = new Set(['subagents', 'tool-results', 'memory', 'workflows', 'node_modules']);

async function entries(dir: string): Promise<Dirent[]> {
  try {
    return await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/**
 * Every `*.jsonl` session file under the roots, with size and mtime (one readdir per folder, one
 * stat per file). Claude Code roots: `<project>/<file>.jsonl`; Codex roots: files up to three
 * folders deep (`YYYY/MM/DD/`); other roots: up to four folders deep, skipping the per-session
 * folders of Claude Code. A root that does not exist yields nothing. Never throws.
 * @param folders the folders sessions are wanted for (orders Claude Code project folders, see `likely`)
 */
export async function findSessionFiles(roots: readonly SessionRoot[], folders: readonly string[] = []): Promise<FoundSession[]> {
  const out: FoundSession[] = [];
  const files: { path: string; root: SessionRoot; likely: boolean }[] = [];
  const walk = async (root: SessionRoot, dir: string, depth: number, maxDepth: number, likely: boolean): Promise<void> => {
    const list = await entries(dir);
    const subdirs: Promise<void>[] = [];
    for (const e of list) {
      const p = path.join(dir, e.name);
      if (e.isFile() && e.name.endsWith('.jsonl')) {
        files.push({ path: p, root, likely });
      } else if ((e.isDirectory() || e.isSymbolicLink()) && depth < maxDepth && !SKIP_DIRS.has(e.name) && !e.name.startsWith('.')) {
        const isProject = root.format === 'claude-code' && depth === 0;
        const l = isProject && folders.length ? folders.some((f) => projectDirMatches(e.name, f)) : likely;
        subdirs.push(walk(root, p, depth + 1, maxDepth, l));
      }
    }
    await Promise.all(subdirs);
  };
  await Promise.all(roots.map((r) => walk(r, r.path, 0, r.format === 'claude-code' ? 1 : r.format === 'codex-cli' ? 3 : 4, true)));
  // stat in batches: a few thousand files take one round of the thread pool each.
  const BATCH = 64;
  for (let i = 0; i < files.length; i += BATCH) {
    const part = files.slice(i, i + BATCH);
    const stats = await Promise.all(part.map((f) => fs.stat(f.path).catch(() => null)));
    part.forEach((f, k) => {
      const st = stats[k];
      if (st?.isFile()) out.push({ path: f.path, root: f.root, format: f.root.format, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, likely: f.likely });
    });
  }
  return out;
}

/** Whether `cwd` is `folder` or lies below it (both resolved; case-insensitive on Windows only; a sibling sharing a prefix is not below). */
export function isWithin(cwd: string, folder: string): boolean {
  const norm = (p: string) => {
    const r = path.resolve(p);
    return process.platform === 'win32' ? r.toLowerCase() : r;
  };
  const c = norm(cwd);
  const f = norm(folder);
  if (c === f) return true;
  return c.startsWith(f.endsWith(path.sep) ? f : f + path.sep);
}
