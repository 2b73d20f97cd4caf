/**
 * Steps ↔ workspace files, without the vscode API (unit-tested): the rollouts the extension knows
 * (open timelines, the workspace's sessions) by the workspace files their steps read or changed,
 * the path map of the setting `trajectoryInspector.files.pathMap`, and what the gutter, the
 * commands and the diff need of one file (core/files does the reading and the reconstruction).
 *
 * A recorded path counts as a workspace file when, after the path map, it lies in an open
 * workspace folder: a session whose cwd is the workspace folder needs no entry; a SWE-bench
 * rollout of `/testbed` needs `{"/testbed": "${workspaceFolder}"}`.
 */
import * as path from 'node:path';
import { fileVersions, lineSteps, type FileChangeAt, type FileVersion, type StepLines } from '../core/files/fileHistory';
import { mapPath, stepFileTouches, type PathMapping, type StepFileTouch } from '../core/files/stepFiles';
import type { Rollout } from '../core/model';
import type { StepFileChip, StepFilesMessage } from '../shared/protocol';

/** A workspace folder: its name and absolute path. */
export interface WorkspaceFolderRef {
  name: string;
  path: string;
}

/**
 * The setting's entries as mappings: `${workspaceFolder}` → the first folder,
 * `${workspaceFolder:name}` → the folder of that name; a relative value resolves against the first
 * folder. Keys must be absolute POSIX paths; entries that cannot be resolved are left out.
 */
export function pathMappings(setting: Readonly<Record<string, string>>, folders: readonly WorkspaceFolderRef[]): PathMapping[] {
  const out: PathMapping[] = [];
  for (const [from, raw] of Object.entries(setting)) {
    if (!from.startsWith('/')) continue;
    let ok = true;
    const to = raw.replace(/\$\{workspaceFolder(?::([^}]+))?\}/g, (_, name: string | undefined) => {
      const f = name === undefined ? folders[0] : folders.find((x) => x.name === name);
      if (!f) ok = false;
      return f?.path ?? '';
    });
    if (!ok || !to) continue;
    const abs = path.isAbsolute(to) ? path.normalize(to) : folders[0] ? path.resolve(folders[0].path, to) : null;
    if (abs) out.push({ from: path.posix.normalize(from), to: abs });
  }
  return out;
}

/** Whether `p` is a workspace folder or lies below one. */
export function inWorkspace(p: string, folders: readonly WorkspaceFolderRef[]): boolean {
  return folders.some((f) => p === f.path || p.startsWith(f.path.endsWith(path.sep) ? f.path : f.path + path.sep));
}

/** A touch of a workspace file by a step of a known rollout. */
export interface WorkspaceTouch extends StepFileTouch {
  /** The rollout file (absolute). */
  file: string;
  /** The rollout's index in its file, and its id. */
  rolloutIndex: number;
  rolloutId: string;
  /** The local file (absolute, after the path map); `path` stays the path the agent saw. */
  localPath: string;
}

/** What the index knows of one rollout: its touches, by local file. */
interface Indexed {
  file: string;
  rolloutIndex: number;
  rollout: Rollout;
  byPath: Map<string, WorkspaceTouch[]>;
}

/** A short label of a rollout file's rollout for lists: `session.jsonl` or `output.jsonl · rollout 3`. */
export function rolloutLabel(file: string, rolloutIndex: number, count: number): string {
  return count > 1 ? `${path.basename(file)} · rollout ${rolloutIndex + 1}` : path.basename(file);
}

/**
 * The known rollouts by the workspace files they touched. `set` replaces what a rollout file
 * contributed; `mappings` and `folders` are read when a file is set (call `reindex` after they change).
 */
export class StepFileIndex {
  private readonly files = new Map<string, Indexed[]>();
  private readonly counts = new Map<string, number>();

  constructor(
    private mappings: PathMapping[],
    private folders: WorkspaceFolderRef[],
  ) {}

  /** Indexes the rollouts of `file` (its steps read again), replacing what it had. */
  set(file: string, rollouts: readonly Rollout[]): void {
    const list: Indexed[] = [];
    rollouts.forEach((rollout, rolloutIndex) => {
      const byPath = new Map<string, WorkspaceTouch[]>();
      for (const t of stepFileTouches(rollout)) {
        const localPath = path.normalize(mapPath(t.path, this.mappings));
        if (!inWorkspace(localPath, this.folders)) continue;
        const w: WorkspaceTouch = { ...t, file, rolloutIndex, rolloutId: rollout.id, localPath };
        const at = byPath.get(localPath);
        if (at) at.push(w);
        else byPath.set(localPath, [w]);
      }
      if (byPath.size) list.push({ file, rolloutIndex, rollout, byPath });
    });
    this.counts.set(file, rollouts.length);
    if (list.length) this.files.set(file, list);
    else this.files.delete(file);
  }

  /** How many rollouts `file` holds (as set), for labels; 1 when unknown. */
  rolloutCount(file: string): number {
    return this.counts.get(file) ?? 1;
  }

  /** Forgets a rollout file. */
  delete(file: string): void {
    this.files.delete(file);
    this.counts.delete(file);
  }

  /** Whether `file`'s rollouts were indexed (whether or not they touch a workspace file). */
  has(file: string): boolean {
    return this.counts.has(file);
  }

  /** New path map or folders: every indexed file is read again with them. */
  reindex(mappings: PathMapping[], folders: WorkspaceFolderRef[]): void {
    this.mappings = mappings;
    this.folders = folders;
    for (const [file, list] of [...this.files]) this.set(file, list.map((x) => x.rollout));
  }

  /** Every touch of the local file `localPath`, by rollout file and rollout, in step order. */
  touchesOf(localPath: string): WorkspaceTouch[] {
    const p = path.normalize(localPath);
    return [...this.files.values()].flatMap((list) => list.flatMap((x) => x.byPath.get(p) ?? []));
  }

  /** The rollout a touch came from, or null when it is no longer indexed. */
  rolloutOf(t: Pick<WorkspaceTouch, 'file' | 'rolloutIndex'>): Rollout | null {
    return this.files.get(t.file)?.find((x) => x.rolloutIndex === t.rolloutIndex)?.rollout ?? null;
  }

  /** The local files one step touched, in order, with how. */
  touchesOfStep(file: string, rolloutIndex: number, stepIndex: number): WorkspaceTouch[] {
    const x = this.files.get(file)?.find((r) => r.rolloutIndex === rolloutIndex);
    return x ? [...x.byPath.values()].flat().filter((t) => t.stepIndex === stepIndex) : [];
  }
}

/** The changes of a rollout's touches of one file that applied (failed and rejected edits changed nothing). */
export function appliedChanges(touches: readonly WorkspaceTouch[]): (FileChangeAt & { touch: WorkspaceTouch })[] {
  return touches.filter((t) => t.kind === 'edit' && t.change && t.outcome !== 'failed' && t.outcome !== 'rejected').map((t) => ({ stepIndex: t.stepIndex, change: t.change!, touch: t }));
}

/** One rollout's history of a file: its applied changes, their versions, and the lines each step changed last. */
export interface RolloutFileHistory {
  file: string;
  rolloutIndex: number;
  changes: (FileChangeAt & { touch: WorkspaceTouch })[];
  versions: FileVersion[];
  lines: StepLines[];
}

/**
 * Per rollout that changed the local file, its history against `current` (the file's text now),
 * in the order the index holds them (rollout file, then rollout).
 */
export function fileHistories(touches: readonly WorkspaceTouch[], current: string): RolloutFileHistory[] {
  const byRollout = new Map<string, WorkspaceTouch[]>();
  for (const t of touches) {
    const k = `${t.file}\n${t.rolloutIndex}`;
    const at = byRollout.get(k);
    if (at) at.push(t);
    else byRollout.set(k, [t]);
  }
  const out: RolloutFileHistory[] = [];
  for (const list of byRollout.values()) {
    const changes = appliedChanges(list);
    if (!changes.length) continue;
    const versions = fileVersions(changes, current);
    out.push({ file: list[0].file, rolloutIndex: list[0].rolloutIndex, changes, versions, lines: lineSteps(changes, versions, current) });
  }
  return out;
}

/**
 * The timeline's file chips of a rollout: per step, every file it read or changed, a workspace
 * file by its path relative to its folder (prefixed by the folder's name when there are several),
 * any other by the path the agent recorded.
 */
export function stepFileChips(rollout: Rollout, mappings: readonly PathMapping[], folders: readonly WorkspaceFolderRef[]): StepFilesMessage {
  const byStep = new Map<number, StepFileChip[]>();
  for (const t of stepFileTouches(rollout)) {
    const local = path.normalize(mapPath(t.path, mappings));
    const folder = folders.find((f) => inWorkspace(local, [f])) ?? null;
    const rel = folder ? path.relative(folder.path, local).split(path.sep).join('/') || path.basename(local) : null;
    const label = folder ? (folders.length > 1 ? `${folder.name}/${rel}` : rel!) : t.path;
    const chips = byStep.get(t.stepIndex) ?? [];
    chips.push({ label, recorded: t.path, kind: t.kind, local: folder !== null, failed: t.kind === 'edit' && (t.outcome === 'failed' || t.outcome === 'rejected') });
    byStep.set(t.stepIndex, chips);
  }
  return { type: 'stepFiles', rolloutId: rollout.id, steps: [...byStep].map(([index, files]) => ({ index, files })) };
}
