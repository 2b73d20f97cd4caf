/**
 * `trajectory-inspector export` and `agreement` through the built CLI (dist/cli.js; `npm run build`
 * first): labels from the journal next to a copy of the real AgentProcessBench rows, exports that
 * load back, the hand-computed agreement numbers of test/unit/labels/agreement.test.ts.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { journalPathFor, openLabelStore } from '../../src/core/labels/journal';
import { loadFile } from '../../src/core/load';
import type { Rollout } from '../../src/core/model';
import { REPO_ROOT, sample, tmpDir } from '../unit/samples';

const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');
const APB = 'process-labels/agentprocessbench_hotpotqa_subset_lines_1-46-51-52-94-99.jsonl';

function cli(cwd: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000, cwd });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Alice's labels of the agent steps (steps 2…), as in test/unit/labels/agreement.test.ts. */
const ALICE: (1 | 0 | -1 | null)[][] = [[1, 1, -1, -1], [1, -1, -1, -1], [1, 1, 0, -1], [1, 0, null], [1], [0]];
const SCORES: number[][] = [[0.9, 0.8, 0.3, 0.2], [0.9, 0.5, 0.3, 0.3], [0.7, 0.6, 0.4, 0.1], [0.8, 0.2, 0.3], [0.6], [0.3]];

async function labelledWorkspace(): Promise<{ ws: string; file: string; rollouts: Rollout[] }> {
  const ws = tmpDir('ti-ws-');
  const file = path.join(ws, 'data', 'apb.jsonl');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.copyFileSync(sample(APB), file);
  const rollouts = (await loadFile(file)).rollouts;
  const store = await openLabelStore(journalPathFor(file, ws, '/unused'), { annotator: 'alice', rollouts });
  await store.apply(rollouts.flatMap((r, i) => ALICE[i].flatMap((v, k) => (v === null ? [] : [{ rolloutId: r.id, stepIndex: 2 + k, value: v }]))));
  return { ws, file, rollouts };
}

describe('CLI export / agreement (dist/cli.js)', function () {
  // Each test starts CLI processes one after another: on 2 busy shared cores one start can take
  // seconds, so the test gets the time a loaded machine needs (each process has its own timeout).
  this.timeout(180_000);
  before(() => {
    if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  });

  it('export finds the journal in the nearest .trajectory-labels/ above the file and writes each format so it loads back', async () => {
    const { ws, file, rollouts } = await labelledWorkspace();
    assert.ok(fs.existsSync(path.join(ws, '.trajectory-labels', 'data', 'apb.jsonl.labels.jsonl')));
    const elsewhere = tmpDir('ti-cwd-');

    const trl = path.join(elsewhere, 'trl.jsonl');
    let r = cli(elsewhere, 'export', '--format', 'trl', '--out', trl, file);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /exported 6 of 6 rollout\(s\) as trl \(labels of alice, neutral → negative\)/);
    const trlBack = await loadFile(trl);
    assert.equal(trlBack.format, 'trl-stepwise');
    // Alice's labels, neutral → false; r3's unlabelled last step is not exported.
    assert.deepEqual(
      trlBack.rollouts.map((x) => x.steps.filter((s) => s.role === 'agent').map((s) => s.referenceLabel!.value)),
      ALICE.map((row) => row.filter((v) => v !== null).map((v) => (v === 1 ? 1 : -1))),
    );

    // With the reference labels filling in what alice did not label; to stdout.
    r = cli(elsewhere, 'export', '--format=agentprocessbench', '--include-reference', file);
    assert.equal(r.code, 0, r.stderr);
    const rows = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(rows[3].step_labels, { '2': 1, '4': 0, '6': -1 }); // alice +1, 0; the reference −1 on the unlabelled step
    assert.deepEqual(rows[5].step_labels, { '2': 0 });
    assert.deepEqual(rows.map((x) => x.final_label), [-1, -1, -1, -1, 1, -1]);
    assert.deepEqual(rows.map((x) => x.record_id), rollouts.map((x) => x.id));

    // ProcessBench, neutral = no error: alice's r3 (+1 0 ·) defines no first error: skipped and said so.
    const pb = path.join(elsewhere, 'pb.json');
    r = cli(elsewhere, 'export', '--format', 'processbench', '--neutral', 'drop', '--out', pb, file);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /exported 5 of 6/);
    assert.ok(r.stderr.includes(`skipped ${rollouts[3].id}: no first error can be given: no error labelled and agent step 4 has no label`), r.stderr);
    const items = JSON.parse(fs.readFileSync(pb, 'utf8'));
    assert.deepEqual(items.map((x: { label: number }) => x.label), [2, 1, 3, -1, -1]);
    assert.equal((await loadFile(pb)).format, 'processbench');
  });

  it('export finds a journal in --global-storage for a file outside any labelled folder', async () => {
    const dir = tmpDir('ti-glob-');
    const file = path.join(dir, 'apb.jsonl');
    fs.copyFileSync(sample(APB), file);
    const rollouts = (await loadFile(file)).rollouts;
    const storage = tmpDir('ti-storage-');
    const store = await openLabelStore(journalPathFor(file, null, storage), { annotator: 'bob', rollouts });
    await store.apply([{ rolloutId: rollouts[4].id, stepIndex: 2, value: -1 }]);
    let r = cli(dir, 'export', '--format', 'trl', file);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no labels found in the label journals/);
    r = cli(dir, 'export', '--format', 'trl', '--global-storage', storage, file);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n').map((l) => JSON.parse(l).labels), [[false]]);
    assert.match(r.stderr, /exported 1 of 6/);
  });

  it('agreement prints the hand-computed kappa, confusion and scorer metrics (text and --json)', async () => {
    const { ws, file, rollouts } = await labelledWorkspace();
    let r = cli(ws, 'agreement', '--json', file);
    assert.equal(r.code, 0, r.stderr);
    const rep = JSON.parse(r.stdout);
    assert.deepEqual([rep.a, rep.b], ['alice', 'reference']);
    assert.deepEqual(rep.annotators.confusion, [[7, 0, 0], [0, 2, 1], [1, 1, 4]]);
    assert.ok(Math.abs(rep.annotators.kappa - 113 / 161) < 1e-12);
    assert.equal(rep.scores, null);

    r = cli(ws, 'agreement', file);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /alice vs reference: 6 rollout\(s\)/);
    assert.match(r.stdout, /observed agreement 0\.813, chance 0\.371, Cohen's kappa 0\.702/);
    assert.match(r.stdout, /\+1\s+7\s+0\s+0\n/);

    const scores = path.join(ws, 'scores.jsonl');
    fs.writeFileSync(scores, rollouts.flatMap((x, i) => SCORES[i].map((v, k) => JSON.stringify({ rolloutId: x.id, stepIndex: 2 + k, value: v }) + '\n')).join(''));
    r = cli(ws, 'agreement', '--a', 'reference', '--scores', scores, '--threshold', '0.5', '--json', file);
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.equal(s.annotators, null, 'only scores vs labels when --b is not given');
    assert.deepEqual(s.scores.stepAccuracy, { n: 14, correct: 13, value: 13 / 14 });
    assert.ok(Math.abs(s.scores.auroc.value - 46 / 48) < 1e-12);
    assert.ok(Math.abs(s.scores.firstError.f1 - 4 / 7) < 1e-12);
    r = cli(ws, 'agreement', '--a', 'reference', '--scores', scores, file);
    assert.match(r.stdout, /step accuracy: 13\/14 = 0\.929/);
    assert.match(r.stdout, /erroneous 2\/5 = 0\.400, correct 1\/1 = 1\.000, F1 0\.571; exact match 3\/6 = 0\.500/);
  });

  it('usage errors exit 2; several annotators need a choice', async () => {
    const { ws, file, rollouts } = await labelledWorkspace();
    assert.equal(cli(ws, 'export', file).code, 2);
    assert.equal(cli(ws, 'export', '--format', 'csv', file).code, 2);
    assert.equal(cli(ws, 'export', '--format', 'trl', '--neutral', 'maybe', file).code, 2);
    assert.equal(cli(ws, 'export', '--format', 'trl').code, 2);
    assert.equal(cli(ws, 'agreement', '--threshold', 'high', file).code, 2);
    assert.equal(cli(ws, 'agreement', '--bogus', file).code, 2);
    const bob = await openLabelStore(journalPathFor(file, ws, '/unused'), { annotator: 'bob', rollouts });
    await bob.apply([{ rolloutId: rollouts[0].id, stepIndex: 2, value: -1 }]);
    const r = cli(ws, 'export', '--format', 'trl', file);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /several annotators \(alice, bob\): choose one with --annotator NAME/);
    const ok = cli(ws, 'agreement', '--a', 'alice', '--b', 'bob', '--json', file);
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(JSON.parse(ok.stdout).annotators.confusion, [[0, 0, 1], [0, 0, 0], [0, 0, 0]]); // alice +1, bob −1 on r0 step 2
    assert.equal(cli(ws, 'export', '--help').code, 0);
  });
});
