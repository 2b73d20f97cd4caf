/**
 * Client side of the scorer protocol (docs/scorer-protocol.md): spawns one scorer process, speaks
 * JSON-RPC 2.0 with LSP framing over its stdin/stdout through `vscode-jsonrpc`'s node
 * StreamMessageReader/Writer, validates every message it receives with the zod schemas of
 * ./protocol, and turns every way a scorer can fail into a `ScorerError` of a named kind:
 *
 * - `spawn`     the command could not be started (ENOENT, EACCES);
 * - `crashed`   the process exited while a request was open (or before answering initialize);
 * - `timeout`   no answer within the time given (the caller decides whether to kill it);
 * - `protocol`  the scorer wrote something that is not a protocol message, or a reply whose shape or
 *               values are wrong (zod issues, wrong step count, value outside scoreRange…);
 * - `scorer`    the scorer answered with a JSON-RPC error (ModelLoadFailed, OutOfMemory, …);
 * - `cancelled` the caller cancelled the request.
 *
 * A reply that fails validation is never returned as scores. Never imports `vscode`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  CancellationTokenSource,
  createMessageConnection,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import type { z } from 'zod';
import {
  checkRolloutScores,
  ErrorCodes,
  ErrorData,
  errorCodeName,
  formatZodIssues,
  InitializeResult,
  Methods,
  PROTOCOL_VERSION,
  ProgressParams,
  ScoreResult,
  type RolloutScores,
  type ScoreRollout,
} from './protocol';
import { GuardedMessageReader } from './reader';
import { ASCII_JSON_WRITER } from './wire';

/** What to run: an executable and its arguments (no shell), with extra environment variables. */
export interface ScorerCommand {
  command: string;
  args: string[];
  /** Added to the inherited environment. */
  env?: Record<string, string>;
  cwd?: string;
}

export type ScorerErrorKind = 'spawn' | 'crashed' | 'timeout' | 'protocol' | 'scorer' | 'cancelled';

/** A scorer failure, with what kind it is, the JSON-RPC error code when the scorer sent one, and the end of its stderr. */
export class ScorerError extends Error {
  constructor(
    readonly kind: ScorerErrorKind,
    message: string,
    readonly code: number | null = null,
    readonly data: unknown = null,
    readonly stderrTail = '',
  ) {
    super(message);
    this.name = 'ScorerError';
  }
}

/** Options of `ScorerClient.start`. */
export interface StartOptions {
  /** `initialize.params.options` (scorer-specific settings). */
  options?: Record<string, unknown>;
  client: { name: string; version: string };
  /** Milliseconds to wait for the process to answer `initialize` (model loading included). */
  initTimeoutMs: number;
  /** Receives the scorer's stderr lines and the client's own notes. */
  log?: (line: string) => void;
  /** How requests are encoded: 'ascii' (default; ./wire.ts) or 'utf8' (vscode-jsonrpc's plain JSON, kept for bench/scorer.bench.ts's comparison). */
  wire?: 'ascii' | 'utf8';
  /** Largest message accepted from the scorer, in bytes (default 32 MiB, ./reader.ts): a bigger reply is a `protocol` error and is never read. */
  maxReplyBytes?: number;
}

/** Options of one `score` request. */
export interface ScoreOptions {
  /** Milliseconds to wait for the whole answer. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Rollouts finished early (`$/progress`), already validated; `done`/`total` count steps. */
  onProgress?: (p: { done: number; total: number; rollouts: RolloutScores[] }) => void;
}

/** Error codes vscode-jsonrpc raises itself for transport failures (MessageWriteError … ConnectionInactive), never sent by a scorer. */
const TRANSPORT_ERROR_CODES = new Set([-32099, -32098, -32097, -32096]);

const STDERR_TAIL = 4000;
const STDOUT_TAIL = 300;

/** One running scorer process. Create with `ScorerClient.start`. */
export class ScorerClient {
  private readonly conn: MessageConnection;
  private reader: GuardedMessageReader | null = null;
  private stderrTail = '';
  private stdoutTail = '';
  private exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private broken: ScorerError | null = null;
  private readonly failListeners = new Set<(e: ScorerError) => void>();
  private readonly progress = new Map<string, (p: unknown) => void>();
  private nextToken = 1;
  private stderrBuf = '';
  /** Result of `initialize`, set once `start` resolves. */
  info!: InitializeResult;

  private constructor(
    private readonly child: ChildProcess,
    readonly command: ScorerCommand,
    private readonly log: (line: string) => void,
    wire: 'ascii' | 'utf8' = 'ascii',
    maxReplyBytes?: number,
  ) {
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (d: string) => {
      this.stderrTail = (this.stderrTail + d).slice(-STDERR_TAIL);
      this.stderrBuf += d;
      const lines = this.stderrBuf.split(/\r?\n/);
      this.stderrBuf = lines.pop() ?? '';
      // A progress bar that only ever writes \r (tqdm) never ends its line: log it in pieces.
      if (this.stderrBuf.length > 64 * 1024) {
        lines.push(this.stderrBuf.slice(-2000));
        this.stderrBuf = '';
      }
      for (const l of lines) if (l) this.log(`[scorer] ${l}`);
    });
    child.stdout!.on('data', (d: Buffer) => {
      this.stdoutTail = (this.stdoutTail + d.toString('utf8')).slice(-STDOUT_TAIL);
    });
    child.stdin!.on('error', () => {}); // EPIPE after the process died: reported by 'exit'.
    const reader = new GuardedMessageReader(child.stdout!, {
      maxMessageBytes: maxReplyBytes,
      onProblem: (reason) => {
        this.fail(new ScorerError('protocol', reason, null, null, this.stderrTail));
        this.kill();
      },
    });
    this.reader = reader;
    this.conn = createMessageConnection(reader, new StreamMessageWriter(child.stdin!, wire === 'ascii' ? ASCII_JSON_WRITER : 'utf-8'));
    this.conn.onError(([error]) => {
      // A write error (EPIPE) or a message cut short also comes here when the process died: give
      // its exit a moment to be seen, so a crash is reported as a crash.
      const tail = this.stdoutTail;
      setTimeout(() => {
        if (this.exited || this.broken) return;
        this.fail(
          new ScorerError('protocol', `the scorer wrote something on stdout that is not a protocol message (${error.message.replace(/\s+/g, ' ').slice(0, 240)}); last bytes: ${JSON.stringify(tail.slice(-120))}. Logs belong on stderr.`, null, null, this.stderrTail),
        );
        this.kill();
      }, 150);
    });
    this.conn.onNotification(Methods.progress, (params: unknown) => {
      const token = (params as { token?: unknown } | null)?.token;
      const fn = typeof token === 'string' || typeof token === 'number' ? this.progress.get(String(token)) : undefined;
      if (fn) fn(params);
      else this.log(`[client] $/progress for an unknown token ${JSON.stringify(token)} ignored`);
    });
    this.conn.onUnhandledNotification((n) => this.log(`[client] notification ${n.method} ignored`));
    child.on('exit', (code, signal) => {
      this.exited = { code, signal };
      // Let the last bytes on stdout (an answer written just before exiting) be read first.
      const report = (): void => {
        this.fail(new ScorerError('crashed', `the scorer exited (${signal ? `signal ${signal}` : `exit code ${code}`})${this.tailNote()}`, null, null, this.stderrTail));
        this.conn.dispose();
        this.stopReader();
        // A child of the scorer that inherited its stdout/stderr keeps the pipes open after the
        // scorer itself exited: close our ends, or they keep the CLI (and its event loop) alive forever.
        for (const s of [child.stdout, child.stderr, child.stdin]) s?.destroy();
      };
      if (child.stdout!.readableEnded) setImmediate(report);
      else {
        const t = setTimeout(report, 200);
        child.stdout!.once('end', () => {
          clearTimeout(t);
          setImmediate(report);
        });
      }
    });
    child.on('error', (e) => {
      this.fail(new ScorerError('spawn', `cannot run ${command.command}: ${e.message}`));
    });
    this.conn.listen();
  }

  private stopReader(): void {
    const r = this.reader;
    this.reader = null;
    if (r) stopMessageReader(r);
  }

  private tailNote(): string {
    const t = this.stderrTail.trim().split('\n').slice(-3).join(' | ');
    return t ? `; its last stderr: ${t.slice(-400)}` : '';
  }

  /** Spawns the scorer and runs `initialize`; rejects with a ScorerError (and kills the process) on any failure. */
  static async start(command: ScorerCommand, opts: StartOptions): Promise<ScorerClient> {
    const log = opts.log ?? (() => {});
    let child: ChildProcess;
    try {
      child = spawn(command.command, command.args, {
        cwd: command.cwd,
        env: { ...process.env, ...command.env },
        stdio: ['pipe', 'pipe', 'pipe'],
        windowsHide: true,
      });
    } catch (e) {
      throw new ScorerError('spawn', `cannot run ${command.command}: ${(e as Error).message}`);
    }
    const client = new ScorerClient(child, command, log, opts.wire, opts.maxReplyBytes);
    try {
      const raw = await client.request(Methods.initialize, { protocolVersion: PROTOCOL_VERSION, client: opts.client, ...(opts.options ? { options: opts.options } : {}) }, opts.initTimeoutMs, undefined, 'initialize');
      client.info = client.validate(InitializeResult, raw, 'initialize result');
      log(`[client] scorer ${client.info.scorer.name} ${client.info.scorer.version} ready (model ${client.info.model ?? '—'}, device ${client.info.device ?? '—'})`);
      return client;
    } catch (e) {
      client.kill();
      throw e;
    }
  }

  /** True while the process runs and its stream is in step. */
  get alive(): boolean {
    return !this.exited && !this.broken;
  }

  /** Process id (for tests and logs). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Called once when the client becomes unusable (exit, stream error). */
  onFail(fn: (e: ScorerError) => void): () => void {
    this.failListeners.add(fn);
    return () => this.failListeners.delete(fn);
  }

  private fail(e: ScorerError): void {
    if (this.broken) return;
    this.broken = e;
    for (const fn of [...this.failListeners]) fn(e);
  }

  private validate<T extends z.ZodType>(schema: T, raw: unknown, what: string): z.infer<T> {
    const r = schema.safeParse(raw);
    if (!r.success) {
      throw new ScorerError('protocol', `malformed ${what} from the scorer: ${formatZodIssues(r.error).join('; ')}`, null, null, this.stderrTail);
    }
    return r.data;
  }

  /**
   * Sends one request and waits for its answer, the process failing, the timeout or the signal,
   * whichever comes first. JSON-RPC errors become `scorer` errors (or `cancelled` for -32800).
   */
  private request(method: string, params: unknown, timeoutMs: number, signal: AbortSignal | undefined, what: string, extraFail?: (reject: (e: ScorerError) => void) => void): Promise<unknown> {
    if (this.broken) return Promise.reject(this.broken);
    const cts = new CancellationTokenSource();
    return new Promise<unknown>((resolve, reject) => {
      let done = false;
      const finish = (fn: () => void): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        unsubFail();
        signal?.removeEventListener('abort', onAbort);
        fn();
      };
      const timer = setTimeout(() => {
        cts.cancel(); // sends $/cancelRequest
        finish(() => reject(new ScorerError('timeout', `the scorer did not answer ${what} within ${Math.round(timeoutMs / 1000)} s`, null, null, this.stderrTail)));
      }, timeoutMs);
      const unsubFail = this.onFail((e) => finish(() => reject(e)));
      const onAbort = (): void => {
        cts.cancel();
        finish(() => reject(new ScorerError('cancelled', `${what} cancelled`)));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort);
      extraFail?.((e) => {
        cts.cancel();
        finish(() => reject(e));
      });
      let sent: Promise<unknown>;
      try {
        sent = this.conn.sendRequest(method, params, cts.token);
      } catch (e) {
        sent = Promise.reject(e);
      }
      sent.then(
        (v) => finish(() => resolve(v)),
        (e: unknown) => {
          if (e instanceof ResponseError && TRANSPORT_ERROR_CODES.has(e.code)) {
            // vscode-jsonrpc's own transport errors (write EPIPE…): the process is going; report
            // its exit (through onFail above) rather than this.
            setTimeout(() => finish(() => reject(this.broken ?? new ScorerError('crashed', `${what} could not be sent to the scorer: ${e.message}`, null, null, this.stderrTail))), 500);
            return;
          }
          finish(() => {
            if (e instanceof ResponseError) {
              if (e.code === ErrorCodes.RequestCancelled) reject(new ScorerError('cancelled', `the scorer cancelled ${what}`, e.code, e.data));
              else reject(this.responseError(e, what));
            } else {
              reject(this.broken ?? new ScorerError('crashed', `${what} failed: ${(e as Error)?.message ?? String(e)}`, null, null, this.stderrTail));
            }
          });
        },
      );
    });
  }

  private responseError(e: ResponseError<unknown>, what: string): ScorerError {
    const name = errorCodeName(e.code);
    const dataSchema = (ErrorData as Record<number, z.ZodType | undefined>)[e.code];
    let detail = '';
    if (dataSchema && e.data !== undefined && e.data !== null) {
      const d = dataSchema.safeParse(e.data);
      detail = d.success ? ` ${JSON.stringify(d.data)}` : ` (its data is malformed: ${formatZodIssues(d.error).join('; ')})`;
    }
    return new ScorerError('scorer', `the scorer answered ${what} with ${name}: ${e.message}${detail}`, e.code, e.data ?? null, this.stderrTail);
  }

  /**
   * Scores a batch. Resolves with exactly one validated entry per input rollout, in input order;
   * rejects with a ScorerError otherwise (a malformed or inconsistent reply is a `protocol` error:
   * nothing of it is returned). Partial results arrive through `onProgress`, each rollout
   * validated the same way before it is passed on.
   */
  async score(rollouts: ScoreRollout[], opts: ScoreOptions): Promise<RolloutScores[]> {
    const range = this.info.scoreRange;
    const token = this.info.capabilities.progress && opts.onProgress ? `score-${this.nextToken++}` : undefined;
    let progressFail: ((e: ScorerError) => void) | null = null;
    const partialSeen = new Set<string>();
    if (token) {
      this.progress.set(token, (raw) => {
        const p = ProgressParams.safeParse(raw);
        const problems = p.success ? checkRolloutScores(rollouts, p.data.value.rollouts ?? [], range, true) : formatZodIssues(p.error);
        if (p.success) for (const r of p.data.value.rollouts ?? []) if (partialSeen.has(r.id)) problems.push(`rollout ${JSON.stringify(r.id)} sent twice in $/progress`);
        if (problems.length) {
          progressFail?.(new ScorerError('protocol', `malformed $/progress from the scorer: ${problems.slice(0, 5).join('; ')}`, null, null, this.stderrTail));
          return;
        }
        const v = p.data!.value;
        for (const r of v.rollouts ?? []) partialSeen.add(r.id);
        opts.onProgress?.({ done: v.done, total: v.total, rollouts: v.rollouts ?? [] });
      });
    }
    try {
      const raw = await this.request(Methods.score, { rollouts, ...(token ? { partialResultToken: token } : {}) }, opts.timeoutMs, opts.signal, 'score', (rej) => {
        progressFail = rej;
      });
      // A second reply to this request read in the same chunk is found by the reader before this
      // runs on: let it be seen, so a scorer that answers twice never has its first answer used.
      await new Promise<void>((res) => setImmediate(res));
      if (this.broken?.kind === 'protocol') throw this.broken;
      const result = this.validate(ScoreResult, raw, 'score result');
      const problems = checkRolloutScores(rollouts, result.rollouts, range);
      if (problems.length) throw new ScorerError('protocol', `wrong score result from the scorer: ${problems.slice(0, 5).join('; ')}`, null, null, this.stderrTail);
      const byId = new Map(result.rollouts.map((r) => [r.id, r]));
      return rollouts.map((r) => byId.get(r.id)!);
    } finally {
      if (token) this.progress.delete(token);
    }
  }

  /** `shutdown` then `exit`; kills the process if it has not exited after `graceMs`. */
  async shutdown(graceMs = 2000): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((res) => this.child.once('exit', () => res()));
    try {
      if (!this.broken) {
        await this.request(Methods.shutdown, null, graceMs, undefined, 'shutdown');
        await this.conn.sendNotification(Methods.exit);
      }
    } catch {
      // fall through to the kill below
    }
    const timer = setTimeout(() => this.kill(), graceMs);
    await Promise.race([exited, new Promise<void>((res) => setTimeout(res, graceMs + 500))]);
    clearTimeout(timer);
  }

  /** Kills the process (SIGKILL); idempotent. */
  kill(): void {
    if (this.exited) return;
    try {
      this.child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }

  /** Resolves when the process has exited (immediately if it has). */
  whenExited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.exited) return Promise.resolve(this.exited);
    return new Promise((res) => this.child.once('exit', (code, signal) => res({ code, signal })));
  }

  /** Resolves once the client has become unusable (after the `onFail` listeners ran). */
  whenFailed(): Promise<ScorerError> {
    if (this.broken) return Promise.resolve(this.broken);
    return new Promise((res) => {
      const off = this.onFail((e) => {
        off();
        setImmediate(() => res(e));
      });
    });
  }

  /** The last few KB the scorer wrote on stderr. */
  get stderr(): string {
    return this.stderrTail;
  }
}

/**
 * Stops a vscode-jsonrpc StreamMessageReader for good. The reader re-arms a 10 s "partial message"
 * timer while a message is cut short (a scorer that died mid-message) and its dispose does not
 * clear it: that timer alone kept the CLI alive forever and held the partial buffer.
 */
export function stopMessageReader(reader: StreamMessageReader): void {
  const r = reader as unknown as { partialMessageTimeout: number; clearPartialMessageTimer?: () => void; dispose(): void };
  r.partialMessageTimeout = 0;
  r.clearPartialMessageTimer?.();
  r.dispose();
}
