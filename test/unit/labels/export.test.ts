/**
 * Label export (src/core/labels/export.ts): every format loads back through the project's own
 * loaders (src/core/formats/agentProcessBench.ts, processBench.ts, prm800k.ts, trlStepwise.ts) with
 * the same labels, and rows have the field shapes
 * the format docs give (docs formats.md §7: AgentProcessBench rows, TRL stepwise supervision,
 * ProcessBench items). Sources: the real AgentProcessBench rows, the full real ProcessBench gsm8k
 * split, a real Harbor ATIF trajectory, labelled through the journal.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as fs from 'node:fs';
import { exportRows, promptText, selectForExport, stepText, toApbRow, toProcessBenchItem, toTrlRow, type ApbRow, type ProcessBenchItem, type TrlRow } from '../../../src/core/labels/export';
import { openLabelStore } from '../../../src/core/labels/journal';
import { annotatorLabels, labelsFrom, referenceLabels, REFERENCE, withFallback, type RolloutLabels } from '../../../src/core/labels/select';
import { loadFile } from '../../../src/core/load';
import type { Rollout } from '../../../src/core/model';
import { sample, sampleJson, sampleJsonl, tmpDir } from '../samples';

const APB = 'process-labels/agentprocessbench_hotpotqa_subset_lines_1-46-51-52-94-99.jsonl';
const PB = 'process-labels/processbench_gsm8k.json';
const ATIF = 'atif/harbor-golden_terminus2_invalid-json_ATIF-v1.5.trajectory.json';

/** Writes an export and loads it back with the project's loaders. */
async function roundTrip(name: string, text: string): Promise<{ format: string; rollouts: Rollout[] }> {
  const f = path.join(tmpDir('ti-export-'), name);
  fs.writeFileSync(f, text);
  const loaded = await loadFile(f);
  assert.equal(loaded.issues, undefined);
  return loaded;
}

/** Reference labels of the agent steps, in order. */
function agentLabels(r: Rollout): (number | null)[] {
  return r.steps.filter((s) => s.role === 'agent').map((s) => s.referenceLabel?.value ?? null);
}

function isTrlShape(row: unknown): asserts row is TrlRow {
  const r = row as TrlRow;
  assert.deepEqual(Object.keys(r), ['prompt', 'completions', 'labels']);
  assert.equal(typeof r.prompt, 'string');
  assert.ok(r.completions.every((c) => typeof c === 'string'));
  assert.ok(r.labels.every((l) => typeof l === 'boolean'), 'labels are booleans (TRL casts with int())');
  assert.equal(r.labels.length, r.completions.length);
}

function isPbShape(item: unknown): asserts item is ProcessBenchItem {
  const i = item as ProcessBenchItem;
  assert.deepEqual(Object.keys(i).sort(), ['final_answer_correct', 'generator', 'id', 'label', 'problem', 'steps']);
  assert.equal(typeof i.problem, 'string');
  assert.ok(i.steps.every((s) => typeof s === 'string'));
  assert.ok(Number.isInteger(i.label) && i.label >= -1 && i.label < i.steps.length);
  assert.ok(i.final_answer_correct === null || typeof i.final_answer_correct === 'boolean');
}

function isApbShape(row: unknown): asserts row is ApbRow {
  const r = row as ApbRow;
  for (const k of ['messages', 'tools', 'step_labels', 'final_label']) assert.ok(k in r, k);
  const ids = new Set<string>();
  r.messages.forEach((m) => {
    assert.ok(['system', 'user', 'assistant', 'tool'].includes(m.role));
    assert.equal(typeof m.content, 'string');
    for (const c of m.tool_calls ?? []) {
      assert.equal(c.type, 'function');
      assert.equal(typeof c.function.name, 'string');
      assert.equal(typeof c.function.arguments, 'string', 'OpenAI tool-call arguments are a JSON string');
      JSON.parse(c.function.arguments);
      ids.add(c.id);
    }
    if (m.role === 'tool') assert.ok(m.tool_call_id && ids.has(m.tool_call_id), 'a tool message answers an earlier call');
  });
  for (const [k, v] of Object.entries(r.step_labels)) {
    assert.match(k, /^\d+$/);
    assert.equal(r.messages[Number(k)].role, 'assistant', `step_labels key ${k} is an assistant message`);
    assert.ok(v === 1 || v === 0 || v === -1);
  }
  assert.ok(r.final_label === null || [1, 0, -1].includes(r.final_label));
}

describe('labels/export', () => {
  let apb: Rollout[];
  const apbRows = sampleJsonl(APB);
  before(async () => {
    apb = (await loadFile(sample(APB))).rollouts;
  });

  describe('AgentProcessBench', () => {
    it('the reference labels of the real rows export to the same step_labels, final_label and message sequence, and load back', async () => {
      const res = exportRows('agentprocessbench', apb.map(referenceLabels));
      assert.equal(res.rows.length, 6);
      assert.deepEqual(res.skipped, []);
      res.rows.forEach((row, i) => {
        isApbShape(row);
        const orig = apbRows[i];
        assert.deepEqual(row.step_labels, orig.step_labels);
        assert.equal(row.final_label, orig.final_label);
        assert.deepEqual(row.messages.map((m) => m.role), orig.messages.map((m: { role: string }) => m.role));
        row.messages.forEach((m, k) => {
          assert.equal(m.content, orig.messages[k].content);
          if (m.tool_calls) {
            assert.deepEqual(m.tool_calls.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments)]), orig.messages[k].tool_calls.map((c: any) => [c.id, c.function.name, JSON.parse(c.function.arguments)]));
          }
        });
        assert.equal(row.record_id, apb[i].id);
        assert.equal(row.question, orig.question);
        const usesTools = orig.messages.some((m: { tool_calls?: unknown[] }) => m.tool_calls?.length);
        assert.deepEqual(row.tools, usesTools ? [{ type: 'function', function: { name: 'search' } }] : []);
      });
      const back = await roundTrip('apb.jsonl', res.text);
      assert.equal(back.format, 'agentprocessbench');
      assert.deepEqual(back.rollouts.map((r) => r.id), apb.map((r) => r.id));
      back.rollouts.forEach((r, i) => {
        assert.deepEqual(agentLabels(r), agentLabels(apb[i]));
        assert.deepEqual(r.metadata.finalLabel, apbRows[i].final_label);
        assert.deepEqual(r.steps.map((s) => [s.role, s.message, s.observations.map((o) => o.output)]), apb[i].steps.map((s) => [s.role, s.message, s.observations.map((o) => o.output)]));
      });
    });

    it('a journal-labelled real ATIF trajectory exports as an AgentProcessBench row that loads back with the labels on the same agent steps', async () => {
      const atif = (await loadFile(sample(ATIF))).rollouts[0];
      const s = await openLabelStore(path.join(tmpDir('ti-atif-'), 'j.labels.jsonl'), { annotator: 'alice', rollouts: [atif] });
      await s.apply([{ rolloutId: atif.id, stepIndex: 1, value: -1 }, { rolloutId: atif.id, stepIndex: 2, value: 1 }, { rolloutId: atif.id, stepIndex: 4, value: 0 }, { rolloutId: atif.id, stepIndex: null, value: 1 }]);
      const labels = annotatorLabels(atif, s.current(), 'alice');
      const row = toApbRow(labels);
      isApbShape(row);
      assert.equal(row.final_label, 1);
      // Step 1 has an observation but no call: it answers as a user message, not a tool message.
      assert.deepEqual(row.messages.map((m) => m.role), ['user', 'assistant', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool']);
      assert.deepEqual(row.step_labels, { '1': -1, '3': 1, '7': 0 });
      assert.deepEqual(JSON.parse(row.messages[3].tool_calls![0].function.arguments), atif.steps[2].actions[0].arguments);
      const back = await roundTrip('atif-apb.jsonl', exportRows('agentprocessbench', [labels]).text);
      assert.deepEqual(agentLabels(back.rollouts[0]), [-1, 1, null, 0]);
      assert.deepEqual(back.rollouts[0].steps.filter((s) => s.role === 'agent').map((s) => s.message), atif.steps.filter((s) => s.role === 'agent').map((s) => s.message));
    });
  });

  describe('TRL stepwise supervision', () => {
    it('renders a step as its message, <tool_call> blocks and <tool_response> blocks; the prompt is what precedes the first agent step', () => {
      const r = apb[0];
      const s = r.steps[2];
      const orig = apbRows[0].messages;
      assert.equal(
        stepText(s),
        `<tool_call>\n${JSON.stringify({ name: 'search', arguments: JSON.parse(orig[2].tool_calls[0].function.arguments) })}\n</tool_call>\n<tool_response>\n${orig[3].content}\n</tool_response>`,
      );
      assert.equal(promptText(r), `${orig[0].content}\n\n${orig[1].content}`);
      // A command that the message already shows is not repeated.
      const shell = { ...s, message: 'run:\n```bash\nls -la\n```', actions: [{ kind: 'shell' as const, command: 'ls -la', tool: null, callId: null }], observations: [] };
      assert.equal(stepText(shell), 'run:\n```bash\nls -la\n```');
      assert.equal(stepText({ ...shell, message: '' }), `<tool_call>\n{"name":"bash","arguments":{"command":"ls -la"}}\n</tool_call>`);
    });

    it('the real rows export with booleans (neutral → false by default, true with positive) and load back', async () => {
      for (const neutral of ['negative', 'positive'] as const) {
        const res = exportRows('trl', apb.map(referenceLabels), neutral);
        assert.equal(res.rows.length, 6);
        res.rows.forEach((row, i) => {
          isTrlShape(row);
          const expected = agentLabels(apb[i]).map((v) => v === 1 || (v === 0 && neutral === 'positive'));
          assert.deepEqual(row.labels, expected);
          assert.equal(row.completions.length, apb[i].steps.filter((s) => s.role === 'agent').length);
          assert.equal(row.prompt, promptText(apb[i]));
        });
        if (neutral === 'negative') assert.deepEqual(exportRows('trl', [referenceLabels(apb[1])]).rows, [res.rows[1]], 'negative is the default');
        const back = await roundTrip(`trl-${neutral}.jsonl`, res.text);
        assert.equal(back.format, 'trl-stepwise');
        back.rollouts.forEach((r, i) => {
          assert.deepEqual(agentLabels(r), (res.rows[i] as TrlRow).labels.map((b) => (b ? 1 : -1)));
          assert.deepEqual(r.steps.filter((s) => s.role === 'agent').map((s) => s.message), (res.rows[i] as TrlRow).completions);
          assert.equal(r.steps[0].message, promptText(apb[i]));
        });
      }
    });

    it('neutral → drop folds the neutral step into the next labelled completion; unlabelled trailing steps are cut', () => {
      const r1 = referenceLabels(apb[1]); // agent labels +1, 0, −1, −1
      const units = apb[1].steps.filter((s) => s.role === 'agent').map(stepText);
      const row = toTrlRow(r1, 'drop') as TrlRow;
      assert.deepEqual(row.labels, [true, false, false]);
      assert.deepEqual(row.completions, [units[0], `${units[1]}\n${units[2]}`, units[3]]);
      // Labels only on the first two agent steps: the rest are not exported.
      const partial: RolloutLabels = { ...r1, steps: new Map([[2, 1], [3, -1]]) };
      assert.deepEqual((toTrlRow(partial, 'negative') as TrlRow).completions, units.slice(0, 2));
      // Nothing labelled: skipped with the reason.
      assert.deepEqual(toTrlRow({ ...r1, steps: new Map() }, 'negative'), { rolloutId: apb[1].id, reason: 'no agent step has a label' });
    });

    it('ProcessBench items (the real gsm8k split) export to TRL rows holding the paragraphs up to the first error', async () => {
      const items = sampleJson<any[]>(PB);
      const pb = (await loadFile(sample(PB))).rollouts;
      const res = exportRows('trl', pb.map(referenceLabels));
      assert.equal(res.rows.length, items.length);
      res.rows.forEach((row, i) => {
        isTrlShape(row);
        const it = items[i];
        const n = it.label === -1 ? it.steps.length : it.label + 1;
        assert.deepEqual(row, { prompt: it.problem, completions: it.steps.slice(0, n), labels: it.steps.slice(0, n).map((_: string, k: number) => k !== it.label) });
      });
    });
  });

  describe('ProcessBench', () => {
    it('the real gsm8k split exports back to the same items (id, generator, problem, steps, label, final_answer_correct)', async () => {
      const items = sampleJson<any[]>(PB);
      const pb = (await loadFile(sample(PB))).rollouts;
      const res = exportRows('processbench', pb.map(referenceLabels));
      assert.deepEqual(res.skipped, []);
      assert.equal(res.rows.length, items.length);
      res.rows.forEach((row, i) => {
        isPbShape(row);
        const it = items[i];
        assert.deepEqual(row, { id: it.id, generator: it.generator, problem: it.problem, steps: it.steps, label: it.label, final_answer_correct: it.final_answer_correct });
      });
      assert.ok(items.some((i) => i.label === -1) && items.some((i) => i.label > 0));
      assert.deepEqual(JSON.parse(res.text), res.rows, 'the file is a JSON array');
      const back = await roundTrip('pb.json', res.text);
      assert.equal(back.format, 'processbench');
      back.rollouts.forEach((r, i) => assert.deepEqual(agentLabels(r), agentLabels(pb[i])));
    });

    it('AgentProcessBench rows get label = position of the first −1 (neutral counts as an error only under negative); loads back', async () => {
      // Agent labels of the six rows: [1,1,1,−1] [1,0,−1,−1] [1,1,0,−1] [1,0,−1] [1] [−1]
      const expect = { negative: [3, 1, 2, 1, -1, 0], positive: [3, 2, 3, 2, -1, 0], drop: [3, 2, 3, 2, -1, 0] };
      for (const neutral of ['negative', 'positive', 'drop'] as const) {
        const res = exportRows('processbench', apb.map(referenceLabels), neutral);
        assert.deepEqual(res.rows.map((r) => (r as ProcessBenchItem).label), expect[neutral]);
        res.rows.forEach((row, i) => {
          isPbShape(row);
          assert.equal(row.final_answer_correct, apbRows[i].final_label === 1);
          assert.equal(row.steps.length, agentLabels(apb[i]).length);
        });
        const back = await roundTrip(`pb-${neutral}.json`, res.text);
        back.rollouts.forEach((r, i) => {
          const fe = r.steps.filter((s) => s.role === 'agent').findIndex((s) => s.referenceLabel?.firstError);
          assert.equal(fe, expect[neutral][i]);
        });
      }
    });

    it('a rollout whose labels define no first error is skipped with the reason', () => {
      const r = referenceLabels(apb[0]); // agent steps 2–5
      assert.deepEqual(toProcessBenchItem({ ...r, steps: new Map([[2, 1], [4, -1]]) }, 'negative'), {
        rolloutId: apb[0].id,
        reason: 'no first error can be given: agent step 3 before the first error has no label',
      });
      assert.deepEqual(toProcessBenchItem({ ...r, steps: new Map([[2, 1], [3, 1], [4, 1]]) }, 'negative'), {
        rolloutId: apb[0].id,
        reason: 'no first error can be given: no error labelled and agent step 5 has no label',
      });
      // Labels after the first error are not needed.
      assert.equal((toProcessBenchItem({ ...r, steps: new Map([[2, 1], [3, -1]]) }, 'negative') as ProcessBenchItem).label, 1);
    });
  });

  describe('label selection', () => {
    it("an annotator's labels win over the reference; stale labels are left out unless asked for", async () => {
      const s = await openLabelStore(path.join(tmpDir('ti-sel-'), 'j.labels.jsonl'), { annotator: 'alice', rollouts: apb });
      await s.apply([{ rolloutId: apb[0].id, stepIndex: 5, value: 0 }, { rolloutId: apb[0].id, stepIndex: 3, value: -1 }, { rolloutId: apb[0].id, stepIndex: null, value: 1 }]);
      const mine = annotatorLabels(apb[0], s.current(), 'alice');
      const both = withFallback(mine, referenceLabels(apb[0]));
      assert.deepEqual([...both.steps].sort((a, b) => a[0] - b[0]), [[2, 1], [3, -1], [4, 1], [5, 0]]);
      assert.equal(both.verdict, 1);
      assert.deepEqual(labelsFrom(apb[0], s.current(), REFERENCE).steps, referenceLabels(apb[0]).steps);
      // Step 3 changes in the source: its label is stale.
      const changed = JSON.parse(JSON.stringify(apb)) as Rollout[];
      changed[0].steps[3].message = 'edited';
      const t = await openLabelStore(s.path, { annotator: 'alice', rollouts: changed });
      const fresh = annotatorLabels(changed[0], t.current(), 'alice');
      assert.deepEqual([[...fresh.steps.keys()], fresh.staleLeftOut], [[5], 1]);
      assert.deepEqual([...annotatorLabels(changed[0], t.current(), 'alice', true).steps.keys()].sort(), [3, 5]);
    });

    it('selectForExport: the source, the reference where asked, the verdict falling back to the data, stale counted', async () => {
      const s = await openLabelStore(path.join(tmpDir('ti-sel-'), 'j.labels.jsonl'), { annotator: 'alice', rollouts: apb });
      await s.apply([{ rolloutId: apb[4].id, stepIndex: 2, value: -1 }, { rolloutId: apb[5].id, stepIndex: null, value: 1 }]);
      const only = selectForExport(apb, s.current(), { source: 'alice' });
      assert.deepEqual(only.map((l) => [...l.steps]), [[], [], [], [], [[2, -1]], []]);
      // Verdicts: alice's on r5, else the rows' own final_label.
      assert.deepEqual(only.map((l) => l.verdict), [-1, -1, -1, -1, 1, 1]);
      const withRef = selectForExport(apb, s.current(), { source: 'alice', includeReference: true });
      assert.deepEqual(withRef.map((l) => l.steps.get(2)), [1, 1, 1, 1, -1, -1]);
      const refOnly = selectForExport(apb, s.current(), { source: null, includeReference: true });
      assert.deepEqual(refOnly.map((l) => l.steps.get(2)), [1, 1, 1, 1, 1, -1]);
      assert.deepEqual(selectForExport(apb, s.current(), { source: null }).map((l) => l.steps.size), [0, 0, 0, 0, 0, 0]);
      const changed = JSON.parse(JSON.stringify(apb)) as Rollout[];
      changed[4].steps[2].message = 'edited';
      const t = await openLabelStore(s.path, { annotator: 'alice', rollouts: changed });
      assert.deepEqual(selectForExport(changed, t.current(), { source: 'alice' }).map((l) => l.staleLeftOut), [0, 0, 0, 0, 1, 0]);
      assert.equal(selectForExport(changed, t.current(), { source: 'alice', includeStale: true })[4].steps.get(2), -1);
    });
  });
});
