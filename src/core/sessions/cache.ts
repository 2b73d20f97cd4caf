/**
 * What the Sessions list learnt of each session file, kept between runs (one JSON file in the
 * extension's global storage) so the next start reads nothing it has read before:
 * - the head, valid while the file is the same file (inode) and has not shrunk: session files are
 *   only appended to, so their first records do not change;
 * - the counts, valid for the exact (size, mtime) they were made at; with the counter's state and
 *   the last bytes counted, so a file that grew is counted from where the last pass ended.
 * A missing or unreadable cache file is an empty cache. No vscode.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { SessionCounts, SessionHead } from './types';

/** The cache file's layout version; another version is ignored (read as empty). */
const VERSION = 1;
/** How long after its last write a file's counter state is kept in the cache file (a day). */
const RESUME_KEEP_MS = 24 * 60 * 60 * 1000;

interface Entry {
  size: number;
  mtimeMs: number;
  ino: number;
  head: SessionHead;
  /** False when the head was read to the end of a file that may still grow without finding all it looks for. */
  headDone: boolean;
  counts?: SessionCounts;
  /** Size and mtime the counts were made at. */
  countedSize?: number;
  countedMtimeMs?: number;
  /** The counter's state after `counts.scannedBytes` (format-specific JSON). */
  state?: unknown;
  /** Hex of the first and of the last (at most) 64 bytes before `counts.scannedBytes`: checked before resuming, so a rewritten file is counted afresh. */
  tail?: string;
}

/** File facts the cache is keyed by. */
export interface FileFacts {
  path: string;
  size: number;
  mtimeMs: number;
  ino: number;
}

export class SessionCache {
  private entries = new Map<string, Entry>();
  private seen = new Set<string>();
  private dirty = false;

  /** @param file where `save` writes (null: memory only) */
  constructor(readonly file: string | null = null) {}

  /** Reads the cache file; a missing, corrupt or other-version file gives an empty cache. */
  static async load(file: string): Promise<SessionCache> {
    const c = new SessionCache(file);
    try {
      const data = JSON.parse(await fs.readFile(file, 'utf8')) as { version?: number; entries?: Record<string, Entry> };
      if (data.version === VERSION && data.entries && typeof data.entries === 'object') {
        for (const [k, v] of Object.entries(data.entries)) if (v && typeof v === 'object' && v.head) c.entries.set(k, v);
      }
    } catch {
      // no cache yet
    }
    return c;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The cached head of a file when still valid (same inode, not shrunk; a head read to a then-end is re-read once the file grew). */
  head(f: FileFacts): SessionHead | null {
    this.seen.add(f.path);
    const e = this.entries.get(f.path);
    if (!e || e.ino !== f.ino || f.size < e.size) return null;
    if (!e.headDone && f.size !== e.size) return null;
    return e.head;
  }

  putHead(f: FileFacts, head: SessionHead, done: boolean): void {
    this.seen.add(f.path);
    const old = this.entries.get(f.path);
    const keep = old && old.ino === f.ino && f.size >= old.size ? old : undefined;
    this.entries.set(f.path, { ...keep, size: f.size, mtimeMs: f.mtimeMs, ino: f.ino, head, headDone: done });
    this.dirty = true;
  }

  /** Counts made at exactly this size and mtime, else null. */
  counts(f: FileFacts): SessionCounts | null {
    const e = this.entries.get(f.path);
    if (!e?.counts || e.ino !== f.ino || e.countedSize !== f.size || e.countedMtimeMs !== f.mtimeMs) return null;
    return e.counts;
  }

  /** What a pass over a grown file can resume from (same inode, not shrunk), else null; the caller checks `tail`. */
  resumable(f: FileFacts): { counts: SessionCounts; state: unknown; tail: string } | null {
    const e = this.entries.get(f.path);
    if (!e?.counts || e.state === undefined || e.tail === undefined || e.ino !== f.ino || f.size < e.counts.scannedBytes) return null;
    return { counts: e.counts, state: e.state, tail: e.tail };
  }

  putCounts(f: FileFacts, counts: SessionCounts, state: unknown, tail: string): void {
    const e = this.entries.get(f.path);
    if (!e) return; // counted without a head: nothing to attach it to
    Object.assign(e, { counts, state, tail, countedSize: f.size, countedMtimeMs: f.mtimeMs });
    this.dirty = true;
  }

  /** Forgets the files not looked up since the cache was loaded (call after a complete listing: they are gone). */
  prune(): void {
    for (const k of this.entries.keys()) {
      if (!this.seen.has(k)) {
        this.entries.delete(k);
        this.dirty = true;
      }
    }
  }

  /**
   * Writes the cache file when something changed (write to a temp file, then rename). The counter
   * state that lets a grown file be counted from its old end is kept only for files written in the
   * last RESUME_KEEP_MS (sessions still going on): an older file that changes is counted afresh.
   */
  async save(now = Date.now()): Promise<void> {
    if (!this.file || !this.dirty) return;
    this.dirty = false;
    const entries: Record<string, Entry> = {};
    for (const [k, e] of this.entries) {
      if (now - e.mtimeMs < RESUME_KEEP_MS || e.state === undefined) entries[k] = e;
      else {
        const { state: _s, tail: _t, ...rest } = e;
        entries[k] = rest;
      }
    }
    const data = JSON.stringify({ version: VERSION, entries });
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    await fs.writeFile(tmp, data);
    await fs.rename(tmp, this.file);
  }
}
