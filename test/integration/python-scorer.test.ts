/**
 * The Python PRM scorer (scorers/python) as the extension runs it: a child process speaking scorer
 * protocol v1 (LSP-framed JSON-RPC on stdio), driven here with vscode-jsonrpc, on a real sample
 * rollout loaded through src/core/load.ts; and its own Python unittest suite.
 *
 * Needs Debian's python3-torch under /usr/bin/python3 (TI_PYTHON overrides the interpreter). Outside
 * CI the suite is skipped when torch is missing; with CI=true it fails with the reason.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as os from 'node:os';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as RpcNode from 'vscode-jsonrpc/lib/node/main';
import { loadFile } from '../../src/core/load';
import type { Rollout } from '../../src/core/model';
import { REPO_ROOT, sample } from '../unit/samples';
import { ScorerClient } from '../../src/core/scoring/client';

// `vscode-jsonrpc/node` is only reachable through the package's `exports` map, which this project's
// `moduleResolution: node` does not read: load it at run time, type it from the same file.
const rpc: typeof RpcNode = require('vscode-jsonrpc/node');

const PYTHON = process.env.TI_PYTHON ?? '/usr/bin/python3';
const SCORER_DIR = path.join(REPO_ROOT, 'scorers', 'python');
const LAUNCHER = path.join(SCORER_DIR, 'ti-scorer');
const SWE = 'swe-agent/6e44b9__sweagenttestrepo-1c2844.traj';

/** A model Rollout as the protocol's ScoreRollout (action kinds keystrokes→keys, file_edit→edit). */
function toScoreRollout(r: Rollout, id = r.id) {
  const kind = { shell: 'shell', keystrokes: 'keys', tool: 'tool', file_edit: 'edit', finish: 'finish' } as const;
  return {
    id,
    task: { id: r.task.id, instruction: r.task.instruction },
    steps: r.steps.map((s) => ({
      index: s.index,
      role: s.role,
      message: s.message === '' ? null : s.message,
      reasoning: s.reasoning,
      actions: s.actions.map((a) => ({
        kind: kind[a.kind],
        command: a.command,
        tool: a.tool,
        arguments: a.arguments === undefined || a.arguments === null ? null : typeof a.arguments === 'string' ? a.arguments : JSON.stringify(a.arguments),
      })),
      observations: s.observations.map((o) => ({ output: o.output, exitCode: o.exitCode, truncated: o.truncated })),
      durationMs: s.durationSec === null ? null : s.durationSec * 1000,
    })),
  };
}

interface Scorer {
  child: ChildProcessWithoutNullStreams;
  conn: RpcNode.MessageConnection;
  stderr: () => string;
  exited: Promise<number | null>;
}

function startScorer(args: string[]): Scorer {
  // cwd is a temp folder: the launcher must work from anywhere.
  const child = spawn(PYTHON, [LAUNCHER, ...args], { cwd: os.tmpdir(), stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const conn = rpc.createMessageConnection(new rpc.StreamMessageReader(child.stdout), new rpc.StreamMessageWriter(child.stdin));
  conn.listen();
  return { child, conn, stderr: () => err, exited };
}

async function rejection(p: Promise<unknown>): Promise<RpcNode.ResponseError<any>> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof rpc.ResponseError, `expected a ResponseError, got ${e}`);
    return e;
  }
  assert.fail('the request succeeded');
}

describe('Python PRM scorer (scorers/python)', function () {
  this.timeout(180_000);

  before(function () {
    const probe = spawnSync(PYTHON, ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8', timeout: 60_000 });
    if (probe.status !== 0) {
      const why = `${PYTHON} cannot import torch (${(probe.stderr || String(probe.error ?? '')).trim().split('\n').pop()}); ` +
        'install it with `apt-get install -y python3-torch` (scripts/setup-test-env.sh does)';
      if (process.env.CI === 'true') throw new Error(`CI: ${why}`);
      console.warn(`    skipping the Python scorer tests: ${why}`);
      this.skip();
    }
  });

  it('passes the conformance kit: dist/cli.js scorer-check -- python3 ti-scorer --backend toy', () => {
    const cli = path.join(REPO_ROOT, 'dist', 'cli.js');
    if (!fs.existsSync(cli)) throw new Error('dist/cli.js is missing: run npm run build first');
    const r = spawnSync(process.execPath, [cli, 'scorer-check', '--json', '--', PYTHON, LAUNCHER, '--backend', 'toy'], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const rep = JSON.parse(r.stdout);
    assert.equal(rep.passed, true);
    const failed = rep.checks.filter((c: { ok: boolean }) => !c.ok);
    assert.deepEqual(failed, []);
    assert.ok(rep.checks.length >= 12, `${rep.checks.length} checks`);
  });

  it('its Python unittest suite passes (python3 -m unittest discover -s scorers/python/tests)', () => {
    const r = spawnSync(PYTHON, ['-m', 'unittest', 'discover', '-s', 'scorers/python/tests'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 170_000 });
    assert.equal(r.status, 0, `unittest failed:\n${r.stderr.slice(-4000)}`);
    const ran = /Ran (\d+) tests?/.exec(r.stderr);
    assert.ok(ran && Number(ran[1]) >= 25, `expected the whole suite to run: ${r.stderr.slice(-500)}`);
    assert.match(r.stderr, /\nOK/);
  });

  it('speaks protocol v1 with the toy backend: initialize, score a real rollout with progress, cancel, bad params, shutdown/exit', async () => {
    const s = startScorer(['--backend', 'toy', '--batch-rollouts', '1']);
    try {
      const init: any = await s.conn.sendRequest('initialize', {
        protocolVersion: 1,
        client: { name: 'trajectory-inspector-test', version: '0.0.0' },
        options: { delayMs: 40 },
      });
      assert.equal(init.protocolVersion, 1);
      assert.match(init.scorer.name, /toy/);
      assert.equal(init.device, 'cpu');
      assert.deepEqual(init.capabilities, { progress: true, cancel: true, explanations: false, labels: false });
      const [lo, hi] = init.scoreRange as [number, number];

      const loaded = await loadFile(sample(SWE));
      const ro = loaded.rollouts[0];
      const agentSteps = ro.steps.filter((st) => st.role === 'agent').map((st) => st.index);
      assert.ok(agentSteps.length >= 3, 'the sample has agent steps');
      const progress: any[] = [];
      const token = 'p-1';
      s.conn.onProgress(new rpc.ProgressType<any>(), token, (v: any) => { progress.push(v); });
      const res: any = await s.conn.sendRequest('score', { rollouts: [toScoreRollout(ro)], partialResultToken: token });
      assert.equal(res.rollouts.length, 1);
      const out = res.rollouts[0];
      assert.equal(out.id, ro.id);
      assert.deepEqual(out.steps.map((x: any) => x.index), ro.steps.map((st) => st.index));
      for (const st of out.steps) {
        if (agentSteps.includes(st.index)) {
          assert.equal(typeof st.value, 'number', `step ${st.index} scored`);
          assert.ok(Number.isFinite(st.value) && st.value >= lo && st.value <= hi, `step ${st.index}: ${st.value} in [${lo}, ${hi}]`);
        } else {
          assert.equal(st.value, null, `non-agent step ${st.index} has no value`);
        }
      }
      assert.ok(new Set(out.steps.filter((x: any) => x.value !== null).map((x: any) => x.value)).size > 1, 'steps get different scores');
      assert.equal(progress.length, 1);
      assert.deepEqual(progress[0], { done: ro.steps.length, total: ro.steps.length, rollouts: [out] });

      // Cancel a long request (40 rollouts, one 40 ms forward each) after its first progress report.
      const many = Array.from({ length: 40 }, (_, k) => toScoreRollout(ro, `copy-${k}`));
      const cts = new rpc.CancellationTokenSource();
      const seen: any[] = [];
      s.conn.onProgress(new rpc.ProgressType<any>(), 'p-2', (v: any) => {
        seen.push(v);
        if (seen.length === 1) cts.cancel();
      });
      const err = await rejection(s.conn.sendRequest('score', { rollouts: many, partialResultToken: 'p-2' }, cts.token));
      assert.equal(err.code, -32800, err.message);
      assert.ok(seen.length >= 1 && seen.length < 40, `stopped early (${seen.length} of 40 rollouts reported)`);
      // Same scores for the same rollout afterwards (the scorer is still healthy and deterministic).
      const again: any = await s.conn.sendRequest('score', { rollouts: [toScoreRollout(ro)] });
      assert.deepEqual(again.rollouts[0], out);

      const bad = await rejection(s.conn.sendRequest('score', { rollouts: [{ id: 7, steps: [{ index: -1, role: 'robot' }] }] }));
      assert.equal(bad.code, -32602);
      const paths = bad.data.issues.map((i: any) => i.path);
      assert.ok(paths.includes('rollouts[0].id') && paths.includes('rollouts[0].steps[0].role'), JSON.stringify(paths));

      assert.equal(await s.conn.sendRequest('shutdown'), null);
      await s.conn.sendNotification('exit');
      assert.equal(await s.exited, 0, s.stderr());
    } finally {
      s.conn.dispose();
      if (s.child.exitCode === null) s.child.kill();
    }
  });

  it('reads the extension client\'s ASCII-escaped requests (src/core/scoring/wire.ts) exactly as plain UTF-8 ones: same toy scores for non-ASCII text', async () => {
    const loaded = await loadFile(sample(SWE));
    const base = toScoreRollout(loaded.rollouts[0]);
    // The toy model reads UTF-8 bytes: any change in the decoded text changes its scores.
    const ro = { ...base, task: { ...base.task, instruction: `Répare — ça échoue ✗ 😀 ${base.task.instruction ?? ''}` },
      steps: base.steps.map((st) => ({ ...st, message: `${st.message ?? ''} → “é” ✓ 😀 \u2028` })) };
    const s = startScorer(['--backend', 'toy']);
    const client = await ScorerClient.start({ command: PYTHON, args: [LAUNCHER, '--backend', 'toy'], cwd: os.tmpdir() }, { client: { name: 'test', version: '0' }, initTimeoutMs: 120_000 });
    try {
      await s.conn.sendRequest('initialize', { protocolVersion: 1, client: { name: 't', version: '0' } });
      const plain: any = await s.conn.sendRequest('score', { rollouts: [ro] });
      const escaped = await client.score([ro], { timeoutMs: 60_000 });
      assert.deepEqual(escaped[0], plain.rollouts[0]);
      const asciiOnly: any = await s.conn.sendRequest('score', { rollouts: [base] });
      assert.notDeepEqual(asciiOnly.rollouts[0], plain.rollouts[0], 'the non-ASCII text changes the toy scores');
    } finally {
      await client.shutdown();
      s.conn.dispose();
      if (s.child.exitCode === null) s.child.kill();
    }
  });
});
