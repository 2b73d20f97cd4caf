/**
 * Scorer manager: owns one scorer process for one configured command, keeps it warm between
 * requests, splits work into batches within the scorer's declared limits, serves and fills the
 * on-disk score cache, cancels, times out, and restarts a crashed or hung scorer with exponential
 * backoff — saying so through `onNotice` and `onState`.
 *
 * Guarantees (tested in test/unit/scoring/manager.test.ts with misbehaving scorer fixtures):
 * - every score handed out passed the client's validation (./client.ts `score`); a malformed reply,
 *   a crash, a timeout or a cancel makes the rollouts of that batch fail with the reason, never
 *   score them;
 * - nothing from a failed, crashed, timed-out or cancelled request is cached;
 * - after `maxRestarts` consecutive failures the manager stops trying (state `failed`) until
 *   `restart()`; a scorer that cannot be spawned at all fails at once.
 *
 * Never imports `vscode`.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { canonicalOptions, identityOf, type ScoreCache, type ScorerIdentity } from './cache';
import { ScorerClient, ScorerError, type ScorerCommand } from './client';
import { contentHash, stepCount } from './input';
import { ErrorCodes, type InitializeResult, type ScoreRollout, type StepScore } from './protocol';

/** Settings of a manager. Times in milliseconds. */
export interface ManagerOptions {
  command: ScorerCommand;
  /** `initialize` options (scorer-specific). */
  options?: Record<string, unknown>;
  client: { name: string; version: string };
  /** null: no cache. */
  cache: ScoreCache | null;
  /** Wait for `initialize` (model loading) at most this long. Default 120 000. */
  initTimeoutMs?: number;
  /** Wait for one batch at most this long; a scorer that takes longer is taken as hung and restarted. Default 120 000. */
  requestTimeoutMs?: number;
  /** Consecutive failures (crash, hang, broken stream) tolerated before giving up. Default 4. */
  maxRestarts?: number;
  /** First restart delay; doubles with every consecutive failure up to `maxBackoffMs`. Default 500 / 30 000. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Stop the idle scorer after this long without requests (frees a GPU); 0 = keep it running. Default 0. */
  idleShutdownMs?: number;
  log?: (line: string) => void;
}

/** What the manager is doing (the status bar shows it). */
export type ScorerState =
  | { kind: 'stopped' }
  | { kind: 'starting' }
  | { kind: 'ready'; info: InitializeResult }
  | { kind: 'busy'; info: InitializeResult; done: number; total: number }
  | { kind: 'restarting'; reason: string; attempt: number; delayMs: number }
  | { kind: 'failed'; reason: string };

/** The scores of one rollout, by step index order, and whether they came from the cache. */
export interface RolloutResult {
  id: string;
  steps: StepScore[];
  fromCache: boolean;
}

/** Outcome of `score`: what got scored (validated), and which rollouts failed and why. */
export interface ScoreRun {
  scorer: ScorerIdentity | null;
  results: RolloutResult[];
  failures: { ids: string[]; error: ScorerError }[];
  cancelled: boolean;
}

/** Options of one `score` call. */
export interface RunOptions {
  signal?: AbortSignal;
  /** Validated results as they arrive (cache hits first, then `$/progress` partials and batch results). */
  onResult?: (r: RolloutResult, scorer: ScorerIdentity) => void;
  /** Steps done / in all over this call. */
  onProgress?: (done: number, total: number) => void;
  /** Skip the cache lookup (rescore); results are still written to it. */
  noCacheRead?: boolean;
}

const delay = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((res) => {
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      res();
    }
    signal?.addEventListener('abort', done);
  });

/** Manages one scorer command. */
export class ScorerManager {
  private client: ScorerClient | null = null;
  private starting: Promise<ScorerClient> | null = null;
  private failuresInARow = 0;
  private lastFailure = '';
  private st: ScorerState = { kind: 'stopped' };
  private readonly stateListeners = new Set<(s: ScorerState) => void>();
  private readonly noticeListeners = new Set<(message: string, level: 'info' | 'warning' | 'error') => void>();
  private queue: Promise<unknown> = Promise.resolve();
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private disposed = false;
  private hint: ScorerIdentity | null = null;
  private hintLoaded = false;
  private readonly opt: Required<Omit<ManagerOptions, 'options' | 'cache' | 'log'>> & Pick<ManagerOptions, 'options' | 'cache'> & { log: (l: string) => void };

  constructor(options: ManagerOptions) {
    this.opt = {
      initTimeoutMs: 120_000,
      requestTimeoutMs: 120_000,
      maxRestarts: 4,
      backoffMs: 500,
      maxBackoffMs: 30_000,
      idleShutdownMs: 0,
      log: () => {},
      ...options,
    } as ScorerManager['opt'];
  }

  /** Current state. */
  get state(): ScorerState {
    return this.st;
  }

  /** The running scorer's `initialize` result, or null. */
  get info(): InitializeResult | null {
    return this.client?.alive ? this.client.info : null;
  }

  /** The running scorer's process id (tests). */
  get pid(): number | undefined {
    return this.client?.alive ? this.client.pid : undefined;
  }

  onState(fn: (s: ScorerState) => void): () => void {
    this.stateListeners.add(fn);
    return () => this.stateListeners.delete(fn);
  }

  /** Things the user should be told: restarts, giving up, a scorer error. */
  onNotice(fn: (message: string, level: 'info' | 'warning' | 'error') => void): () => void {
    this.noticeListeners.add(fn);
    return () => this.noticeListeners.delete(fn);
  }

  private setState(s: ScorerState): void {
    this.st = s;
    for (const fn of [...this.stateListeners]) fn(s);
  }

  private notice(message: string, level: 'info' | 'warning' | 'error'): void {
    this.opt.log(`[manager] ${level}: ${message}`);
    for (const fn of [...this.noticeListeners]) fn(message, level);
  }

  // ------------------------------------------------------------ identity hint (cache before spawn)

  private hintFile(): string | null {
    if (!this.opt.cache) return null;
    const h = createHash('sha256').update(JSON.stringify([this.opt.command.command, this.opt.command.args, this.opt.options ?? null])).digest('hex').slice(0, 32);
    return path.join(this.opt.cache.dir, 'scorers', `${h}.json`);
  }

  /** The identity the command had last time it ran (so cached scores are served without starting it). */
  private async loadHint(): Promise<ScorerIdentity | null> {
    if (this.hintLoaded) return this.hint;
    this.hintLoaded = true;
    const f = this.hintFile();
    if (!f) return null;
    try {
      const o = JSON.parse(await fs.promises.readFile(f, 'utf8')) as ScorerIdentity;
      if (typeof o?.name === 'string' && typeof o.version === 'string' && Array.isArray(o.scoreRange)) this.hint = o;
    } catch {
      // none yet
    }
    return this.hint;
  }

  private async saveHint(id: ScorerIdentity): Promise<void> {
    this.hint = id;
    this.hintLoaded = true;
    const f = this.hintFile();
    if (!f) return;
    try {
      await fs.promises.mkdir(path.dirname(f), { recursive: true });
      await fs.promises.writeFile(f, JSON.stringify(id));
    } catch (e) {
      this.opt.log(`[manager] cannot write ${f}: ${(e as Error).message}`);
    }
  }

  // ------------------------------------------------------------ process life

  /** The running client, starting (or restarting after the backoff) when needed. */
  private async ensureClient(signal?: AbortSignal): Promise<ScorerClient> {
    if (this.disposed) throw new ScorerError('cancelled', 'the scorer manager was disposed');
    if (this.client?.alive) return this.client;
    if (this.st.kind === 'failed') throw new ScorerError('crashed', `the scorer is stopped after repeated failures (${this.lastFailure}); restart it to try again`);
    if (!this.starting) {
      this.starting = (async () => {
        if (this.failuresInARow > 0) {
          const wait = Math.min(this.opt.maxBackoffMs, this.opt.backoffMs * 2 ** (this.failuresInARow - 1));
          this.setState({ kind: 'restarting', reason: this.lastFailure, attempt: this.failuresInARow, delayMs: wait });
          await delay(wait);
          if (this.disposed) throw new ScorerError('cancelled', 'the scorer manager was disposed');
        }
        this.setState({ kind: 'starting' });
        try {
          const c = await ScorerClient.start(this.opt.command, { client: this.opt.client, options: this.opt.options, initTimeoutMs: this.opt.initTimeoutMs, log: this.opt.log });
          if (this.disposed) {
            void c.shutdown(500);
            throw new ScorerError('cancelled', 'the scorer manager was disposed');
          }
          this.client = c;
          c.onFail((e) => {
            if (this.client !== c) return;
            this.client = null;
            if (!this.disposed && this.st.kind !== 'stopped') this.recordFailure(e);
          });
          if (this.failuresInARow > 0) this.notice(`scorer ${c.info.scorer.name} restarted (attempt ${this.failuresInARow} after: ${this.lastFailure})`, 'info');
          await this.saveHint(identityOf(c.info, this.opt.options));
          this.setState({ kind: 'ready', info: c.info });
          return c;
        } catch (e) {
          const err = e instanceof ScorerError ? e : new ScorerError('crashed', String(e));
          if (err.kind === 'spawn' || (err.kind === 'scorer' && err.code !== null)) {
            // Cannot be run, or refuses to start (ModelLoadFailed, BackendUnavailable…): retrying will not help.
            this.lastFailure = err.message;
            this.setState({ kind: 'failed', reason: err.message });
            this.notice(`scorer could not start: ${err.message}`, 'error');
          } else if (err.kind !== 'cancelled') {
            this.recordFailure(err);
          }
          throw err;
        } finally {
          this.starting = null;
        }
      })();
    }
    const p = this.starting;
    if (!signal) return p;
    return Promise.race([p, new Promise<never>((_, rej) => signal.addEventListener('abort', () => rej(new ScorerError('cancelled', 'cancelled')), { once: true }))]);
  }

  private recordFailure(e: ScorerError): void {
    this.failuresInARow++;
    this.lastFailure = e.message;
    if (this.failuresInARow > this.opt.maxRestarts) {
      this.setState({ kind: 'failed', reason: e.message });
      this.notice(`scorer stopped after ${this.failuresInARow} failures in a row; last: ${e.message}`, 'error');
    } else {
      const wait = Math.min(this.opt.maxBackoffMs, this.opt.backoffMs * 2 ** (this.failuresInARow - 1));
      this.setState({ kind: 'restarting', reason: e.message, attempt: this.failuresInARow, delayMs: wait });
      this.notice(`scorer ${e.kind === 'timeout' ? 'hung' : 'failed'}: ${e.message}; restarting in ${(wait / 1000).toFixed(1)} s`, 'warning');
    }
  }

  /** Clears a `failed` state and the failure count; the next request starts the scorer again. */
  restart(): void {
    this.failuresInARow = 0;
    this.lastFailure = '';
    const c = this.client;
    this.client = null;
    if (c) void c.shutdown(1000);
    this.setState({ kind: 'stopped' });
  }

  private armIdle(): void {
    clearTimeout(this.idleTimer);
    if (this.opt.idleShutdownMs > 0) {
      this.idleTimer = setTimeout(() => {
        const c = this.client;
        if (!c) return;
        this.client = null;
        this.opt.log('[manager] idle: stopping the scorer');
        this.setState({ kind: 'stopped' });
        void c.shutdown();
      }, this.opt.idleShutdownMs);
    }
  }

  // ------------------------------------------------------------ scoring

  /**
   * Scores rollouts: cache hits first, then the rest in batches through the scorer (one request at
   * a time per manager; calls queue). Never throws for scorer failures: they come back in
   * `failures`, with the rollouts they concern.
   */
  score(rollouts: ScoreRollout[], opts: RunOptions = {}): Promise<ScoreRun> {
    const run = this.queue.then(() => this.scoreNow(rollouts, opts));
    this.queue = run.catch(() => {});
    return run;
  }

  private async scoreNow(rollouts: ScoreRollout[], opts: RunOptions): Promise<ScoreRun> {
    clearTimeout(this.idleTimer);
    const run: ScoreRun = { scorer: null, results: [], failures: [], cancelled: false };
    const total = stepCount(rollouts);
    let done = 0;
    const hashes = new Map(rollouts.map((r) => [r, contentHash(r)]));
    const emit = (r: RolloutResult, id: ScorerIdentity): void => {
      run.results.push(r);
      opts.onResult?.(r, id);
    };
    try {
      let todo = rollouts;
      // 1. Cache, under the identity the command had last time (no spawn when everything is cached).
      const cache = this.opt.cache;
      const loaded = this.info ? identityOf(this.info, this.opt.options) : await this.loadHint();
      // The hint is the identity of the last start; the options are this manager's own (they may have changed since).
      const opt = canonicalOptions(this.opt.options);
      const hint = loaded ? { ...loaded, options: opt || undefined } : null;
      if (cache && hint && !opts.noCacheRead) {
        todo = [];
        for (const r of rollouts) {
          const hit = await cache.get(hint, hashes.get(r)!);
          if (hit && hit.length === r.steps.length) {
            run.scorer = hint;
            emit({ id: r.id, steps: hit, fromCache: true }, hint);
            done += r.steps.length;
          } else todo.push(r);
        }
        opts.onProgress?.(done, total);
      }
      if (!todo.length) return run;
      if (opts.signal?.aborted) {
        run.cancelled = true;
        return run;
      }

      // 2. The scorer, batch by batch.
      let queue = [...todo];
      while (queue.length) {
        if (opts.signal?.aborted) {
          run.cancelled = true;
          return run;
        }
        let client: ScorerClient;
        try {
          client = await this.ensureClient(opts.signal);
        } catch (e) {
          const err = e instanceof ScorerError ? e : new ScorerError('crashed', String(e));
          if (err.kind === 'cancelled') {
            run.cancelled = true;
            return run;
          }
          if (this.st.kind === 'failed' || err.kind === 'spawn') {
            run.failures.push({ ids: queue.map((r) => r.id), error: err });
            return run;
          }
          continue; // restart with backoff
        }
        const info = client.info;
        const id = identityOf(info, this.opt.options);
        run.scorer = id;
        // A scorer restarted under another identity: what the cache holds for it may differ.
        if (cache && !opts.noCacheRead && (!hint || JSON.stringify(hint) !== JSON.stringify(id))) {
          const rest: ScoreRollout[] = [];
          for (const r of queue) {
            const hit = await cache.get(id, hashes.get(r)!);
            if (hit && hit.length === r.steps.length) {
              emit({ id: r.id, steps: hit, fromCache: true }, id);
              done += r.steps.length;
            } else rest.push(r);
          }
          queue = rest;
          if (!queue.length) break;
        }
        const batch = takeBatch(queue, this.splitHint || info.maxBatchRollouts, info.maxBatchSteps);
        const batchSteps = stepCount(batch);
        this.setState({ kind: 'busy', info, done, total });
        const partial = new Set<string>();
        try {
          const results = await client.score(batch, {
            timeoutMs: this.opt.requestTimeoutMs,
            signal: opts.signal,
            onProgress: (p) => {
              // Partial results are validated by the client; shown now, cached only with the final answer.
              for (const r of p.rollouts) {
                partial.add(r.id);
                opts.onResult?.({ id: r.id, steps: r.steps, fromCache: false }, id);
              }
              opts.onProgress?.(done + p.done, total);
              this.setState({ kind: 'busy', info, done: done + p.done, total });
            },
          });
          for (let i = 0; i < batch.length; i++) {
            const r = results[i];
            run.results.push({ id: r.id, steps: r.steps, fromCache: false });
            if (!partial.has(r.id)) opts.onResult?.({ id: r.id, steps: r.steps, fromCache: false }, id);
            if (cache) await cache.put(id, hashes.get(batch[i])!, r.steps, (e) => this.opt.log(`[manager] cache write failed: ${e.message}`));
          }
          queue = queue.slice(batch.length);
          done += batchSteps;
          opts.onProgress?.(done, total);
          this.failuresInARow = 0;
          this.setState({ kind: 'ready', info });
        } catch (e) {
          const err = e instanceof ScorerError ? e : new ScorerError('protocol', String(e));
          if (err.kind === 'cancelled') {
            run.cancelled = true;
            if (client.alive) this.setState({ kind: 'ready', info });
            return run;
          }
          if (err.kind === 'scorer' && err.code === ErrorCodes.OutOfMemory && batch.length > 1) {
            // Halve the batch and try again (the scorer stays up).
            this.notice(`scorer ran out of memory on ${batch.length} rollouts (${batchSteps} steps); retrying in smaller batches`, 'warning');
            const half = Math.ceil(batch.length / 2);
            queue = [...batch.slice(0, half), ...batch.slice(half), ...queue.slice(batch.length)];
            this.splitHint = half;
            continue;
          }
          if (err.kind === 'timeout') {
            // Hung: kill it; the failure is recorded through onFail → restart with backoff.
            client.kill();
            await client.whenFailed();
          }
          run.failures.push({ ids: batch.map((r) => r.id), error: err });
          queue = queue.slice(batch.length);
          if (client.alive) this.setState({ kind: 'ready', info });
          else if ((this.st.kind as string) === 'failed') {
            if (queue.length) run.failures.push({ ids: queue.map((r) => r.id), error: err });
            return run;
          }
        }
      }
      return run;
    } finally {
      this.splitHint = 0;
      this.armIdle();
    }
  }

  /** While > 0, batches hold at most this many rollouts (after an OutOfMemory). */
  private splitHint = 0;

  /** Stops the scorer (`shutdown` + `exit`, then a kill after the grace period). */
  async dispose(): Promise<void> {
    this.disposed = true;
    clearTimeout(this.idleTimer);
    const c = this.client;
    this.client = null;
    this.setState({ kind: 'stopped' });
    if (c) await c.shutdown(1000);
  }
}

/** The next batch from the front of `queue`: at most `maxRollouts` rollouts and `maxSteps` steps (always at least one rollout). */
export function takeBatch(queue: ScoreRollout[], maxRollouts: number, maxSteps: number): ScoreRollout[] {
  const out: ScoreRollout[] = [];
  let steps = 0;
  for (const r of queue) {
    if (out.length >= maxRollouts) break;
    if (out.length && steps + r.steps.length > maxSteps) break;
    out.push(r);
    steps += r.steps.length;
  }
  return out;
}
