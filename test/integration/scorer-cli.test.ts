/**
 * `trajectory-inspector score` and `scorer-check` from the built CLI (dist/cli.js, dist/scorers/builtin.js):
 * real processes, real samples, exit codes. Needs `npm run build` first.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseScores } from '../../src/core/labels/agreement';
import { loadFile } from '../../src/core/load';
import { toScoreRollout } from '../../src/core/scoring/input';
import { RULES_VERSION, scoreRollout } from '../../src/scorers/builtin/rules';
import { REPO_ROOT, sample, tmpDir } from '../unit/samples';

const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');
const FAKE = path.join(REPO_ROOT, 'test', 'fixtures', 'scorers', 'fake-scorer.js');
const SWE = 'swe-agent/v0.7_default__marshmallow-code__marshmallow-1867.traj';

function cli(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 90_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('CLI score and scorer-check', function () {
  this.timeout(90_000);
  before(() => {
    if (!fs.existsSync(CLI) || !fs.existsSync(path.join(REPO_ROOT, 'dist', 'scorers', 'builtin.js'))) throw new Error('dist/ is missing: run npm run build first');
  });

  it('scorer-check passes the built-in scorer (every check named)', () => {
    const r = cli('scorer-check', '--json', '--builtin');
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const rep = JSON.parse(r.stdout);
    assert.equal(rep.passed, true);
    assert.equal(rep.scorer.name, 'builtin');
    const names = rep.checks.map((c: { name: string }) => c.name);
    for (const n of ['score before initialize', 'initialize', 'unknown method', 'malformed score params', 'score', 'cancel', 'stdout', 'one reply per request', 'reply size', 'shutdown', 'exit']) assert.ok(names.includes(n), n);
    assert.equal(rep.checks.find((c: { name: string }) => c.name === 'cancel').detail, 'error -32800 RequestCancelled');
  });

  it('scorer-check passes a correct third-party scorer given after --', () => {
    const r = cli('scorer-check', '--', process.execPath, FAKE, 'good');
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /passed \(14 checks\)/);
  });

  it('scorer-check fails a broken scorer and says what is wrong', () => {
    const garbage = cli('scorer-check', '--', process.execPath, FAKE, 'garbage');
    assert.equal(garbage.code, 1);
    assert.match(garbage.stdout, /FAIL\s+stdout\s+wrote something that is not a protocol message on stdout.*loading weights/);
    const lax = cli('scorer-check', '--', process.execPath, FAKE, 'no-init-check');
    assert.equal(lax.code, 1);
    assert.match(lax.stdout, /FAIL\s+score before initialize\s+expected error -32002 ServerNotInitialized, got a result/);
    assert.match(lax.stdout, /FAIL\s+unknown method\s+expected error -32601/);
    const wrong = cli('scorer-check', '--', process.execPath, FAKE, 'out-of-range');
    assert.equal(wrong.code, 1);
    assert.match(wrong.stdout, /FAIL\s+score\s+.*value 1\.5 is outside the score range \[0, 1\]/);
    const crash = cli('scorer-check', '--', process.execPath, FAKE, 'crash');
    assert.equal(crash.code, 1);
    assert.match(crash.stdout, /FAIL\s+empty batch\s+the scorer exited \(exit code 3\) before answering/);
    assert.match(crash.stdout, /FAIL\s+exit\s+exited with \{"code":3/);
    const missing = cli('scorer-check', '--', '/nonexistent/scorer');
    assert.equal(missing.code, 1);
    assert.match(missing.stdout, /FAIL\s+start\s+cannot run \/nonexistent\/scorer: .*ENOENT/);
    assert.equal(cli('scorer-check').code, 2);
  });

  it('score --out writes the built-in scores as JSONL that agreement reads, equal to the rules in-process', async () => {
    const out = path.join(tmpDir(), 'scores.jsonl');
    const r = cli('score', sample(SWE), '--out', out);
    assert.equal(r.code, 0, r.stderr);
    const text = fs.readFileSync(out, 'utf8');
    const parsed = parseScores(out, text);
    assert.deepEqual(parsed.warnings, []);
    const f = await loadFile(sample(SWE));
    const expected = scoreRollout(toScoreRollout(f.rollouts[0])).filter((s) => s.value !== null);
    assert.equal(parsed.count, expected.length);
    const got = parsed.scores.get(f.rollouts[0].id)!;
    for (const s of expected) assert.equal(got.get(s.index), s.value);
    const first = JSON.parse(text.split('\n')[0]);
    assert.deepEqual(first.scorer, { name: 'builtin', version: RULES_VERSION, model: null });
  });

  it('score without --json prints a table; a broken scorer makes it fail with the reason and no scores', () => {
    const table = cli('score', sample(SWE));
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, new RegExp(`rollout .* \\(builtin ${RULES_VERSION.replace(/\./g, "\\.")}\\)`));
    assert.match(table.stdout, /#12 +0\.30 +bad +error-text/);
    // A scorer that dies in the middle of a reply: the CLI reports it and exits (it once hung on
    // vscode-jsonrpc's partial-message timer).
    const cut = cli('score', sample(SWE), '--json', '--timeout', '5', '--scorer', '--', process.execPath, FAKE, 'cut-short');
    assert.equal(cut.code, 1, cut.stderr);
    assert.equal(cut.stdout, '');
    assert.match(cut.stderr, /exited \(exit code 3\)/);
    const broken = cli('score', sample(SWE), '--json', '--scorer', '--', process.execPath, FAKE, 'wrong-count');
    assert.equal(broken.code, 1);
    assert.equal(broken.stdout, '');
    assert.match(broken.stderr, /scoring 1 rollout\(s\) failed: wrong score result from the scorer: .*step\(s\) not answered/);
  });
});
