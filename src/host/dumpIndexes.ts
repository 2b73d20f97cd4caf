/**
 * Large JSONL rollout dumps (and large single JSON files whose top level is an array of rows,
 * core/scale/arrayIndex.ts) in the extension: the lazy index of each (core/scale/rolloutIndex.ts),
 * built once per file and shared by the Rollouts view and the timeline, cached in the extension's
 * storage (never next to the user's files) and reused while the file's size and mtime are unchanged,
 * extended when the file only grew (a running job). A rollout is read only when it is opened.
 *
 * Indexing runs on the extension host's thread in chunks (core yields after every 4 MiB read), so the
 * host is never held for longer than one chunk's work.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import type { LoadedFile } from '../core/load';
import { unknownOutcome, type Rollout } from '../core/model';
import { buildIndex, NotIndexableError, readCachedIndex, writeCachedIndex, type IndexProgress, type RolloutIndex } from '../core/scale/rolloutIndex';
import { itemLocation, loadItem } from '../core/scale/arrayIndex';
import { loadRow } from '../core/scale/rowLoad';
import { summarizeIndexed } from '../core/scale/summaries';
import { PICKER_MAX, pickerPositions, type RolloutMessage, type ViewConfig } from '../shared/protocol';
import { fileLabel } from './present';

/** Files at least this large whose name ends in `.jsonl` or `.json` are read through the index. */
export const INDEX_MIN_BYTES = 16 * 1024 * 1024;

/**
 * Whether a file of `size` bytes is read through the index (then NotIndexableError still sends it to
 * a full load: a `.json` whose top level is not an array of rows is told apart from its first bytes).
 */
export function wantsIndex(file: string, size: number): boolean {
  return size >= INDEX_MIN_BYTES && /\.jsonl?$/i.test(file);
}

type Listener = (index: RolloutIndex, progress: IndexProgress) => void;

interface Live {
  index: RolloutIndex | null;
  building: Promise<RolloutIndex> | null;
  listeners: Set<Listener>;
  progress: IndexProgress | null;
}

/** The indexes of the large dumps the user looks at (one per file). */
export class DumpIndexes {
  private readonly live = new Map<string, Live>();

  constructor(
    /** Folder for the cached indexes (the extension's global storage); null keeps them in memory only. */
    private readonly cacheDir: string | null,
    private readonly output: vscode.LogOutputChannel,
  ) {}

  private entry(file: string): Live {
    let l = this.live.get(file);
    if (!l) {
      l = { index: null, building: null, listeners: new Set(), progress: null };
      this.live.set(file, l);
    }
    return l;
  }

  /** The index as far as it is built (null before the first chunk). */
  current(file: string): RolloutIndex | null {
    return this.live.get(file)?.index ?? null;
  }

  /**
   * The index of `file`, up to date with the file on disk: cached, extended, or built; `onProgress`
   * hears every chunk of a pass (also of a pass another caller started).
   * @throws NotIndexableError (not a row-per-line dump) or the error reading the file
   */
  async index(file: string, onProgress?: Listener): Promise<RolloutIndex> {
    const l = this.entry(file);
    if (onProgress) l.listeners.add(onProgress);
    try {
      if (l.building) return await l.building;
      l.building = this.build(file, l);
      try {
        return await l.building;
      } finally {
        l.building = null;
      }
    } finally {
      if (onProgress) l.listeners.delete(onProgress);
    }
  }

  private async build(file: string, l: Live): Promise<RolloutIndex> {
    const previous = l.index ?? (this.cacheDir ? await readCachedIndex(this.cacheDir, file) : null);
    const started = Date.now();
    const index = await buildIndex(file, {
      previous,
      onProgress: (idx, _added, p) => {
        l.index = idx;
        l.progress = p;
        for (const cb of l.listeners) cb(idx, p);
      },
    });
    l.index = index;
    if (index !== previous) {
      this.output.info(`index: ${path.basename(file)}: ${index.entries.length} rollouts${index.skipped ? `, ${index.skipped} rows left out` : ''} in ${Date.now() - started} ms`);
      for (const m of index.skippedMessages.slice(0, 3)) this.output.warn(`index: ${m}`);
      if (this.cacheDir) await writeCachedIndex(this.cacheDir, index).catch((e) => this.output.warn(`index: cannot cache ${file}: ${String(e)}`));
    }
    return index;
  }

  /**
   * Rollout `i` of an indexed file, read from its row (its id is the file-wide one of the index).
   * @throws RolloutLoadError (the row does not conform) or RangeError (no such rollout)
   */
  async open(file: string, i: number): Promise<Rollout> {
    const index = this.current(file) ?? (await this.index(file));
    const e = index.entries[i];
    if (!e) throw new RangeError(`${path.basename(file)} has no rollout ${i + 1} (it has ${index.entries.length})`);
    const r = index.kind === 'array' ? await loadItem(file, index.format, itemLocation(e)) : await loadRow(file, index.format, e);
    r.id = e.id;
    return r;
  }
}

/** A listed-but-not-read rollout of an indexed file: its summary fields, no steps. */
function placeholder(file: string, index: RolloutIndex, i: number): Rollout {
  const e = index.entries[i];
  return {
    id: e.id,
    format: index.format,
    schemaVersion: null,
    source: { path: file, range: { start: e.charOffset ?? e.offset, end: (e.charOffset ?? e.offset) + e.length }, line: e.line },
    task: { id: e.taskId, instruction: null },
    agent: { name: null, version: null, model: null },
    environment: { image: null, workdir: null },
    outcome: { ...unknownOutcome(), reward: e.reward, resolved: e.resolved },
    groupId: e.groupId,
    steps: [],
    metadata: { notRead: true },
  };
}

/**
 * A timeline's view of an indexed file: a LoadedFile whose rollouts are the ones read so far and
 * placeholders (summary fields, no steps) for the rest, and the rollout message built from the
 * index (step counts of unread rollouts come from the index).
 */
export class IndexedTimelineFile {
  readonly loaded: LoadedFile;
  private constructor(
    private readonly dumps: DumpIndexes,
    readonly index: RolloutIndex,
  ) {
    this.loaded = { path: index.path, format: index.format, schemaVersion: null, rollouts: index.entries.map((_, i) => placeholder(index.path, index, i)) };
  }

  /** Indexes `file` (or reuses its index) and reads rollout `show`. @throws NotIndexableError, RolloutLoadError */
  static async open(dumps: DumpIndexes, file: string, show: number): Promise<IndexedTimelineFile> {
    const index = await dumps.index(file);
    if (index.entries.length === 0) throw new NotIndexableError(file, 'no rollout rows');
    const f = new IndexedTimelineFile(dumps, index);
    await f.ensure(Math.max(0, Math.min(show, index.entries.length - 1)));
    return f;
  }

  isRead(i: number): boolean {
    return this.loaded.rollouts[i] !== undefined && this.loaded.rollouts[i].metadata.notRead !== true;
  }

  /** Reads rollout `i` when it is not read yet. */
  async ensure(i: number): Promise<Rollout> {
    if (!this.isRead(i)) this.loaded.rollouts[i] = await this.dumps.open(this.index.path, i);
    return this.loaded.rollouts[i];
  }

  /** The rollout message of rollout `i` (read already), with the index's summaries. */
  message(i: number, selectStep: number | null, config: ViewConfig): RolloutMessage {
    const idx = Math.max(0, Math.min(i, this.loaded.rollouts.length - 1));
    const r = this.loaded.rollouts[idx];
    return {
      type: 'rollout',
      file: { path: this.loaded.path, format: this.loaded.format, schemaVersion: null, label: fileLabel(this.loaded.path, r.task.id) },
      // The picker's window only (pickerPositions): not 100,000 summaries with every rollout shown.
      summaries: pickerPositions(this.index.entries.length, idx).map((k) => {
        const { groupId: _g, trialName: _t, ...s } = summarizeIndexed([this.index.entries[k]], k)[0];
        return s;
      }),
      ...(this.index.entries.length > PICKER_MAX ? { rolloutCount: this.index.entries.length } : {}),
      rolloutIndex: idx,
      rollout: r,
      selectStep,
      config,
    };
  }
}

/**
 * The timeline's entry: for a large JSONL dump or JSON array of rows (wantsIndex) the file read through its index with
 * rollout `show` read; null for any other file (and for a file the index cannot read as rows), which
 * the timeline loads whole as before.
 * @throws RolloutLoadError (rollout `show`'s row does not conform) or the error reading the file
 */
export async function openIndexedTimeline(dumps: DumpIndexes | null, file: string, show: number): Promise<IndexedTimelineFile | null> {
  if (!dumps) return null;
  let size: number;
  try {
    size = (await fs.promises.stat(file)).size;
  } catch {
    return null; // loadFile reports it
  }
  if (!wantsIndex(file, size)) return null;
  try {
    return await IndexedTimelineFile.open(dumps, file, show);
  } catch (e) {
    if (e instanceof NotIndexableError) return null;
    throw e;
  }
}
