/**
 * The scorer protocol's wire encoding (src/core/scoring/wire.ts): ASCII-only JSON that parses to
 * exactly what plain JSON.stringify parses to, and the built-in scorer process answering a rollout
 * full of non-ASCII text exactly as the rules do in-process, with nothing but ASCII on its stdout.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { ScorerClient, type ScorerCommand } from '../../../src/core/scoring/client';
import { toScoreRollout } from '../../../src/core/scoring/input';
import type { ScoreRollout } from '../../../src/core/scoring/protocol';
import { asciiJson } from '../../../src/core/scoring/wire';
import { loadFile } from '../../../src/core/load';
import { scoreRollout } from '../../../src/scorers/builtin/rules';
import { REPO_ROOT, sample } from '../samples';

const BUILTIN: ScorerCommand = { command: process.execPath, args: ['-r', 'tsx/cjs', path.join(REPO_ROOT, 'src', 'scorers', 'builtin', 'main.ts')], cwd: REPO_ROOT };
const ASCII = /^[\x00-\x7f]*$/;

/** A rollout whose text has accents, arrows, box drawing, emoji (surrogate pairs), a lone surrogate and U+2028. */
function unicodeRollout(id: string): ScoreRollout {
  const step = (index: number, output: string, exitCode: number | null, command: string) => ({
    index,
    role: 'agent' as const,
    message: `Étape ${index}: vérifier → “ok” ✓ 😀`,
    reasoning: index % 2 ? 'naïve — try again\u2028next line' : null,
    actions: [{ kind: 'shell' as const, command, tool: null, arguments: null }],
    observations: [{ output, exitCode, truncated: false }],
    durationMs: null,
  });
  return {
    id,
    task: { id: 'tâche-1', instruction: 'Répare le test — ça échoue ✗' },
    steps: [
      step(0, '=== 3 failed, 1 passed in 0.2s ===\n┌──┐ ✗ test_é', 1, 'pytest -q # ✓'),
      step(1, '=== 1 failed, 3 passed in 0.2s ===\n😀 lone \ud800 surrogate', 1, 'pytest -q # ✓'),
      step(2, 'FileNotFoundError: No such file or directory: «données.csv»', 2, 'cat données.csv'),
      step(3, '=== 4 passed in 0.1s ===', 0, 'pytest -q'),
    ],
  };
}

describe('scorer wire encoding (ASCII-only JSON)', function () {
  // Starts scorer processes: a loaded 2-core machine needs far longer than an idle one.
  this.timeout(180_000);

  it('asciiJson is pure ASCII and parses to what JSON.stringify parses to', () => {
    const values: unknown[] = [
      unicodeRollout('r'),
      { s: 'plain ascii', n: [1, 2.5, -0, 1e21, null, true], o: { 'kéy ✓': 'välue' } },
      'just a string with \u0000 control \u001f and \u007f DEL and \u0080 and \uffff',
      ['😀', '\ud83d', '\ude00', '\u2028\u2029'],
    ];
    for (const v of values) {
      const a = asciiJson(v);
      assert.match(a, ASCII);
      assert.deepEqual(JSON.parse(a), JSON.parse(JSON.stringify(v)));
    }
    // ASCII input is left exactly as JSON.stringify writes it.
    const plain = { a: 'b', c: [1, 'd'] };
    assert.equal(asciiJson(plain), JSON.stringify(plain));
  });

  it('the built-in scorer scores non-ASCII rollouts exactly as the rules do in-process (explanations with "→" included)', async () => {
    const f = await loadFile(sample('swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj'));
    const rollouts = [unicodeRollout('u1'), toScoreRollout(f.rollouts[0]), unicodeRollout('u2')];
    const c = await ScorerClient.start(BUILTIN, { client: { name: 'test', version: '0' }, initTimeoutMs: 15_000 });
    try {
      const out = await c.score(rollouts, { timeoutMs: 10_000 });
      assert.deepEqual(out.map((r) => r.steps), rollouts.map((r) => scoreRollout(r)));
      assert.ok(out[0].steps.some((s) => s.explanation?.includes('→')), JSON.stringify(out[0].steps));
    } finally {
      await c.shutdown();
    }
  });

  it('the built-in scorer writes only ASCII bytes on stdout, even for results with non-ASCII text', async () => {
    const child = spawn(BUILTIN.command, BUILTIN.args, { cwd: BUILTIN.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    const send = (m: unknown): void => {
      const body = Buffer.from(JSON.stringify(m), 'utf8'); // plain UTF-8 in: the scorer reads either
      child.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
      child.stdin.write(body);
    };
    const r = unicodeRollout('u');
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, client: { name: 't', version: '0' } } });
    send({ jsonrpc: '2.0', id: 2, method: 'score', params: { rollouts: [r] } });
    send({ jsonrpc: '2.0', id: 3, method: 'shutdown' });
    send({ jsonrpc: '2.0', method: 'exit' });
    const code = await new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
    assert.equal(code, 0);
    const raw = Buffer.concat(chunks);
    assert.ok(raw.every((b) => b < 0x80), 'every byte on stdout is ASCII');
    const messages: { id: number; result: unknown }[] = [];
    for (let at = 0; at < raw.length; ) {
      const head = raw.subarray(at).indexOf('\r\n\r\n');
      const len = Number(/Content-Length: (\d+)/.exec(raw.subarray(at, at + head).toString('latin1'))![1]);
      messages.push(JSON.parse(raw.subarray(at + head + 4, at + head + 4 + len).toString('utf8')));
      at += head + 4 + len;
    }
    const score = messages.find((m) => m.id === 2)!;
    assert.deepEqual(score.result, { rollouts: [{ id: 'u', steps: scoreRollout(r) }] });
  });
});
