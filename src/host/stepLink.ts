/**
 * Links to one step of a rollout, for *Copy Link to Step* and the extension's URI handler:
 *
 * ```
 * <scheme>://<publisher>.<name>/open?file=<path>&rollout=<K>&step=<N>
 * ```
 *
 * `file` is the rollout file's path relative to the workspace folder it lies in (`/`-separated, so
 * a link made on one machine resolves in a colleague's clone of the same repository), or an absolute
 * path for a file outside every folder; `rollout` is the 1-based position of the rollout in its
 * file (optional, default 1); `step` the 1-based step number as the timeline shows it (`#N`;
 * optional: the rollout opens at its start). Unknown parameters are ignored (room for later ones).
 *
 * Nothing here imports `vscode`: building, parsing and resolving are plain functions, unit-tested in
 * test/unit/host/stepLink.test.ts; src/host/stepLinks.ts wires them to VS Code.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** What a step link points at. */
export interface StepLink {
  /** Workspace-relative (`/`-separated) or absolute path of the rollout file. */
  file: string;
  /** 0-based position of the rollout in its file. */
  rolloutIndex: number;
  /** 0-based step index, or null (the rollout's start). */
  stepIndex: number | null;
}

/** A link that cannot be read: `message` says which parameter and what is wrong with it. */
export class StepLinkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StepLinkError';
  }
}

/** The path of the URI handler's only route. */
export const STEP_LINK_PATH = '/open';
/** Longest `file` parameter accepted (characters). */
const MAX_FILE_CHARS = 4096;
/** Largest rollout or step number accepted (a link is typed or pasted: beyond this it is a typo or an attack). */
const MAX_NUMBER = 1e9;

/**
 * The link to step `link.stepIndex` of rollout `link.rolloutIndex` of `link.file`, for the extension
 * `extensionId` (`publisher.name`) under the editor's URI scheme `scheme` (`vscode.env.uriScheme`:
 * `vscode`, `vscode-insiders`, `code-oss`, …).
 */
export function buildStepLink(scheme: string, extensionId: string, link: StepLink): string {
  const q = new URLSearchParams({ file: link.file, rollout: String(link.rolloutIndex + 1) });
  if (link.stepIndex !== null) q.set('step', String(link.stepIndex + 1));
  return `${scheme}://${extensionId}${STEP_LINK_PATH}?${q.toString()}`;
}

/** A positive whole number parameter (1-based), or null when absent. @throws StepLinkError */
function ordinal(q: URLSearchParams, name: string): number | null {
  const raw = q.get(name);
  if (raw === null || raw === '') return null;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < 1 || Number(raw) > MAX_NUMBER) {
    throw new StepLinkError(`the link's ${name}=${JSON.stringify(raw.slice(0, 40))} is not a ${name} number (1, 2, …)`);
  }
  return Number(raw) - 1;
}

/**
 * Reads a link's route and query (`uri.path`, `uri.query` of the URI VS Code hands the handler; the
 * query still percent-encoded, as in the link).
 * @throws StepLinkError for another route, a missing or unusable `file`, or a rollout / step that is not a positive number
 */
export function parseStepLink(route: string, query: string): StepLink {
  if (route !== STEP_LINK_PATH) throw new StepLinkError(`the link's path ${JSON.stringify(route.slice(0, 80))} is not ${STEP_LINK_PATH} (the only link Trajectory Inspector opens)`);
  const q = new URLSearchParams(query);
  const file = q.get('file');
  if (file === null || file.trim() === '') throw new StepLinkError('the link has no file=… parameter (the rollout file to open)');
  if (file.length > MAX_FILE_CHARS || file.includes('\0')) throw new StepLinkError('the link\'s file=… parameter is not a usable path');
  return { file, rolloutIndex: ordinal(q, 'rollout') ?? 0, stepIndex: ordinal(q, 'step') };
}

/**
 * The `file` parameter for `fsPath`: relative to the first of `folders` (absolute paths) that holds
 * it, `/`-separated; the absolute path when none does.
 */
export function linkPathOf(fsPath: string, folders: readonly string[]): string {
  for (const f of folders) {
    const rel = path.relative(f, fsPath);
    if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) return rel.split(path.sep).join('/');
  }
  return fsPath;
}

/** Where a link's file was looked for, when it was not found. */
export interface Unresolved {
  /** The paths tried, in order. */
  tried: string[];
  /** Why nothing was tried (a relative path that leaves its folder, no folder open), or null. */
  reason: string | null;
}

/**
 * The file a link's `file` names on this machine: an absolute path as it is (when it exists), a
 * relative one under each of `folders` in turn (the first that exists; a path that leaves the folder
 * with `..` is refused). `exists` is the check (default: a regular file).
 */
export function resolveLinkPath(file: string, folders: readonly string[], exists: (p: string) => boolean = defaultExists): { path: string } | Unresolved {
  const norm = file.replace(/\\/g, '/');
  if (path.isAbsolute(file) || /^[A-Za-z]:\//.test(norm)) return exists(file) ? { path: file } : { tried: [file], reason: null };
  const rel = path.posix.normalize(norm);
  if (rel === '..' || rel.startsWith('../') || rel === '.') return { tried: [], reason: `${file} leaves the workspace folder` };
  if (folders.length === 0) return { tried: [], reason: 'no workspace folder is open' };
  const tried: string[] = [];
  for (const f of folders) {
    const p = path.join(f, ...rel.split('/'));
    tried.push(p);
    if (exists(p)) return { path: p };
  }
  return { tried, reason: null };
}

function defaultExists(p: string): boolean {
  try {
    const st = fs.statSync(p);
    return st.isFile();
  } catch {
    return false;
  }
}
