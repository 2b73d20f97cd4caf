/**
 * Scores you can trust (issue 19 items 1–3), as a user meets them: `dist/cli.js score` and
 * `scorer-check` running the Python PRM scorer (scorers/python, `--backend vllm`) against a fake vLLM
 * `/pooling` server on 127.0.0.1 (scorers/python/tests/fake_servers.py, started as a process) that
 * returns malformed rows, or refuses inputs over its 20,000-character "context". Real rollouts from
 * ../shared/samples. Needs `npm run build` and /usr/bin/python3 with torch (TI_PYTHON overrides);
 * skipped without torch outside CI, like test/integration/python-scorer.test.ts.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT, sample, tmpDir } from '../unit/samples';

const PYTHON = process.env.TI_PYTHON ?? '/usr/bin/python3';
const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');
const LAUNCHER = path.join(REPO_ROOT, 'scorers', 'python', 'ti-scorer');
const FAKE_VLLM = path.join(REPO_ROOT, 'scorers', 'python', 'tests', 'fake_servers.py');
const SWE = 'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj';
const SHORT = 'mini-swe-agent';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI, asynchronously (the fake server is another process, but the test must not block), killed past `limitMs`. */
function cli(args: string[], limitMs = 120_000): Promise<Run> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve) => {
    const t = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.on('close', (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Starts the fake vLLM server with a row mode; resolves with its URL. */
function fakeVllm(mode: string): Promise<{ url: string; proc: ChildProcess }> {
  const proc = spawn(PYTHON, [FAKE_VLLM, mode], { cwd: path.dirname(FAKE_VLLM), stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
      if (m) resolve({ url: m[0], proc });
    });
    proc.on('exit', (c) => reject(new Error(`fake vLLM server exited (${c})`)));
  });
}

function torchMissing(): string | null {
  const r = spawnSync(PYTHON, ['-c', 'import torch'], { encoding: 'utf8' });
  return r.status === 0 ? null : `no torch under ${PYTHON}`;
}

function firstFile(dir: string): string {
  const d = sample(dir);
  return fs.statSync(d).isDirectory() ? path.join(d, fs.readdirSync(d).sort()[0]) : d;
}

describe('PRM replies through the CLI and the Python scorer (fake vLLM on 127.0.0.1)', function () {
  this.timeout(180_000);
  const procs: ChildProcess[] = [];
  before(function () {
    if (!fs.existsSync(CLI)) throw new Error('dist/cli.js is missing: run npm run build first');
    const why = torchMissing();
    if (why) {
      if (process.env.CI) throw new Error(why);
      // eslint-disable-next-line no-console
      console.log(`      skipped: ${why} (scripts/setup-test-env.sh installs python3-torch)`);
      this.skip();
    }
  });
  after(() => {
    for (const p of procs) p.kill('SIGKILL');
  });
  const server = async (mode: string): Promise<string> => {
    const s = await fakeVllm(mode);
    procs.push(s.proc);
    return s.url;
  };
  const scorer = (url: string): string[] => ['--', PYTHON, LAUNCHER, '--backend', 'vllm', '--url', url];

  for (const [mode, reason] of [
    ['hidden', /has 4096 values, expected 2 \(a hidden-state or embedding vector/],
    ['logits', /column 0 is -2\.3, outside \[0, 1\]/],
    ['unnormalised', /sums to 1\.5, not 1/],
  ] as const) {
    it(`a ${mode} reply: score fails with a short reason, writes and caches no score; scorer-check fails it`, async () => {
      const url = await server(mode);
      const dir = tmpDir();
      const out = path.join(dir, 'scores.jsonl');
      const cache = path.join(dir, 'cache');
      const r = await cli(['score', sample(SWE), '--out', out, '--cache', cache, '--timeout', '60', '--scorer', ...scorer(url)]);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, reason);
      const line = r.stderr.split('\n').find((l) => reason.test(l))!;
      assert.ok(line.length < 600, `a short reason, not the row: ${line.length} chars`);
      assert.equal(fs.readFileSync(out, 'utf8'), '', 'no scores written');
      const cached = fs.existsSync(cache) ? fs.readdirSync(cache, { recursive: true }).map(String).filter((f) => f.endsWith('.json') && !f.startsWith('scorers')) : [];
      assert.deepEqual(cached, []);
      const c = await cli(['scorer-check', '--timeout', '60', ...scorer(url)]);
      assert.equal(c.code, 1, c.stdout);
      assert.match(c.stdout, new RegExp(`FAIL\\s+score\\s+.*${reason.source}`));
    });
  }

  it('a rollout past the context: its first steps scored, the rest marked "not scored: beyond model context"', async () => {
    const url = await server('good');
    const r = await cli(['score', sample(SWE), '--timeout', '60', '--scorer', ...scorer(url)]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /note: .*steps not scored: beyond model context/);
    const rows = r.stdout.split("\n").filter((l) => /^\s+#\d+\s/.test(l));
    const scored = rows.filter((l) => /^\s+#\d+\s+\d\.\d\d/.test(l));
    const beyond = rows.filter((l) => /not scored: beyond model context/.test(l));
    assert.ok(scored.length > 0 && beyond.length > 0, r.stdout);
    // Never shifted: every scored row comes before every unscored one.
    assert.ok(rows.indexOf(scored[scored.length - 1]) < rows.indexOf(beyond[0]));
    const j = await cli(['score', firstFile(SHORT), '--json', '--timeout', '60', '--scorer', ...scorer(url)]);
    assert.equal(j.code, 0, j.stderr);
    assert.doesNotMatch(j.stderr, /beyond model context/);
  });
});
