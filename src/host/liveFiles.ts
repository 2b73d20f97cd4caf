/**
 * The files timelines follow (live follow), shared with the Rollouts view: a followed
 * session grows every few seconds, and the view would read the whole file again at every change to
 * update its step count. Instead it takes the rollouts the timeline already read (`get`) and is
 * told when they change (`onChange`, at most twice a second per file). Nothing here imports
 * `vscode`.
 */
import * as path from 'node:path';
import type { LoadedFile } from '../core/load';

type Listener = (file: string, loaded: LoadedFile) => void;

/** Changes of a file are told at most this often (ms). */
export const LIVE_NOTIFY_MS = 500;

interface Followed {
  loaded: LoadedFile;
  owners: Set<object>;
  timer: ReturnType<typeof setTimeout> | undefined;
  lastTold: number;
}

const followed = new Map<string, Followed>();
const listeners = new Set<Listener>();

const key = (file: string): string => path.resolve(file);

function tell(file: string, f: Followed): void {
  f.timer = undefined;
  f.lastTold = Date.now();
  for (const l of [...listeners]) l(file, f.loaded);
}

/** The followed files, by absolute path. */
export const liveFiles = {
  /**
   * `owner` (a timeline) follows `file` and has read `loaded` so far (call again after each change:
   * listeners hear of it, at most every LIVE_NOTIFY_MS).
   */
  set(file: string, owner: object, loaded: LoadedFile): void {
    const k = key(file);
    let f = followed.get(k);
    if (!f) {
      f = { loaded, owners: new Set(), timer: undefined, lastTold: 0 };
      followed.set(k, f);
    }
    f.loaded = loaded;
    f.owners.add(owner);
    if (f.timer) return;
    const fl = f;
    const wait = Math.max(0, fl.lastTold + LIVE_NOTIFY_MS - Date.now());
    if (wait === 0) tell(k, fl);
    else fl.timer = setTimeout(() => tell(k, fl), wait);
  },
  /** `owner` no longer follows `file` (closed, or reads it whole now). */
  release(file: string, owner: object): void {
    const k = key(file);
    const f = followed.get(k);
    if (!f) return;
    f.owners.delete(owner);
    if (f.owners.size === 0) {
      clearTimeout(f.timer);
      followed.delete(k);
    }
  },
  /** What a timeline following `file` has read, or undefined when none follows it. */
  get(file: string): LoadedFile | undefined {
    return followed.get(key(file))?.loaded;
  },
  /** Calls `fn` when a followed file's rollouts changed; returns the unsubscribe. */
  onChange(fn: Listener): () => void {
    listeners.add(fn);
    return () => listeners.delete(fn);
  },
};
