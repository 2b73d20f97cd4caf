/**
 * How the extension host reads a rollout file: through the load workers (core/loadPool.ts, worker
 * entry dist/loadWorker.js), so that parsing a large file never holds the host's thread; a small
 * file is read in-thread, where that is faster than the round trip. Every host call site that read a
 * whole file with core `loadFile` uses the composition root's `RolloutLoader` instead; results and errors are the same
 * (RolloutLoadError / UnknownFormatError with their located issues; a worker that stopped gives a
 * LoadWorkerError, and the next load starts a new worker).
 *
 * Large JSONL dumps do not come here: they are read row by row through their index (dumpIndexes.ts).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { loadFile, type LoadedFile, type LoadOptions } from '../core/load';
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

/**
 * Starts the extension's load workers (the composition root does, once); after the returned
 * loader's `dispose` it reads in-thread.
 * @param script absolute path of the worker script: the extension's `dist/loadWorker.js`
 * @param workerOptions passed to each Worker (tests run the TypeScript entry under tsx)
 */
export function startLoadWorkers(
  script: string,
  output: Pick<vscode.LogOutputChannel, 'warn' | 'info'>,
  workerOptions?: LoadPoolOptions['workerOptions'],
): RolloutLoader & vscode.Disposable {
  const pool = new LoadPool({
    script,
    size: LOAD_WORKERS,
    idleMs: LOAD_WORKER_IDLE_MS,
    workerOptions,
    onWorkerStart: (w) => output.info(`load worker ${w.threadId} started`),
    onWorkerLost: (file, reason) => output.warn(`load worker: ${path.basename(file)}: ${reason}`),
  });
  return new RolloutLoader(pool);
}

/** Whether `file` (of `size` bytes) is read on the calling thread rather than in a load worker. */
export function readsInThread(file: string, size: number): boolean {
  return size < IN_THREAD_MAX_BYTES && !/\.eval$/i.test(file);
}

/** Reads rollout files: in its load workers, or on the calling thread (small files; no workers). */
export class RolloutLoader implements vscode.Disposable {
  /** The newest load of each owner (a timeline panel): a newer one cancels the one still running. */
  private readonly latest = new WeakMap<object, AbortController>();

  /** How every file is read (the user's limits: `trajectoryInspector.load.*`); set by setOptions. */
  private options: LoadOptions = {};

  /** @param pool the load workers; null: every file is read in-thread (unit tests of the views) */
  constructor(private pool: LoadPool | null) {}

  /** Sets how files are read from now on (the composition root sets it from the settings, and again when they change). */
  setOptions(options: LoadOptions): void {
    this.options = { ...options };
  }

  /**
   * Reads one rollout file, in a load worker unless it is small (readsInThread) or there are no
   * workers.
   * @param opts.supersede an owner (e.g. a timeline panel): a newer load with the same owner cancels
   *   this one if it is still running (it then fails with LoadCancelledError)
   * @param opts.signal cancels the load (LoadCancelledError)
   * @param opts.size the file's size in bytes when the caller has just read it (no second `stat`);
   *   null: the path could not be read (the load says why); absent: read here
   * @throws RolloutLoadError | UnknownFormatError (as core loadFile), LoadWorkerError, LoadCancelledError
   */
  async load(file: string, opts: { supersede?: object; signal?: AbortSignal; size?: number | null } = {}): Promise<LoadedFile> {
    const workers = this.pool;
    const options = this.options;
    if (!workers) return loadFile(file, undefined, options);
    let size = opts.size;
    if (size === undefined) {
      try {
        size = (await fs.stat(file)).size;
      } catch {
        size = null;
      }
    }
    if (size === null) return loadFile(file, undefined, options); // it says what is wrong with the path
    if (readsInThread(file, size)) return loadFile(file, undefined, options);
    let ac: AbortController | undefined;
    if (opts.supersede) {
      this.latest.get(opts.supersede)?.abort();
      ac = new AbortController();
      this.latest.set(opts.supersede, ac);
    }
    const signal = ac && opts.signal ? AbortSignal.any([ac.signal, opts.signal]) : (ac?.signal ?? opts.signal);
    try {
      return await workers.load(file, { signal, options });
    } finally {
      if (opts.supersede && this.latest.get(opts.supersede) === ac) this.latest.delete(opts.supersede);
    }
  }

  /** Stops the workers; later loads read in-thread. */
  dispose(): void {
    const pool = this.pool;
    this.pool = null;
    void pool?.dispose();
  }
}
