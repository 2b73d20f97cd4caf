/**
 * How the extension host reads a rollout file: through the load workers (core/loadPool.ts, worker
 * entry dist/loadWorker.js), so that parsing a large file never holds the host's thread; a small
 * file is read in-thread, where that is faster than the round trip. Every host call site that read a
 * whole file with core `loadFile` uses `loadRolloutFile` instead; results and errors are the same
 * (RolloutLoadError / UnknownFormatError with their located issues; a worker that stopped gives a
 * LoadWorkerError, and the next load starts a new worker).
 *
 * Large JSONL dumps do not come here: they are read row by row through their index (dumpIndexes.ts).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { loadFile, type LoadedFile } from '../core/load';
import { LoadPool, type LoadPoolOptions } from '../core/loadPool';

/**
 * Files smaller than this (bytes) are read on the host's thread: at this size a load takes a few
 * milliseconds, less than a worker's round trip (bench/results/hostBlock.md). Inspect `.eval` logs
 * (ZIP) always go to a worker: their decompressed size is unknown.
 */
export const IN_THREAD_MAX_BYTES = 1024 * 1024;
/** Load workers at most. */
export const LOAD_WORKERS = 2;
/** An idle load worker exits after this long (ms), giving back its memory. */
export const LOAD_WORKER_IDLE_MS = 60_000;

let pool: LoadPool | null = null;
/** The newest load of each owner (a timeline panel): a newer one cancels the one still running. */
const latest = new WeakMap<object, AbortController>();

/**
 * Starts the load workers of the extension; until then, and after the returned disposable ran,
 * `loadRolloutFile` reads in-thread.
 * @param script absolute path of the worker script: the extension's `dist/loadWorker.js`
 * @param workerOptions passed to each Worker (tests run the TypeScript entry under tsx)
 */
export function initLoadWorkers(
  script: string,
  output: Pick<vscode.LogOutputChannel, 'warn' | 'info'>,
  workerOptions?: LoadPoolOptions['workerOptions'],
): vscode.Disposable {
  const mine = new LoadPool({
    script,
    size: LOAD_WORKERS,
    idleMs: LOAD_WORKER_IDLE_MS,
    workerOptions,
    onWorkerStart: (w) => output.info(`load worker ${w.threadId} started`),
    onWorkerLost: (file, reason) => output.warn(`load worker: ${path.basename(file)}: ${reason}`),
  });
  pool = mine;
  return {
    dispose: () => {
      if (pool === mine) pool = null;
      void mine.dispose();
    },
  };
}

/** Whether `file` (of `size` bytes) is read on the calling thread rather than in a load worker. */
export function readsInThread(file: string, size: number): boolean {
  return size < IN_THREAD_MAX_BYTES && !/\.eval$/i.test(file);
}

/**
 * Reads one rollout file, in a load worker unless it is small (readsInThread) or the workers are
 * not started (unit tests of the views).
 * @param opts.supersede an owner (e.g. a timeline panel): a newer load with the same owner cancels
 *   this one if it is still running (it then fails with LoadCancelledError)
 * @param opts.signal cancels the load (LoadCancelledError)
 * @param opts.size the file's size in bytes when the caller has just read it (no second `stat`);
 *   null: the path could not be read (the load says why); absent: read here
 * @throws RolloutLoadError | UnknownFormatError (as core loadFile), LoadWorkerError, LoadCancelledError
 */
export async function loadRolloutFile(file: string, opts: { supersede?: object; signal?: AbortSignal; size?: number | null } = {}): Promise<LoadedFile> {
  const workers = pool;
  if (!workers) return loadFile(file);
  let size = opts.size;
  if (size === undefined) {
    try {
      size = (await fs.stat(file)).size;
    } catch {
      size = null;
    }
  }
  if (size === null) return loadFile(file); // it says what is wrong with the path
  if (readsInThread(file, size)) return loadFile(file);
  let ac: AbortController | undefined;
  if (opts.supersede) {
    latest.get(opts.supersede)?.abort();
    ac = new AbortController();
    latest.set(opts.supersede, ac);
  }
  const signal = ac && opts.signal ? AbortSignal.any([ac.signal, opts.signal]) : (ac?.signal ?? opts.signal);
  try {
    return await workers.load(file, { signal });
  } finally {
    if (opts.supersede && latest.get(opts.supersede) === ac) latest.delete(opts.supersede);
  }
}
