/**
 * Loads rollout files off the calling thread: a small pool of `worker_threads` Workers, each running
 * core `loadFile` (entry: loadWorkerMain.ts, bundled as dist/loadWorker.js). The extension host uses
 * it so that reading a large file (JSON.parse, schema checks and source ranges of a 10 MB ATIF take
 * about a second) never freezes the host: its thread only receives the finished LoadedFile.
 *
 * - Workers start on demand (at most `size`), are reused, and exit after `idleMs` without work
 *   (their memory is freed). Requests beyond the free workers wait in order.
 * - Results are the same as an in-thread `loadFile`: the LoadedFile comes in pieces that the calling
 *   thread rebuilds a slice at a time, yielding in between (loadTransfer.ts PackedLoadedFile), so
 *   even receiving a large result holds it only milliseconds at a time; errors are rebuilt as
 *   RolloutLoadError / UnknownFormatError / Error.
 * - A worker that crashes, runs out of memory or is stopped fails the request it was running with a
 *   LoadWorkerError; the next request gets a new worker.
 * - A request whose AbortSignal fires is dropped: a waiting one leaves the queue, a running one stops
 *   its worker (a synchronous parse cannot be interrupted otherwise). It fails with LoadCancelledError.
 * - `dispose()` stops every worker and fails what is pending with LoadWorkerError.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';
import type { LoadedFile, LoadOptions } from './load';
import { reviveLoadError, unpackLoadedFile, type LoadReply, type LoadRequest } from './loadTransfer';

/** The load worker stopped (crashed, ran out of memory, could not start) or the pool was closed while the file was being read. */
export class LoadWorkerError extends Error {
  /**
   * @param file absolute path of the file that was being read
   * @param reason what happened to the worker, in words
   */
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`Could not read ${file}: ${reason}. Opening it again starts a new load worker.`);
    this.name = 'LoadWorkerError';
  }
}

/** A load was cancelled by its AbortSignal (e.g. superseded by a newer load of the same view). */
export class LoadCancelledError extends Error {
  constructor(readonly file: string) {
    super(`Loading ${file} was cancelled`);
    this.name = 'LoadCancelledError';
  }
}

/** Options of a LoadPool. */
export interface LoadPoolOptions {
  /** Absolute path of the worker script: dist/loadWorker.js (or loadWorkerMain.ts under tsx, with `workerOptions.execArgv`). */
  script: string;
  /** Most workers at once (default 2). */
  size?: number;
  /** A worker with no request for this many milliseconds exits (default 60,000; 0 keeps workers until dispose). */
  idleMs?: number;
  /** The longest stretch (ms) the calling thread spends rebuilding a result before it yields (default 8). */
  sliceMs?: number;
  /** Passed to each `new Worker` (execArgv, resourceLimits, env). */
  workerOptions?: WorkerOptions;
  /** Told of each worker started and of each that stopped while reading a file (diagnostics, tests). */
  onWorkerStart?: (worker: Worker) => void;
  onWorkerLost?: (file: string, reason: string) => void;
}

interface Pending {
  id: number;
  file: string;
  resolve(loaded: LoadedFile): void;
  reject(e: Error): void;
  signal?: AbortSignal;
  onAbort?: () => void;
  options?: LoadOptions;
}

interface Slot {
  worker: Worker;
  busy: Pending | null;
  /** An uncaught error of the worker (reported before its exit). */
  error: Error | null;
  idleTimer: NodeJS.Timeout | undefined;
  gone: boolean;
}

/** A pool of load workers; see the module comment. */
export class LoadPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private readonly size: number;
  private readonly idleMs: number;
  private nextId = 1;
  private disposed = false;

  constructor(private readonly opts: LoadPoolOptions) {
    this.size = Math.max(1, opts.size ?? 2);
    this.idleMs = opts.idleMs ?? 60_000;
  }

  /** Workers running now (started and not yet exited). */
  get workers(): number {
    return this.slots.length;
  }

  /**
   * Reads one rollout file in a worker: resolves with what `loadFile(file)` returns there.
   * @throws RolloutLoadError | UnknownFormatError (as loadFile), LoadWorkerError (the worker stopped,
   *   or the pool is closed), LoadCancelledError (`signal` fired)
   */
  load(file: string, opts: { signal?: AbortSignal; options?: LoadOptions } = {}): Promise<LoadedFile> {
    if (this.disposed) return Promise.reject(new LoadWorkerError(file, 'the load workers are closed'));
    if (opts.signal?.aborted) return Promise.reject(new LoadCancelledError(file));
    return new Promise<LoadedFile>((resolve, reject) => {
      const p: Pending = { id: this.nextId++, file, resolve, reject, signal: opts.signal, options: opts.options };
      if (opts.signal) {
        p.onAbort = () => this.cancel(p);
        opts.signal.addEventListener('abort', p.onAbort, { once: true });
      }
      this.queue.push(p);
      this.pump();
    });
  }

  /** Stops every worker; pending loads fail with LoadWorkerError. Resolves when the threads have exited. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    for (const p of this.queue.splice(0)) this.settle(p, new LoadWorkerError(p.file, 'the load workers were closed'));
    const stopping: Promise<unknown>[] = [];
    for (const s of this.slots.splice(0)) {
      if (s.busy) this.settle(s.busy, new LoadWorkerError(s.busy.file, 'the load workers were closed'));
      s.busy = null;
      s.gone = true;
      clearTimeout(s.idleTimer);
      stopping.push(s.worker.terminate());
    }
    await Promise.allSettled(stopping);
  }

  private settle(p: Pending, result: Error | LoadedFile): void {
    if (p.onAbort) p.signal?.removeEventListener('abort', p.onAbort);
    if (result instanceof Error) p.reject(result);
    else p.resolve(result);
  }

  private cancel(p: Pending): void {
    const q = this.queue.indexOf(p);
    if (q >= 0) {
      this.queue.splice(q, 1);
      this.settle(p, new LoadCancelledError(p.file));
      return;
    }
    const slot = this.slots.find((s) => s.busy === p);
    if (!slot) return; // already answered
    slot.busy = null;
    this.drop(slot);
    void slot.worker.terminate();
    this.settle(p, new LoadCancelledError(p.file));
    this.pump();
  }

  /** Hands waiting requests to idle workers, starting workers up to `size`. */
  private pump(): void {
    while (this.queue.length && !this.disposed) {
      let slot: Slot | null | undefined = this.slots.find((s) => !s.busy);
      if (!slot) {
        if (this.slots.length >= this.size) return;
        slot = this.start();
        if (!slot) continue; // it failed the request it was started for; try the next
      }
      const p = this.queue.shift()!;
      clearTimeout(slot.idleTimer);
      slot.busy = p;
      slot.worker.ref();
      slot.worker.postMessage({ id: p.id, file: p.file, options: p.options } satisfies LoadRequest);
    }
  }

  private start(): Slot | null {
    let worker: Worker;
    try {
      worker = new Worker(this.opts.script, this.opts.workerOptions);
    } catch (e) {
      // A bad script path or options: fail the first waiting request, say why.
      const p = this.queue.shift();
      if (p) this.settle(p, new LoadWorkerError(p.file, `the load worker could not start (${e instanceof Error ? e.message : String(e)})`));
      return null;
    }
    const slot: Slot = { worker, busy: null, error: null, idleTimer: undefined, gone: false };
    this.slots.push(slot);
    worker.on('message', (reply: LoadReply) => this.onReply(slot, reply));
    worker.on('error', (e) => {
      slot.error = e;
    });
    worker.on('exit', (code) => this.onExit(slot, code));
    this.opts.onWorkerStart?.(worker);
    return slot;
  }

  private onReply(slot: Slot, reply: LoadReply): void {
    const p = slot.busy;
    if (!p || p.id !== reply.id) return; // a cancelled request's late answer
    slot.busy = null;
    this.idle(slot);
    this.pump();
    if (!reply.ok) {
      this.settle(p, reviveLoadError(reply.error));
      return;
    }
    // Rebuilt piece by piece, yielding between slices: the thread stays free for other work.
    const cancelled = (): Error | null =>
      this.disposed ? new LoadWorkerError(p.file, 'the load workers were closed') : p.signal?.aborted ? new LoadCancelledError(p.file) : null;
    unpackLoadedFile(reply.packed, this.opts.sliceMs ?? 8, cancelled).then(
      (loaded) => this.settle(p, loaded),
      (e: unknown) => this.settle(p, e instanceof Error ? e : new Error(String(e))),
    );
  }

  private idle(slot: Slot): void {
    if (slot.busy || slot.gone) return;
    slot.worker.unref(); // an idle worker does not keep a Node process (CLI, tests) alive
    if (this.idleMs > 0) {
      clearTimeout(slot.idleTimer);
      slot.idleTimer = setTimeout(() => {
        if (slot.busy || slot.gone) return;
        this.drop(slot);
        void slot.worker.terminate();
      }, this.idleMs);
      slot.idleTimer.unref();
    }
  }

  private drop(slot: Slot): void {
    slot.gone = true;
    clearTimeout(slot.idleTimer);
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
  }

  private onExit(slot: Slot, code: number): void {
    this.drop(slot);
    const p = slot.busy;
    slot.busy = null;
    if (p) {
      const e = slot.error as (Error & { code?: string }) | null;
      const reason =
        e?.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? 'the load worker ran out of memory reading it'
          : e
            ? `the load worker failed (${e.message})`
            : `the load worker stopped (exit code ${code})`;
      this.opts.onWorkerLost?.(p.file, reason);
      this.settle(p, new LoadWorkerError(p.file, reason));
    }
    this.pump();
  }
}
