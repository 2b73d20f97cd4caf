/**
 * The built-in scorer process (bundled to dist/scorers/builtin.js): speaks scorer protocol v1
 * (docs/scorer-protocol.md) on stdin/stdout with `vscode-jsonrpc`, logs on stderr, and scores with
 * the rules of ./rules.ts on the CPU. It is the default scorer of the extension and the CLI.
 *
 * Scoring yields to the event loop between rollouts, so a `$/cancelRequest` stops a long batch
 * (answered with -32800), and sends one `$/progress` per chunk of finished rollouts when the request
 * carries a `partialResultToken`.
 */
import { createMessageConnection, ResponseError, StreamMessageReader, StreamMessageWriter, type CancellationToken } from 'vscode-jsonrpc/node';
import { ErrorCodes, formatZodIssues, InitializeParams, Methods, PROTOCOL_VERSION, ScoreParams, type InitializeResult, type RolloutScores } from '../../core/scoring/protocol';
import { ASCII_JSON_WRITER } from '../../core/scoring/wire';
import { RULES_VERSION, scoreRollout } from './rules';

/** Batch limits the built-in scorer declares. */
export const BUILTIN_LIMITS = { maxBatchRollouts: 256, maxBatchSteps: 50_000 } as const;

function log(line: string): void {
  process.stderr.write(`[builtin] ${line}\n`);
}

const conn = createMessageConnection(new StreamMessageReader(process.stdin), new StreamMessageWriter(process.stdout, ASCII_JSON_WRITER));
let initialized = false;
let shutdownRequested = false;

const notInitialized = (): ResponseError<void> => new ResponseError(ErrorCodes.ServerNotInitialized, 'initialize first');
const invalid = (issues: string[]): ResponseError<{ issues: string[] }> => new ResponseError(ErrorCodes.InvalidParams, `invalid params: ${issues[0] ?? ''}`, { issues });

conn.onRequest(Methods.initialize, (params: unknown): InitializeResult | ResponseError<unknown> => {
  const p = InitializeParams.safeParse(params);
  if (!p.success) return invalid(formatZodIssues(p.error, 20));
  initialized = true;
  log(`initialize from ${p.data.client.name} ${p.data.client.version}`);
  return {
    protocolVersion: PROTOCOL_VERSION,
    scorer: { name: 'builtin', version: RULES_VERSION },
    model: null,
    device: 'cpu',
    scoreRange: [0, 1],
    ...BUILTIN_LIMITS,
    capabilities: { progress: true, cancel: true, explanations: true, labels: true },
  };
});

const yieldNow = (): Promise<void> => new Promise((res) => setImmediate(res));

conn.onRequest(Methods.score, async (params: unknown, token: CancellationToken): Promise<{ rollouts: RolloutScores[] } | ResponseError<unknown>> => {
  if (!initialized) return notInitialized();
  const p = ScoreParams.safeParse(params);
  if (!p.success) return invalid(formatZodIssues(p.error, 20));
  const { rollouts, partialResultToken } = p.data;
  const total = rollouts.reduce((n, r) => n + r.steps.length, 0);
  const out: RolloutScores[] = [];
  let done = 0;
  let pending: RolloutScores[] = [];
  let sinceYield = 0;
  for (const r of rollouts) {
    if (token.isCancellationRequested) return new ResponseError(ErrorCodes.RequestCancelled, 'cancelled');
    const scored = { id: r.id, steps: scoreRollout(r) };
    out.push(scored);
    done += r.steps.length;
    sinceYield += r.steps.length;
    if (partialResultToken !== undefined) pending.push(scored);
    // Yield (and report) every ~500 steps: cancellation is seen within a few ms.
    if (sinceYield >= 500) {
      sinceYield = 0;
      if (partialResultToken !== undefined && pending.length) {
        void conn.sendNotification(Methods.progress, { token: partialResultToken, value: { done, total, rollouts: pending } });
        pending = [];
      }
      await yieldNow();
    }
  }
  if (token.isCancellationRequested) return new ResponseError(ErrorCodes.RequestCancelled, 'cancelled');
  if (partialResultToken !== undefined && pending.length) void conn.sendNotification(Methods.progress, { token: partialResultToken, value: { done, total, rollouts: pending } });
  return { rollouts: out };
});

conn.onRequest(Methods.shutdown, () => {
  shutdownRequested = true;
  return null;
});

conn.onNotification(Methods.exit, () => {
  process.exit(shutdownRequested ? 0 : 1);
});

conn.onError(([e]) => log(`protocol error on stdin: ${e.message}`));
conn.onClose(() => process.exit(shutdownRequested ? 0 : 1));
process.stdin.on('end', () => process.exit(shutdownRequested ? 0 : 1));
conn.listen();
log(`ready (rules ${RULES_VERSION}, pid ${process.pid})`);
