/**
 * Hostile scorer processes (issue 18 item 7), through the built CLI (dist/cli.js; `npm run build`
 * first): a scorer that leaves a child holding its stdout, one that hangs at start, one that answers
 * a request twice, one that sends a 100 MB reply. Each CLI run has a wall-clock watchdog (its whole
 * process group is killed past it, and the case fails with the time it was given); every process a
 * case starts is killed after it.
 */
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT, sample, tmpDir } from '../unit/samples';

const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');
const FAKE = path.join(REPO_ROOT, 'test', 'fixtures', 'scorers', 'fake-scorer.js');
const SWE = 'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** True when the watchdog had to kill it. */
  killed: boolean;
  ms: number;
}

/** Runs the CLI in its own process group; past `limitMs` the group is killed (SIGKILL). */
function cli(args: string[], limitMs: number, env: Record<string, string> = {}): Promise<Run> {
  const t0 = Date.now();
  const child = spawn(process.execPath, [CLI, ...args], { detached: true, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve) => {
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // gone already
      }
    }, limitMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      // Its stdout may be held by a grandchild: take what came and do not wait for 'close'.
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        resolve({ code, stdout, stderr, killed, ms: Date.now() - t0 });
      }, 100);
    });
  });
}

function killPidIn(file: string): void {
  if (!fs.existsSync(file)) return;
  const pid = Number(fs.readFileSync(file, 'utf8'));
  if (pid > 0) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
}

describe('hostile scorer processes (issue 18 item 7, dist/cli.js)', function () {
  this.timeout(180_000);
  before(() => {
    if (!fs.existsSync(CLI)) throw new Error('dist/cli.js is missing: run npm run build first');
  });

  it('score and scorer-check exit once done although a child of the scorer holds its stdout', async () => {
    const dir = tmpDir();
    const mark = path.join(dir, 'orphan.pid');
    const mark2 = path.join(dir, 'orphan2.pid');
    try {
      const out = path.join(dir, 'scores.jsonl');
      const r = await cli(['score', sample(SWE), '--out', out, '--scorer', '--', process.execPath, FAKE, 'orphan-stdout'], 60_000, { FAKE_SCORER_MARK: mark });
      assert.equal(r.killed, false, `score did not exit within 60 s: ${r.stderr}`);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(fs.readFileSync(out, 'utf8').trim().split('\n').length > 0, 'scores written');
      assert.ok(fs.existsSync(mark), 'the scorer did start its child');
      const c = await cli(['scorer-check', '--', process.execPath, FAKE, 'orphan-stdout'], 60_000, { FAKE_SCORER_MARK: mark2 });
      assert.equal(c.killed, false, `scorer-check did not exit within 60 s: ${c.stdout}`);
      assert.equal(c.code, 0, c.stdout + c.stderr);
    } finally {
      killPidIn(mark);
      killPidIn(mark2);
    }
  });

  it('a scorer that hangs at start costs the --timeout per try, not 120 s', async () => {
    const r = await cli(['score', sample(SWE), '--timeout', '2', '--scorer', '--', process.execPath, FAKE, 'hang-start'], 90_000);
    assert.equal(r.killed, false, 'score gave up within 90 s (3 tries × 2 s + backoff)');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /did not answer initialize within 2 s/);
    const c = await cli(['scorer-check', '--timeout', '2', '--', process.execPath, FAKE, 'hang-start'], 60_000);
    assert.equal(c.killed, false);
    assert.equal(c.code, 1);
    assert.match(c.stdout, /FAIL\s+initialize\s+no answer within 2 s/);
  });

  it('a second reply to one request is a protocol error: no scores of that scorer are written, scorer-check fails it', async () => {
    const dir = tmpDir();
    const out = path.join(dir, 'scores.jsonl');
    const r = await cli(['score', sample(SWE), '--out', out, '--scorer', '--', process.execPath, FAKE, 'double-reply'], 90_000);
    assert.equal(r.killed, false);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /answered request \d+ twice/);
    assert.equal(fs.existsSync(out) ? fs.readFileSync(out, 'utf8').trim() : '', '', 'no scores written');
    const c = await cli(['scorer-check', '--', process.execPath, FAKE, 'double-reply'], 90_000);
    assert.equal(c.killed, false);
    assert.equal(c.code, 1);
    assert.match(c.stdout, /FAIL\s+one reply per request\s+the scorer answered request \d+ twice/);
  });

  it('a 100 MB reply is refused at its header (a protocol error with the size), never cached', async () => {
    const dir = tmpDir();
    const cache = path.join(dir, 'cache');
    const r = await cli(['score', sample(SWE), '--cache', cache, '--scorer', '--', process.execPath, FAKE, 'huge-reply'], 120_000);
    assert.equal(r.killed, false);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /a message of \d+ bytes, over the limit of 33554432 bytes/);
    const cached = fs.existsSync(cache) ? fs.readdirSync(cache, { recursive: true }).filter((f) => String(f).endsWith('.json') && !String(f).startsWith('scorers')) : [];
    assert.deepEqual(cached, [], 'no scores cached (scorers/ holds the identity hint of the scorer started)');
    const c = await cli(['scorer-check', '--', process.execPath, FAKE, 'huge-reply'], 120_000);
    assert.equal(c.killed, false);
    assert.equal(c.code, 1);
    assert.match(c.stdout, /FAIL\s+reply size\s+the scorer sent a message of \d+ bytes/);
  });
});
