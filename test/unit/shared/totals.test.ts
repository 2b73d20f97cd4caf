/**
 * Rollout totals (src/shared/totals.ts) against what the files themselves say: the ATIF samples'
 * `final_metrics` (tokens and cost; a continuation's copied steps left out), the per-step
 * `metrics.prompt_tokens` as the context series, the failed Bash calls of a real Claude Code
 * session counted from its raw records; the same totals per GRPO group in the Rollouts tree; the
 * sparkline's points.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { loadFile } from '../../../src/core/load';
import { buildTree, groupDescription, groupTotalsText, treeRollout } from '../../../src/host/rolloutTree';
import type { Entry, FileLeaf, GroupNode } from '../../../src/host/rolloutTreeModel';
import { compactCount, rolloutTotals, sparkRuns, stepSeries, sumTotals, totalsParts } from '../../../src/shared/totals';
import { censusFile, sample, sampleJson } from '../samples';

const TERMINUS = 'atif/harbor-golden_terminus2_invalid-json_ATIF-v1.5.trajectory.json';
const CONTINUATION = 'atif/trajectory.summarization-1-summary.json';

describe('shared/totals', () => {
  it("an ATIF rollout's totals are its final_metrics; the context series is each step's prompt_tokens", async () => {
    const raw = sampleJson(TERMINUS);
    const r = (await loadFile(sample(TERMINUS))).rollouts[0];
    const t = rolloutTotals(r.steps);
    assert.equal(t.promptTokens, raw.final_metrics.total_prompt_tokens);
    assert.equal(t.completionTokens, raw.final_metrics.total_completion_tokens);
    assert.ok(Math.abs(t.costUsd! - raw.final_metrics.total_cost_usd) < 1e-12);
    const perStep = raw.steps.map((s: any) => s.metrics?.prompt_tokens ?? null);
    assert.deepEqual(stepSeries(r.steps).context, perStep);
    assert.equal(t.peakContext, Math.max(...perStep.filter((x: number | null) => x !== null)));
    assert.deepEqual(totalsParts(t).slice(0, 2), [`${compactCount(raw.final_metrics.total_prompt_tokens + raw.final_metrics.total_completion_tokens)} tokens`, '$0.008']);
  });

  it('a continuation counts only its own steps (the copied context left out), as its final_metrics do', async () => {
    const raw = sampleJson(CONTINUATION);
    const r = (await loadFile(sample(CONTINUATION))).rollouts[0];
    const own = raw.steps.filter((s: any) => !s.is_copied_context);
    assert.ok(own.length < raw.steps.length);
    const t = rolloutTotals(r.steps);
    assert.equal(t.steps, own.length);
    assert.equal(t.promptTokens, raw.final_metrics.total_prompt_tokens);
    assert.equal(stepSeries(r.steps).index.length, own.length);
  });

  it('failed commands of a Claude Code session: its Bash results flagged is_error, counted from the raw records', async () => {
    const file = censusFile('claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl');
    const rows = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
    const blocks = rows.flatMap((r) => (Array.isArray(r.message?.content) ? r.message.content : []));
    const bash = new Set(blocks.filter((b: any) => b.type === 'tool_use' && b.name === 'Bash').map((b: any) => b.id));
    const results = blocks.filter((b: any) => b.type === 'tool_result' && bash.has(b.tool_use_id));
    const t = rolloutTotals((await loadFile(file)).rollouts[0].steps);
    assert.equal(t.commands, results.length);
    assert.equal(t.failedCommands, results.filter((b: any) => b.is_error === true).length);
    assert.ok(t.failedCommands > 0 && t.timedSteps > 0);
    assert.ok(totalsParts(t).includes(`${t.failedCommands} of ${t.commands} commands failed`));
  });

  it('a GRPO group in the Rollouts tree carries the sums of its rollouts (description: tokens and cost; tooltip: all)', async () => {
    const [a, b] = await Promise.all([TERMINUS, CONTINUATION].map(async (f) => (await loadFile(sample(f))).rollouts[0]));
    const rollouts = [a, b].map((r, i) => ({ ...treeRollout(r, i), groupId: 'g' }));
    const entry: Entry = { path: '/dumps/step_1.jsonl', state: { kind: 'loaded', format: 'atif', schemaVersion: null, rollouts } };
    const f = buildTree([entry]).find((n): n is FileLeaf => n.kind === 'file')!;
    const g = f.children[0] as GroupNode;
    assert.equal(g.kind, 'group');
    const sum = sumTotals([rolloutTotals(a.steps), rolloutTotals(b.steps)]);
    assert.deepEqual(g.totals, sum);
    assert.equal(sum.promptTokens, rolloutTotals(a.steps).promptTokens! + rolloutTotals(b.steps).promptTokens!);
    const tokens = sum.promptTokens! + sum.completionTokens!;
    assert.equal(groupDescription(g), `2 rollouts · ${compactCount(tokens)} tokens · $0.011`); // no reward recorded: none listed
    assert.equal(groupTotalsText(g), `Totals over 2 rollouts: ${compactCount(tokens)} tokens · $0.011 · 0 of 1 command failed · peak context ${compactCount(sum.peakContext!)}`);
    // A group whose steps record nothing says nothing more.
    assert.equal(groupTotalsText({ totals: sumTotals([rolloutTotals([])]) }), '');
  });

  it('sparkRuns: 0 at the bottom, the peak at the top, a null breaks the line', () => {
    assert.deepEqual(sparkRuns([10, 20, null, 40, 0], 40, 10), ['0,7.5 10,5', '30,0 40,10']);
    assert.deepEqual(sparkRuns([null, null], 40, 10), []);
    assert.deepEqual(sparkRuns([5], 40, 10), ['20,0']);
  });
});
