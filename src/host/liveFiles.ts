/**
 * The files timelines follow (live follow), shared with the Rollouts view: a followed
 * session grows every few seconds, and the view would read the whole file again at every change to
 * update its step count. Instead it takes the rollouts the timeline already read (`get`) and is
 * told when they change (`onChange`, at most twice a second per file). One LiveFiles is built by
 * the composition root (app.ts) and handed to the timeline editor and the Rollouts view. Nothing
 * here imports `vscode`.
 */
import * as path from 'node:path';
import type { LoadedFile } from '../core/load';

/** Told that a followed file (absolute path) now holds `loaded`. */
export type LiveFilesListener = (file: string, loaded: LoadedFile) => void;

/** Changes of a file are told at most this often (ms). */
export const LIVE_NOTIFY_MS = 500;

interface Followed {
  loaded: LoadedFile;
  owners: Set<object>;
  timer: ReturnType<typeof setTimeout> | undefined;
  lastTold: number;
}

const key = (file: string): string => path.resolve(file);

/** The followed files, by absolute path. */
export class LiveFiles {
  private readonly followed = new Map<string, Followed>();
  private readonly listeners = new Set<LiveFilesListener>();

  private tell(file: string, f: Followed): void {
    f.timer = undefined;
    f.lastTold = Date.now();
    for (const l of [...this.listeners]) l(file, f.loaded);
  }

  /**
   * `owner` (a timeline) follows `file` and has read `loaded` so far (call again after each change:
   * listeners hear of it, at most every LIVE_NOTIFY_MS).
   */
  set(file: string, owner: object, loaded: LoadedFile): void {
    const k = key(file);
    let f = this.followed.get(k);
    if (!f) {
      f = { loaded, owners: new Set(), timer: undefined, lastTold: 0 };
      this.followed.set(k, f);
    }
    f.loaded = loaded;
    f.owners.add(owner);
    if (f.timer) return;
    const fl = f;
    const wait = Math.max(0, fl.lastTold + LIVE_NOTIFY_MS - Date.now());
    if (wait === 0) this.tell(k, fl);
    else fl.timer = setTimeout(() => this.tell(k, fl), wait);
  }

  /** `owner` no longer follows `file` (closed, or reads it whole now). */
  release(file: string, owner: object): void {
    const k = key(file);
    const f = this.followed.get(k);
    if (!f) return;
    f.owners.delete(owner);
    if (f.owners.size === 0) {
      clearTimeout(f.timer);
      this.followed.delete(k);
    }
  }

  /** What a timeline following `file` has read, or undefined when none follows it. */
  get(file: string): LoadedFile | undefined {
    return this.followed.get(key(file))?.loaded;
  }

  /** Calls `fn` when a followed file's rollouts changed; returns the unsubscribe. */
  onChange(fn: LiveFilesListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Drops every pending notification and listener (the extension stops). */
  dispose(): void {
    for (const f of this.followed.values()) clearTimeout(f.timer);
    this.followed.clear();
    this.listeners.clear();
  }
}
