/**
 * Dataset records whose own labels contradict each other (issue 19 item 4), made from the real
 * ProcessBench and AgentProcessBench rows in ../shared/samples/process-labels by changing the one
 * field that makes them conflict: a located warning on load and `metadata.labelConflict` on the
 * rollout; left out of κ and first-error F1 ("n conflicting, excluded"); export drops them by
 * default (with a count), keeps them with `keep`, refuses with `fail` — the library and the CLI.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { annotatorAgreement, scorerAgreement } from '../../../src/core/labels/agreement';
import { labelConflictOf } from '../../../src/core/labels/conflicts';
import { exportRows, LabelConflictError } from '../../../src/core/labels/export';
import { agreementText } from '../../../src/core/labels/report';
import { referenceLabels } from '../../../src/core/labels/select';
import { loadPath } from '../../../src/core/load';
import { REPO_ROOT, sample, sampleJson, tmpDir } from '../samples';

const PB = 'process-labels/processbench_gsm8k.json';
const APB = 'process-labels/agentprocessbench_hotpotqa_subset_lines_1-46-51-52-94-99.jsonl';

/** The ProcessBench sample with its first item made to conflict (label −1 while its final answer is wrong). */
function pbWithConflict(dir: string): { file: string; id: string } {
  const items = sampleJson<any[]>(PB).slice(0, 6);
  assert.equal(items[0].final_answer_correct, false, 'the real item has a wrong final answer');
  items[0] = { ...items[0], label: -1 };
  const file = path.join(dir, 'processbench.json');
  fs.writeFileSync(file, JSON.stringify(items, null, 2));
  return { file, id: String(items[0].id) };
}

/** The AgentProcessBench sample with its first row's −1 step relabelled +1 (all +1, final −1). */
function apbWithConflict(dir: string): string {
  const lines = fs.readFileSync(sample(APB), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const row = lines[0];
  assert.equal(row.final_label, -1);
  for (const k of Object.keys(row.step_labels)) row.step_labels[k] = 1;
  const file = path.join(dir, 'apb.jsonl');
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return file;
}

describe('labels/conflicts: dataset records whose labels contradict each other', () => {
  it('the real samples hold no conflict; a ProcessBench item with label −1 and a wrong final answer is one, located at /0/label', async () => {
    for (const f of [PB, APB]) {
      const clean = await loadPath(sample(f));
      assert.equal(clean.files[0].rollouts.filter((r) => labelConflictOf(r)).length, 0, f);
    }
    const { file, id } = pbWithConflict(tmpDir());
    const res = await loadPath(file);
    const f = res.files[0];
    const r = f.rollouts.find((x) => x.id === id)!;
    assert.match(labelConflictOf(r)!.reason, /final_answer_correct is false but label is −1/);
    const w = (f.issues ?? []).find((i) => i.severity === 'warning' && /label conflict/.test(i.found));
    assert.ok(w);
    assert.equal(w!.pointer, '/0/label');
    assert.ok(w!.line! > 1);
    assert.equal(f.rollouts.filter((x) => labelConflictOf(x)).length, 1);
  });

  it('an AgentProcessBench row with every labelled step +1 and final_label −1 is one (at its final_label)', async () => {
    const res = await loadPath(apbWithConflict(tmpDir()));
    const f = res.files[0];
    const bad = f.rollouts.filter((x) => labelConflictOf(x));
    assert.equal(bad.length, 1);
    assert.match(labelConflictOf(bad[0])!.reason, /final_label is −1 but all 4 labelled step\(s\) are \+1/);
    assert.match((f.issues ?? []).find((i) => /label conflict/.test(i.found))!.pointer!, /final_label$/);
  });

  it('kappa and first-error F1 leave conflicting records out and say how many', async () => {
    const { file } = pbWithConflict(tmpDir());
    const rollouts = (await loadPath(file)).files[0].rollouts;
    const items = rollouts.map((r) => ({ rollout: r, a: referenceLabels(r).steps, b: referenceLabels(r).steps }));
    const aa = annotatorAgreement(items, { a: 'reference', b: 'copy' });
    assert.equal(aa.conflicting, 1);
    assert.equal(aa.rollouts, items.length);
    assert.equal(aa.firstError.compared, items.length - 1);
    // Scores that say every step is good: the conflicting record would count as a correct "no error".
    const scores = new Map(rollouts.map((r) => [r.id, new Map(r.steps.filter((s) => s.role === 'agent').map((s) => [s.index, 0.9]))]));
    const sa = scorerAgreement(items.map((it) => ({ rollout: it.rollout, labels: it.a })), scores);
    assert.equal(sa.firstError.conflicting, 1);
    assert.equal(sa.firstError.correct.n, 0, 'the conflicting "no error" record is not counted as correct');
    assert.match(agreementText({ a: 'reference', b: 'copy', annotators: aa, scores: null }), /1 conflicting, excluded/);
  });

  it('export: drop (default) leaves them out with the reason, keep exports them, fail refuses', async () => {
    const { file, id } = pbWithConflict(tmpDir());
    const items = (await loadPath(file)).files[0].rollouts.map((r) => referenceLabels(r));
    const dropped = exportRows('trl', items, 'negative');
    assert.equal(dropped.rows.length, items.length - 1);
    assert.deepEqual(dropped.conflicts, { policy: 'drop', rolloutIds: [id] });
    assert.match(dropped.skipped.find((s) => s.rolloutId === id)!.reason, /label conflict/);
    const kept = exportRows('trl', items, 'negative', 'keep');
    assert.equal(kept.rows.length, items.length);
    assert.throws(() => exportRows('processbench', items, 'negative', 'fail'), (e: unknown) => e instanceof LabelConflictError && e.rolloutIds[0] === id);
  });

  it('the CLI: export reports the count, --conflicts fail exits 1 writing nothing, a bad policy is a usage error', function () {
    this.timeout(180_000); // CLI processes on a loaded machine
    const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');
    if (!fs.existsSync(CLI)) this.skip();
    const dir = tmpDir();
    const { file } = pbWithConflict(dir);
    const out = path.join(dir, 'out.jsonl');
    const run = (...a: string[]) => spawnSync(process.execPath, [CLI, ...a], { encoding: 'utf8', timeout: 50_000 });
    const d = run('export', '--format', 'trl', '--include-reference', '--out', out, file);
    assert.equal(d.status, 0, d.stderr);
    assert.match(d.stderr, /1 rollout\(s\) with conflicting dataset labels left out/);
    assert.equal(fs.readFileSync(out, 'utf8').trim().split('\n').length, 5);
    const out2 = path.join(dir, 'out2.jsonl');
    const f = run('export', '--format', 'trl', '--include-reference', '--conflicts', 'fail', '--out', out2, file);
    assert.equal(f.status, 1);
    assert.match(f.stderr, /conflicting dataset labels/);
    assert.equal(fs.existsSync(out2), false);
    assert.equal(run('export', '--format', 'trl', '--include-reference', '--conflicts', 'maybe', file).status, 2);
  });
});
