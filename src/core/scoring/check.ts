/**
 * Scorer conformance kit (`trajectory-inspector scorer-check -- <command…>`): runs a scorer through
 * protocol v1 (docs/scorer-protocol.md) and reports every way it departs from it. Uses a raw
 * `vscode-jsonrpc` connection (not ScorerClient) so it can send what a well-behaved client never
 * would. Checks, in order:
 *
 *  1. `score` before `initialize` → error -32002 ServerNotInitialized
 *  2. `initialize` → a result of the right shape (protocol version 1, scoreRange low < high, …)
 *  3. an unknown method → error -32601 MethodNotFound
 *  4. `score` with malformed params → error -32602 InvalidParams
 *  5. `score` of an empty batch → `{ "rollouts": [] }`
 *  6. `score` of sample rollouts (every role and action kind, null outputs, exit codes) → one entry
 *     per rollout and step, values null or finite inside scoreRange; `$/progress` (when declared)
 *     of the right shape
 *  7. `$/cancelRequest` of a large batch → error -32800 within the time limit (a full result is a
 *     warning: it may have finished before the cancel arrived); skipped with a warning when
 *     capabilities.cancel is false
 *  8. nothing but protocol messages on stdout, all along; one reply per request (a second reply to
 *     one request fails), no message over the size cap (./reader.ts)
 *  9. `shutdown` → null, then `exit` → the process exits with code 0
 *
 * Never imports `vscode`.
 */
import { spawn } from 'node:child_process';
import { CancellationTokenSource, createMessageConnection, ResponseError, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { stopMessageReader, type ScorerCommand } from './client';
import { GuardedMessageReader } from './reader';
import { checkRolloutScores, ErrorCodes, errorCodeName, formatZodIssues, InitializeResult, Methods, PROTOCOL_VERSION, ProgressParams, ScoreResult, type ScoreRollout } from './protocol';

/** One check's outcome. `warning` = passed with a remark. */
export interface CheckResult {
  name: string;
  ok: boolean;
  warning?: boolean;
  detail: string;
}

/** The whole report: passed = every check ok. */
export interface CheckReport {
  command: string[];
  scorer: { name: string; version: string; model: string | null; device: string | null } | null;
  checks: CheckResult[];
  passed: boolean;
}

/** Options of `checkScorer`. Times in milliseconds. */
export interface CheckOptions {
  /** `initialize` options passed to the scorer. */
  options?: Record<string, unknown>;
  /** Time for `initialize` (model loading). Default 120 000. */
  initTimeoutMs?: number;
  /** Time for every other answer. Default 60 000. */
  timeoutMs?: number;
  log?: (line: string) => void;
}

/** The sample batch of check 6: small rollouts covering every role, action kind and null field. */
export function sampleRollouts(): ScoreRollout[] {
  const task = { id: 'scorer-check', instruction: 'Make the failing test pass.' };
  return [
    {
      id: 'check-1',
      task,
      steps: [
        { index: 0, role: 'system', message: 'You are a careful engineer.', reasoning: null, actions: [], observations: [], durationMs: null },
        { index: 1, role: 'user', message: 'Make the failing test pass.', reasoning: null, actions: [], observations: [], durationMs: null },
        { index: 2, role: 'agent', message: 'Run the tests first.', reasoning: 'See what fails.', actions: [{ kind: 'shell', command: 'pytest -q', tool: null, arguments: null }], observations: [{ output: '1 failed, 2 passed in 0.05s', exitCode: 1, truncated: false }], durationMs: 812 },
        { index: 3, role: 'agent', message: null, reasoning: null, actions: [{ kind: 'edit', command: null, tool: 'str_replace_editor', arguments: '{"path":"calc.py","old_str":"a - b","new_str":"a + b"}' }], observations: [{ output: 'The file calc.py has been edited.', exitCode: null, truncated: false }], durationMs: null },
        { index: 4, role: 'environment', message: 'Note: 1 file changed.', reasoning: null, actions: [], observations: [{ output: null, exitCode: null, truncated: false }], durationMs: null },
        { index: 5, role: 'agent', message: null, reasoning: null, actions: [{ kind: 'shell', command: 'pytest -q', tool: null, arguments: null }], observations: [{ output: '3 passed in 0.04s', exitCode: 0, truncated: false }], durationMs: 640 },
        { index: 6, role: 'agent', message: 'Done.', reasoning: null, actions: [{ kind: 'finish', command: null, tool: 'submit', arguments: null }], observations: [], durationMs: null },
      ],
    },
    {
      id: 'check-2 ünïcødé "quoted"',
      task: { id: null, instruction: null },
      steps: [
        { index: 0, role: 'agent', message: null, reasoning: null, actions: [{ kind: 'keys', command: 'ls -la\n', tool: null, arguments: null }], observations: [{ output: 'total 0\n', exitCode: null, truncated: true }], durationMs: null },
        { index: 1, role: 'agent', message: null, reasoning: null, actions: [{ kind: 'tool', command: null, tool: 'web_search', arguments: '{"q":"x"}' }, { kind: 'other', command: null, tool: null, arguments: null }], observations: [], durationMs: null },
      ],
    },
    { id: 'check-3-empty', task: { id: 't3', instruction: 'nothing' }, steps: [] },
  ];
}

function bigBatch(maxRollouts: number, maxSteps: number): ScoreRollout[] {
  const rollouts = Math.max(1, Math.min(maxRollouts, 64));
  const per = Math.max(1, Math.min(200, Math.floor(Math.min(maxSteps, 12_800) / rollouts)));
  return Array.from({ length: rollouts }, (_, r) => ({
    id: `cancel-${r}`,
    task: { id: 'cancel', instruction: 'a long batch to cancel' },
    steps: Array.from({ length: per }, (_, i) => ({
      index: i,
      role: 'agent' as const,
      message: `step ${i}`,
      reasoning: null,
      actions: [{ kind: 'shell' as const, command: `echo ${r}-${i}`, tool: null, arguments: null }],
      observations: [{ output: `${r}-${i}\n`.repeat(20), exitCode: 0, truncated: false }],
      durationMs: null,
    })),
  }));
}

type Answer = { ok: true; result: unknown } | { ok: false; code: number; message: string; data: unknown } | { ok: false; code: null; message: string; data: unknown };

/** Runs the conformance checks against `command`. Never throws for scorer faults: they become failed checks. */
export async function checkScorer(command: ScorerCommand, opts: CheckOptions = {}): Promise<CheckReport> {
  const initTimeoutMs = opts.initTimeoutMs ?? 120_000;
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const log = opts.log ?? (() => {});
  const checks: CheckResult[] = [];
  const report: CheckReport = { command: [command.command, ...command.args], scorer: null, checks, passed: false };
  const pass = (name: string, detail: string, warning = false): void => void checks.push({ name, ok: true, detail, ...(warning ? { warning } : {}) });
  const fail = (name: string, detail: string): void => void checks.push({ name, ok: false, detail });

  const child = spawn(command.command, command.args, { cwd: command.cwd, env: { ...process.env, ...command.env }, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
  let spawnError: Error | null = null;
  let exited: { code: number | null; signal: string | null } | null = null;
  const exitWaiters: (() => void)[] = [];
  child.on('error', (e) => {
    spawnError = e;
    exitWaiters.splice(0).forEach((f) => f());
  });
  child.on('exit', (code, signal) => {
    exited = { code, signal };
    exitWaiters.splice(0).forEach((f) => f());
  });
  child.stdin.on('error', () => {});
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => {
    stderr = (stderr + d).slice(-4000);
    for (const l of d.split(/\r?\n/)) if (l) log(`[scorer] ${l}`);
  });
  let stdoutTail = '';
  child.stdout.on('data', (d: Buffer) => (stdoutTail = (stdoutTail + d.toString('utf8')).slice(-200)));
  const streamErrors: string[] = [];
  const guardProblems: string[] = [];
  const brokenWaiters: (() => void)[] = [];
  const reader = new GuardedMessageReader(child.stdout, {
    onProblem: (reason) => {
      guardProblems.push(reason);
      // A message over the cap is never read: what was asked is not answered; say why.
      if (/over the limit/.test(reason)) {
        streamErrors.push(reason);
        brokenWaiters.splice(0).forEach((f) => f());
      }
    },
  });
  const conn = createMessageConnection(reader, new StreamMessageWriter(child.stdin));
  conn.onError(([e]) => {
    streamErrors.push(`${e.message.split('\n')[0]}; last bytes ${JSON.stringify(stdoutTail.slice(-160))}`);
    brokenWaiters.splice(0).forEach((f) => f());
  });
  const progress: unknown[] = [];
  conn.onNotification(Methods.progress, (p: unknown) => void progress.push(p));
  conn.listen();

  const waitExit = (ms: number): Promise<boolean> =>
    exited ? Promise.resolve(true) : new Promise((res) => {
      const t = setTimeout(() => res(false), ms);
      exitWaiters.push(() => {
        clearTimeout(t);
        res(true);
      });
    });

  const ask = async (method: string, params: unknown, ms: number, cts?: CancellationTokenSource): Promise<Answer> => {
    if (exited || spawnError) return { ok: false, code: null, message: spawnError ? `cannot run: ${(spawnError as Error).message}` : `the scorer has exited (${JSON.stringify(exited)})`, data: null };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<Answer>((res) => (timer = setTimeout(() => res({ ok: false, code: null, message: `no answer within ${ms / 1000} s`, data: null }), ms)));
    const died = new Promise<Answer>((res) => exitWaiters.push(() => setTimeout(() => res({ ok: false, code: null, message: `the scorer exited (${exited?.signal ? `signal ${exited.signal}` : `exit code ${exited?.code}`}) before answering`, data: null }), 200)));
    // Never pass an undefined token: vscode-jsonrpc would send [params, null] as positional params.
    const tok = (cts ?? new CancellationTokenSource()).token;
    let sent: Promise<unknown>;
    try {
      sent = params === undefined ? conn.sendRequest(method, tok) : conn.sendRequest(method, params, tok);
    } catch (e) {
      sent = Promise.reject(e);
    }
    const answer = sent.then(
      (result): Answer => ({ ok: true, result }),
      (e: unknown): Answer => (e instanceof ResponseError ? { ok: false, code: e.code, message: e.message, data: e.data } : { ok: false, code: null, message: String((e as Error)?.message ?? e), data: null }),
    );
    const broken = new Promise<Answer>((res) => brokenWaiters.push(() => res({ ok: false, code: null, message: `no answer: the stream from the scorer is broken (${streamErrors[0]})`, data: null })));
    if (streamErrors.length) brokenWaiters.splice(0).forEach((f) => f());
    const a = await Promise.race([answer, timeout, died, broken]);
    clearTimeout(timer);
    return a;
  };
  const expectError = (name: string, a: Answer, code: number): void => {
    if (a.ok) fail(name, `expected error ${code} ${errorCodeName(code)}, got a result: ${JSON.stringify(a.result)?.slice(0, 200)}`);
    else if (a.code === code) pass(name, `error ${code} ${errorCodeName(code)}`);
    else if (a.code === null) fail(name, a.message);
    else fail(name, `expected error ${code} ${errorCodeName(code)}, got ${a.code} ${errorCodeName(a.code)}: ${a.message}`);
  };

  try {
    // 1
    const early = await ask(Methods.score, { rollouts: [] }, Math.min(timeoutMs, initTimeoutMs));
    if (spawnError) {
      fail('start', `cannot run ${command.command}: ${(spawnError as Error).message}`);
      return report;
    }
    expectError('score before initialize', early, ErrorCodes.ServerNotInitialized);

    // 2
    const init = await ask(Methods.initialize, { protocolVersion: PROTOCOL_VERSION, client: { name: 'trajectory-inspector scorer-check', version: '1' }, ...(opts.options ? { options: opts.options } : {}) }, initTimeoutMs);
    if (!init.ok) {
      fail('initialize', init.code !== null ? `error ${init.code} ${errorCodeName(init.code)}: ${init.message}${init.data ? ` ${JSON.stringify(init.data)}` : ''}` : init.message);
      return report;
    }
    const info = InitializeResult.safeParse(init.result);
    if (!info.success) {
      fail('initialize', `malformed result: ${formatZodIssues(info.error).join('; ')}`);
      return report;
    }
    const inf = info.data;
    report.scorer = { name: inf.scorer.name, version: inf.scorer.version, model: inf.model, device: inf.device };
    pass('initialize', `${inf.scorer.name} ${inf.scorer.version}, model ${inf.model ?? 'none'}, device ${inf.device ?? 'unknown'}, range [${inf.scoreRange.join(', ')}], batch ≤ ${inf.maxBatchRollouts} rollouts / ${inf.maxBatchSteps} steps`);

    // 3
    expectError('unknown method', await ask('trajectoryInspector/noSuchMethod', { x: 1 }, timeoutMs), ErrorCodes.MethodNotFound);
    // 4
    const bad = await ask(Methods.score, { rollouts: 'not an array' }, timeoutMs);
    expectError('malformed score params', bad, ErrorCodes.InvalidParams);
    const bad2 = await ask(Methods.score, { rollouts: [{ id: 'x', steps: [{ index: -1 }] }] }, timeoutMs);
    expectError('malformed rollout in score', bad2, ErrorCodes.InvalidParams);

    // 5
    const empty = await ask(Methods.score, { rollouts: [] }, timeoutMs);
    if (!empty.ok) fail('empty batch', empty.code !== null ? `error ${empty.code}: ${empty.message}` : empty.message);
    else {
      const r = ScoreResult.safeParse(empty.result);
      if (r.success && r.data.rollouts.length === 0) pass('empty batch', '{"rollouts": []}');
      else fail('empty batch', `expected {"rollouts": []}, got ${JSON.stringify(empty.result)?.slice(0, 200)}`);
    }

    // 6
    const rollouts = sampleRollouts();
    progress.length = 0;
    const token = 'check-progress';
    const scored = await ask(Methods.score, { rollouts, ...(inf.capabilities.progress ? { partialResultToken: token } : {}) }, timeoutMs);
    if (!scored.ok) fail('score', scored.code !== null ? `error ${scored.code} ${errorCodeName(scored.code)}: ${scored.message}` : scored.message);
    else {
      const r = ScoreResult.safeParse(scored.result);
      if (!r.success) fail('score', `malformed result: ${formatZodIssues(r.error).join('; ')}`);
      else {
        const problems = checkRolloutScores(rollouts, r.data.rollouts, inf.scoreRange);
        if (problems.length) fail('score', problems.slice(0, 6).join('; '));
        else {
          const values = r.data.rollouts.flatMap((x) => x.steps.map((s) => s.value)).filter((v) => v !== null);
          const explained = r.data.rollouts.flatMap((x) => x.steps).filter((s) => s.explanation).length;
          pass('score', `${r.data.rollouts.length} rollouts, ${values.length} steps scored${explained ? `, ${explained} explained` : ''}${!inf.capabilities.explanations && explained ? ' (explanations sent though capabilities.explanations is false)' : ''}`);
        }
      }
      if (inf.capabilities.progress) {
        const bad = progress.map((p) => ProgressParams.safeParse(p)).filter((p) => !p.success);
        const wrong = progress.map((p) => ProgressParams.safeParse(p)).filter((p) => p.success && (p.data.token !== token || checkRolloutScores(rollouts, p.data.value.rollouts ?? [], inf.scoreRange, true).length > 0));
        if (bad.length) fail('progress', `malformed $/progress: ${formatZodIssues(bad[0].error!).join('; ')}`);
        else if (wrong.length) fail('progress', `a $/progress with the wrong token or wrong partial scores: ${JSON.stringify(progress[0]).slice(0, 200)}`);
        else pass('progress', progress.length ? `${progress.length} $/progress notification(s), well formed` : 'no $/progress sent (allowed)', progress.length === 0);
      }
    }

    // 7
    if (!inf.capabilities.cancel) pass('cancel', 'skipped: capabilities.cancel is false', true);
    else {
      const cts = new CancellationTokenSource();
      const big = bigBatch(inf.maxBatchRollouts, inf.maxBatchSteps);
      const pending = ask(Methods.score, { rollouts: big }, timeoutMs, cts);
      setTimeout(() => cts.cancel(), 5);
      const a = await pending;
      if (!a.ok && a.code === ErrorCodes.RequestCancelled) pass('cancel', 'error -32800 RequestCancelled');
      else if (a.ok) {
        const r = ScoreResult.safeParse(a.result);
        const problems = r.success ? checkRolloutScores(big, r.data.rollouts, inf.scoreRange) : formatZodIssues(r.error);
        if (problems.length) fail('cancel', `answered the cancelled request with a wrong result: ${problems[0]}`);
        else pass('cancel', `the batch (${big.length} rollouts) finished before the cancel arrived: a full result instead of -32800`, true);
      } else fail('cancel', a.code !== null ? `expected error -32800 RequestCancelled, got ${a.code} ${errorCodeName(a.code)}: ${a.message}` : a.message);
    }

    // 8
    if (streamErrors.length && !guardProblems.length) fail('stdout', `wrote something that is not a protocol message on stdout: ${streamErrors[0]}. Logs belong on stderr.`);
    else pass('stdout', guardProblems.length ? 'protocol messages (see the next check)' : 'only protocol messages');
    const dup = guardProblems.filter((g) => /twice/.test(g));
    const big = guardProblems.filter((g) => /over the limit/.test(g));
    if (dup.length) fail('one reply per request', `${dup[0]}${dup.length > 1 ? ` (${dup.length} times)` : ''}`);
    else pass('one reply per request', 'every request answered once');
    if (big.length) fail('reply size', big[0]);
    else pass('reply size', 'every message under the cap');

    // 9
    const down = await ask(Methods.shutdown, undefined, timeoutMs);
    if (!down.ok) fail('shutdown', down.code !== null ? `error ${down.code}: ${down.message}` : down.message);
    else if (down.result !== null) fail('shutdown', `expected null, got ${JSON.stringify(down.result)?.slice(0, 100)}`);
    else pass('shutdown', 'null');
    try {
      await conn.sendNotification(Methods.exit);
    } catch {
      // the connection is closed: the exit check below says how the process ended
    }
    const gone = await waitExit(5000);
    if (!gone) fail('exit', 'still running 5 s after exit');
    else if ((exited as { code: number | null } | null)?.code !== 0) fail('exit', `exited with ${JSON.stringify(exited)}, expected code 0`);
    else pass('exit', 'exit code 0');
  } finally {
    conn.dispose();
    stopMessageReader(reader);
    if (!exited) child.kill('SIGKILL');
    // A child of the scorer may hold its stdout/stderr open after the scorer exited: close our ends.
    for (const s of [child.stdout, child.stderr, child.stdin]) s.destroy();
    report.passed = checks.length > 0 && checks.every((c) => c.ok);
    if (!report.passed && stderr.trim()) log(`scorer stderr (last lines):\n${stderr.trim().split('\n').slice(-10).join('\n')}`);
  }
  return report;
}
