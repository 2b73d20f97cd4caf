/**
 * Process-label dataset loaders (AgentProcessBench, ProcessBench, PRM800K, TRL stepwise) on the
 * real samples in ../shared/samples/process-labels.
 *
 * Expected values are read out of the sample files by the test itself. No public JSONL of TRL's
 * stepwise-supervision shape is known, so the TRL rows are derived from the real samples the way
 * TRL's own converters do it: PRM800K → rows with `huggingface/trl` `examples/datasets/prm800k.py`
 * (`process_example`, ported below), ProcessBench → one row per item holding the paragraphs up to
 * and including the first wrong one (`labels` true before it, false at it), i.e. exactly what
 * ProcessBench states.
 */
import * as assert from 'node:assert/strict';
import { UnknownFormatError } from '../../../src/core/errors';
import { agentProcessBenchLoader } from '../../../src/core/formats/agentProcessBench';
import { prm800kLoader } from '../../../src/core/formats/prm800k';
import { processBenchLoader } from '../../../src/core/formats/processBench';
import { LABEL_SOURCE } from '../../../src/core/formats/processLabelRecords';
import { pickLoader } from '../../../src/core/formats/registry';
import { trlStepwiseLoader } from '../../../src/core/formats/trlStepwise';
import type { FormatLoader } from '../../../src/core/formats/types';
import { loadFile, makeInput } from '../../../src/core/load';
import { Rollout, type Step } from '../../../src/core/model';
import { nodeFiles } from '../../../src/core/nodeFiles';
import { acceptedBy, loadError, position, sample, sampleJson, sampleJsonl, sampleText, tmpFile } from '../samples';

const APB = 'process-labels/agentprocessbench_hotpotqa_subset_lines_1-46-51-52-94-99.jsonl';
const PB = 'process-labels/processbench_gsm8k.json';
const PRM = 'process-labels/prm800k-phase2-test-example.json';

const MINE: FormatLoader[] = [agentProcessBenchLoader, processBenchLoader, prm800kLoader, trlStepwiseLoader];

function labelOf(s: Step): number | null {
  return s.referenceLabel ? s.referenceLabel.value : null;
}

/** The first step with `firstError`, as the test finds it. */
function firstErrorSteps(r: Rollout): number[] {
  return r.steps.filter((s) => s.referenceLabel?.firstError).map((s) => s.index);
}

describe('formats/processLabels', () => {
  // -------------------------------------------------------------------------------------------
  describe('AgentProcessBench sample (6 real hotpotqa rows)', () => {
    const rows = sampleJsonl(APB);
    let rollouts: Rollout[];
    before(async () => {
      const loaded = await loadFile(sample(APB));
      assert.equal(loaded.format, 'agentprocessbench');
      assert.equal(loaded.issues, undefined);
      rollouts = loaded.rollouts;
    });

    it('reads one rollout per row with the dataset record id, line, query group and question', () => {
      assert.equal(rollouts.length, 6);
      assert.equal(rows.length, 6);
      rollouts.forEach((r, i) => {
        Rollout.parse(r);
        const row = rows[i];
        assert.equal(r.id, `${row.data_source}:${row.query_index}:${row.sample_index}`);
        assert.equal(r.source.line, i + 1);
        assert.equal(r.task.id, `${row.data_source}:${row.query_index}`);
        assert.equal(r.groupId, r.task.id);
        assert.equal(r.task.instruction, row.question);
        assert.deepEqual(r.metadata.groundTruth, row.ground_truth);
        assert.equal(r.metadata.answerText, row.answer_text);
        assert.equal(r.metadata.finalLabel, row.final_label);
      });
      assert.equal(rollouts[0].id, 'searchR1_hotpotqa:0:0');
      // lines 51 and 52 of the dataset are two samples of query 10: one group, two rollouts
      assert.equal(rollouts[2].groupId, 'searchR1_hotpotqa:10');
      assert.equal(rollouts[3].groupId, 'searchR1_hotpotqa:10');
      assert.notEqual(rollouts[2].id, rollouts[3].id);
    });

    it('maps step_labels message indices to the right steps (tool messages fold into the step before)', () => {
      rollouts.forEach((r, i) => {
        const msgs: any[] = rows[i].messages;
        assert.equal(r.steps.length, msgs.filter((m) => m.role !== 'tool').length);
        const labels: Record<string, number> = rows[i].step_labels;
        for (const [key, value] of Object.entries(labels)) {
          const k = Number(key);
          assert.equal(msgs[k].role, 'assistant');
          const toolsBefore = msgs.slice(0, k).filter((m) => m.role === 'tool').length;
          const step = r.steps[k - toolsBefore];
          assert.equal(step.sourceId, k);
          assert.equal(step.role, 'agent');
          assert.equal(labelOf(step), value);
          assert.equal(step.referenceLabel!.source, LABEL_SOURCE.agentprocessbench);
        }
        assert.equal(r.steps.filter((s) => s.referenceLabel).length, Object.keys(labels).length);
        assert.equal(r.metadata.labelledSteps, Object.keys(labels).length);
      });
      // Row 1 (dataset line 1): {"2": 1, "4": 1, "6": 1, "8": -1} over 9 messages → steps 2..5.
      const r0 = rollouts[0];
      assert.deepEqual(rows[0].step_labels, { '2': 1, '4': 1, '6': 1, '8': -1 });
      assert.deepEqual(r0.steps.map((s) => s.role), ['system', 'user', 'agent', 'agent', 'agent', 'agent']);
      assert.deepEqual(r0.steps.map(labelOf), [null, null, 1, 1, 1, -1]);
      assert.deepEqual(r0.steps.map((s) => s.sourceId), [0, 1, 2, 4, 6, 8]);
    });

    it('marks the first −1 (smallest message index, as eval/compare.py) as firstError, once', () => {
      rollouts.forEach((r, i) => {
        const neg = Object.entries(rows[i].step_labels as Record<string, number>)
          .filter(([, v]) => v === -1)
          .map(([k]) => Number(k));
        const first = neg.length ? Math.min(...neg) : null;
        const marked = firstErrorSteps(r);
        if (first === null) assert.deepEqual(marked, []);
        else assert.deepEqual(marked.map((s) => r.steps[s].sourceId), [first]);
        assert.equal(r.metadata.firstErrorStep, marked[0] ?? null);
      });
      // Dataset line 46: {"2": 1, "4": 0, "6": -1, "8": -1}: message 6 (step 4) is the first error; step 5 is −1 without it.
      const r1 = rollouts[1];
      assert.deepEqual(r1.steps.map(labelOf), [null, null, 1, 0, -1, -1]);
      assert.equal(r1.steps[4].referenceLabel!.firstError, true);
      assert.equal(r1.steps[5].referenceLabel!.firstError, undefined);
    });

    it('reads assistant tool calls as actions and tool messages as their observations', () => {
      const msgs: any[] = rows[0].messages;
      const call = msgs[2].tool_calls[0];
      const step = rollouts[0].steps[2];
      assert.equal(step.actions.length, 1);
      assert.equal(step.actions[0].kind, 'tool');
      assert.equal(step.actions[0].tool, 'search');
      assert.equal(step.actions[0].callId, call.id);
      assert.deepEqual(step.actions[0].arguments, JSON.parse(call.function.arguments));
      assert.equal(step.observations.length, 1);
      assert.equal(step.observations[0].callId, msgs[3].tool_call_id);
      assert.equal(step.observations[0].output, msgs[3].content);
      assert.equal(step.observations[0].exitCode, null);
      // the final answer message has no tool call
      const last = rollouts[0].steps[5];
      assert.equal(last.message, msgs[8].content);
      assert.deepEqual(last.actions, []);
      assert.equal(rollouts[0].metadata.tools instanceof Array, true);
      assert.deepEqual(rollouts[0].metadata.tools, rows[0].tools.map((t: any) => t.function.name));
    });

    it('points each step range at its message in the file', () => {
      const text = sampleText(APB);
      const msgs: any[] = rows[0].messages;
      for (const s of rollouts[0].steps) {
        const slice = text.slice(s.range!.start, s.range!.end);
        assert.deepEqual(JSON.parse(slice), msgs[s.sourceId as number]);
      }
    });

    it('maps final_label to outcome.resolved (+1 true, −1 false)', () => {
      rollouts.forEach((r, i) => {
        const fl = rows[i].final_label;
        assert.equal(r.outcome.resolved, fl === 1 ? true : fl === -1 ? false : null);
        assert.equal(r.outcome.source, 'final_label');
        assert.equal(r.outcome.reward, null);
      });
      assert.deepEqual(rows.map((r) => r.final_label), [-1, -1, -1, -1, 1, -1]);
      assert.equal(rollouts[4].outcome.resolved, true);
    });

    it('detects rows with messages + step_labels at confidence 1 and wins the registry pick', () => {
      const input = makeInput(sample(APB), sampleText(APB), nodeFiles);
      assert.deepEqual(agentProcessBenchLoader.detect(input), { accept: true, confidence: 1 });
      assert.equal(pickLoader(input), agentProcessBenchLoader);
      assert.deepEqual(acceptedBy(MINE, sample(APB), sampleText(APB)), ['agentprocessbench']);
    });

    it('declines label-only rows (AnswerOnly shape) and rows without step_labels', async () => {
      const labelOnly = rows.map((r) => JSON.stringify({ record_id: `${r.data_source}:${r.query_index}:${r.sample_index}`, step_labels: r.step_labels, final_label: r.final_label })).join('\n');
      const f = tmpFile('hotpotqa_final.jsonl', labelOnly + '\n');
      const d = agentProcessBenchLoader.detect(makeInput(f, labelOnly, nodeFiles));
      assert.equal(d.accept, false);
      assert.match((d as { reason: string }).reason, /label-only row \(searchR1_hotpotqa:0:0\)/);
      await assert.rejects(loadFile(f), UnknownFormatError);
      const chatOnly = rows.map((r) => JSON.stringify({ ...r, step_labels: undefined })).join('\n');
      assert.deepEqual(acceptedBy(MINE, '/x/chat.jsonl', chatOnly), []);
    });

    it('leaves out a row whose step_labels key is not an assistant message, with a located issue', async () => {
      const lines = sampleText(APB).split('\n').filter((l) => l !== '');
      const row = JSON.parse(lines[1]);
      row.step_labels = { '2': 1, '3': 0, '6': -1, '8': -1 }; // message 3 is a tool message
      lines[1] = JSON.stringify(row);
      const text = lines.join('\n') + '\n';
      const loaded = await loadFile(tmpFile('apb.jsonl', text));
      assert.equal(loaded.rollouts.length, 5);
      assert.deepEqual(loaded.rollouts.map((r) => r.source.line), [1, 3, 4, 5, 6]);
      assert.equal(loaded.issues!.length, 1);
      const issue = loaded.issues![0];
      assert.equal(issue.pointer, '/step_labels/3');
      const at = text.indexOf('"3":0', text.indexOf('\n')) + '"3":'.length;
      assert.deepEqual({ line: issue.line, column: issue.column }, position(text, at));
      assert.match(issue.found, /messages\[3\] has role "tool"/);
      assert.equal((loaded.rollouts[0].metadata.warnings as string[]).length, 1);
    });

    it('reports a wrong type with pointer and line, and a truncated last row', async () => {
      const lines = sampleText(APB).split('\n').filter((l) => l !== '');
      const row = JSON.parse(lines[2]);
      row.final_label = 'bad';
      lines[2] = JSON.stringify(row);
      const cut = lines.slice(0, 5).join('\n') + '\n' + lines[5].slice(0, 200);
      const text = lines.slice(0, 5).join('\n') + '\n';
      const loaded = await loadFile(tmpFile('apb.jsonl', text));
      assert.equal(loaded.rollouts.length, 4);
      assert.equal(loaded.issues![0].pointer, '/final_label');
      assert.equal(loaded.issues![0].line, 3);
      assert.equal(loaded.issues![0].found, 'string "bad"');
      const loadedCut = await loadFile(tmpFile('apb.jsonl', cut));
      assert.equal(loadedCut.rollouts.length, 4);
      assert.equal(loadedCut.issues!.length, 2);
      assert.equal(loadedCut.issues![1].line, 6);
      assert.match(loadedCut.issues![1].expected, /valid JSON/);
    });

    it('fails the file with every issue when no row is valid (never a TypeError)', async () => {
      const text = [
        JSON.stringify({ messages: [{ role: 5 }], step_labels: {} }),
        JSON.stringify({ messages: 'x', step_labels: {} }),
        JSON.stringify({ messages: [{ role: 'assistant', tool_calls: [{ id: 'a', function: null }] }], step_labels: { '0': 2 } }),
        JSON.stringify({ messages: [], step_labels: { x: 1 } }),
      ].join('\n');
      const e = await loadError(tmpFile('bad.jsonl', text));
      assert.equal(e.format, 'AgentProcessBench row');
      assert.deepEqual(
        e.issues.map((i) => [i.line, i.pointer]),
        [
          [1, '/messages/0/role'],
          [2, '/messages'],
          [3, '/messages/0/tool_calls/0/function'],
          [3, '/step_labels/0'],
          [4, '/step_labels/x'],
        ],
      );
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('ProcessBench sample (gsm8k split, 400 items)', () => {
    const items: any[] = sampleJson(PB);
    let rollouts: Rollout[];
    let ms: number;
    before(async () => {
      const t0 = performance.now();
      const loaded = await loadFile(sample(PB));
      ms = performance.now() - t0;
      assert.equal(loaded.format, 'processbench');
      assert.equal(loaded.issues, undefined);
      rollouts = loaded.rollouts;
    });

    it('reads every item as one rollout, quickly', () => {
      assert.equal(items.length, 400);
      assert.equal(rollouts.length, 400);
      assert.ok(ms < 3000, `loading took ${ms} ms`);
      rollouts.forEach((r, i) => {
        assert.equal(r.id, items[i].id);
        assert.equal(r.task.id, items[i].id);
        assert.equal(r.task.instruction, items[i].problem);
        assert.equal(r.agent.model, items[i].generator);
        assert.equal(r.steps.length, items[i].steps.length + 1);
        assert.equal(r.steps[0].role, 'user');
        assert.deepEqual(r.steps.slice(1).map((s) => s.message), items[i].steps);
      });
      Rollout.parse(rollouts[0]);
      Rollout.parse(rollouts[399]);
    });

    it('turns label into +1 before the first error, −1 + firstError at it, null after; all +1 for −1', () => {
      rollouts.forEach((r, i) => {
        const label: number = items[i].label;
        const expected = items[i].steps.map((_: string, j: number) => (label === -1 || j < label ? 1 : j === label ? -1 : null));
        assert.deepEqual(r.steps.slice(1).map(labelOf), expected, items[i].id);
        assert.equal(labelOf(r.steps[0]), null);
        assert.deepEqual(firstErrorSteps(r), label === -1 ? [] : [label + 1]);
        assert.equal(r.metadata.label, label);
      });
      const withError = rollouts.filter((r) => firstErrorSteps(r).length === 1).length;
      assert.equal(withError, items.filter((it) => it.label !== -1).length);
      assert.equal(withError, 207); // ProcessBench code/run_eval_prm_trl.py: gsm8k [207 error, 193 correct]
      // gsm8k-0: label 1 → paragraph 1 (step 2) is the first error, paragraphs 2–3 unlabelled
      assert.equal(items[0].label, 1);
      assert.deepEqual(rollouts[0].steps.map(labelOf), [null, 1, -1, null, null]);
      assert.equal(rollouts[0].steps[2].referenceLabel!.source, LABEL_SOURCE.processbench);
    });

    it('sets outcome.resolved from final_answer_correct', () => {
      rollouts.forEach((r, i) => {
        assert.equal(r.outcome.resolved, items[i].final_answer_correct);
        assert.equal(r.outcome.source, 'final_answer_correct');
      });
      assert.equal(rollouts.filter((r) => r.outcome.resolved).length, 200);
    });

    it('points step ranges at the paragraph strings in the file', () => {
      const text = sampleText(PB);
      for (const r of [rollouts[0], rollouts[250]]) {
        const item = items[rollouts.indexOf(r)];
        assert.equal(JSON.parse(text.slice(r.steps[0].range!.start, r.steps[0].range!.end)), item.problem);
        r.steps.slice(1).forEach((s, j) => assert.equal(JSON.parse(text.slice(s.range!.start, s.range!.end)), item.steps[j]));
        assert.deepEqual(JSON.parse(text.slice(r.source.range!.start, r.source.range!.end)), item);
      }
    });

    it('is detected as ProcessBench only', () => {
      assert.deepEqual(acceptedBy(MINE, sample(PB), sampleText(PB)), ['processbench']);
      assert.equal(pickLoader(makeInput(sample(PB), sampleText(PB), nodeFiles)), processBenchLoader);
    });

    it('leaves out an item with a label outside −1…n−1 or a wrong type, located', async () => {
      const bad = structuredClone(items);
      bad[3].label = bad[3].steps.length; // one past the last paragraph
      bad[5].steps = 'x';
      const text = JSON.stringify(bad, null, 2);
      const loaded = await loadFile(tmpFile('gsm8k.json', text));
      assert.equal(loaded.rollouts.length, 398);
      assert.deepEqual(loaded.issues!.map((i) => i.pointer), ['/3/label', '/5/steps']);
      const labelAt = text.indexOf(`"label": ${bad[3].label}`, text.indexOf('"id": "gsm8k-3"')) + '"label": '.length;
      assert.deepEqual({ line: loaded.issues![0].line, column: loaded.issues![0].column }, position(text, labelAt));
      assert.match(loaded.issues![0].expected, /-1 \(no wrong step\) or the index of a step \(0–3\)/);
      assert.equal(loaded.issues![1].found, 'string "x"');
    });

    it('reads a single item object and a truncated array fails with a located syntax error', async () => {
      const one = await loadFile(tmpFile('item.json', JSON.stringify(items[7], null, 2)));
      assert.equal(one.rollouts.length, 1);
      assert.equal(one.rollouts[0].id, items[7].id);
      assert.equal(one.rollouts[0].source.range, null);
      const text = sampleText(PB);
      const cut = text.slice(0, 5000);
      const e = await loadError(tmpFile('gsm8k.json', cut));
      assert.equal(e.format, null);
      assert.match(e.issues[0].expected, /valid JSON/);
      assert.equal(e.issues[0].line, cut.split('\n').length);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('PRM800K sample (phase 2 test example)', () => {
    const rec: any = sampleJson(PRM);
    let r: Rollout;
    before(async () => {
      const loaded = await loadFile(sample(PRM));
      assert.equal(loaded.format, 'prm800k');
      assert.equal(loaded.rollouts.length, 1);
      r = loaded.rollouts[0];
    });

    it('reads the problem and every labelled step with its rating, then the unlabelled pre-generated rest', () => {
      Rollout.parse(r);
      const labelSteps: any[] = rec.label.steps;
      const pre: string[] = rec.question.pre_generated_steps;
      assert.equal(labelSteps.length, 7);
      assert.equal(pre.length, 13);
      assert.equal(r.steps.length, 1 + pre.length);
      assert.equal(r.steps[0].role, 'user');
      assert.equal(r.steps[0].message, rec.question.problem);
      assert.equal(r.task.instruction, rec.question.problem);
      labelSteps.forEach((s, k) => {
        const picked = s.completions[s.chosen_completion ?? 0];
        assert.equal(r.steps[k + 1].message, picked.text);
        assert.equal(r.steps[k + 1].message, pre[k]);
        assert.equal(labelOf(r.steps[k + 1]), picked.rating);
        assert.equal(r.steps[k + 1].sourceId, k);
      });
      assert.deepEqual(r.steps.map(labelOf), [null, 1, 0, 1, 1, 1, 1, -1, null, null, null, null, null, null]);
      assert.deepEqual(r.steps.slice(8).map((s) => s.message), pre.slice(7));
      assert.equal(r.steps[13].message, '# Answer\n\n7200');
      assert.equal(r.steps[7].referenceLabel!.source, LABEL_SOURCE.prm800k);
      assert.deepEqual(firstErrorSteps(r), [7]);
      assert.equal(r.metadata.preGenerated, 'appended');
      assert.deepEqual(r.metadata.picks, ['chosen', 'chosen', 'chosen', 'chosen', 'chosen', 'chosen', 'first']);
    });

    it('keeps the alternative completions of the last step and labeler data in metadata', () => {
      const alts = r.metadata.alternatives as any[];
      assert.equal(alts.length, 1);
      assert.equal(alts[0].step, 7);
      assert.equal(alts[0].chosen, null);
      assert.deepEqual(alts[0].completions.map((c: any) => c.rating), rec.label.steps[6].completions.map((c: any) => c.rating));
      assert.deepEqual(alts[0].completions.map((c: any) => c.rating), [-1, 1, 1, 1]);
      assert.equal(r.metadata.labeler, rec.labeler);
      assert.equal(r.metadata.timestamp, rec.timestamp);
      assert.equal(r.metadata.generation, 6);
      assert.equal(r.metadata.phase, 2);
      assert.equal(r.metadata.totalTimeMs, rec.label.total_time);
      assert.equal(r.metadata.groundTruthAnswer, '28800');
      assert.equal(r.metadata.preGeneratedAnswer, '7200');
    });

    it('takes the status from finish_reason (resolved only for "solution")', () => {
      assert.equal(r.outcome.status, 'found_error');
      assert.equal(r.outcome.resolved, null);
      assert.equal(r.outcome.reward, null);
      assert.equal(r.id, `${sample(PRM)}#0`);
    });

    it('reads concatenated pretty-printed records (as published) one rollout each, with lines', async () => {
      const text = sampleText(PRM);
      const twice = text.trimEnd() + '\n' + text;
      const loaded = await loadFile(tmpFile('prm800k-example.json', twice));
      assert.equal(loaded.format, 'prm800k');
      assert.equal(loaded.rollouts.length, 2);
      const secondLine = text.trimEnd().split('\n').length + 1;
      assert.deepEqual(loaded.rollouts.map((x) => x.source.line), [1, secondLine]);
      assert.deepEqual(loaded.rollouts.map((x) => x.id.replace(/^.*#/, '')), ['0', '1']);
      assert.deepEqual(loaded.rollouts[1].steps.map(labelOf), r.steps.map(labelOf));
      const s = loaded.rollouts[1].steps[7].range!;
      assert.deepEqual(JSON.parse(twice.slice(s.start, s.end)), rec.label.steps[6]);
    });

    it('shows a chosen alternative and a human completion (+1 by the README) as the path', async () => {
      // Phase-1 style branches, written into the real record: step 7 continues with completion 1,
      // step 6 with a labeler-written completion (README: "write their own +1 step").
      const p1 = structuredClone(rec);
      p1.generation = null;
      delete p1.question.pre_generated_steps;
      p1.label.steps[6].chosen_completion = 1;
      p1.label.steps[5] = { ...p1.label.steps[5], chosen_completion: null, human_completion: { text: 'Human step.', rating: null, source: 'human', flagged: false } };
      const loaded = await loadFile(tmpFile('p1.json', JSON.stringify(p1, null, 2)));
      const x = loaded.rollouts[0];
      assert.equal(x.steps.length, 8);
      assert.equal(x.steps[6].message, 'Human step.');
      assert.equal(labelOf(x.steps[6]), 1);
      assert.equal(x.steps[7].message, rec.label.steps[6].completions[1].text);
      assert.equal(labelOf(x.steps[7]), 1);
      assert.deepEqual(firstErrorSteps(x), []);
      assert.equal(x.metadata.phase, 1);
      assert.deepEqual(x.metadata.picks, ['chosen', 'chosen', 'chosen', 'chosen', 'chosen', 'human', 'chosen']);
    });

    it('is detected as PRM800K only', () => {
      assert.deepEqual(acceptedBy(MINE, sample(PRM), sampleText(PRM)), ['prm800k']);
    });

    it('fails with located issues for a bad rating and an out-of-range chosen_completion', async () => {
      const bad = structuredClone(rec);
      bad.label.steps[3].completions[0].rating = 2;
      const text = JSON.stringify(bad, null, 4);
      const e = await loadError(tmpFile('prm.json', text));
      assert.equal(e.format, 'PRM800K record');
      assert.equal(e.issues[0].pointer, '/label/steps/3/completions/0/rating');
      assert.equal(e.issues[0].found, 'number 2');
      assert.deepEqual({ line: e.issues[0].line, column: e.issues[0].column }, position(text, text.indexOf('"rating": 2') + '"rating": '.length));
      const bad2 = structuredClone(rec);
      bad2.label.steps[1].chosen_completion = 9;
      const e2 = await loadError(tmpFile('prm.json', JSON.stringify(bad2, null, 4)));
      assert.equal(e2.issues[0].pointer, '/label/steps/1/chosen_completion');
      assert.match(e2.issues[0].expected, /index into completions \(0–0\)/);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('TRL stepwise supervision (rows derived from the real samples)', () => {
    /** `huggingface/trl` `examples/datasets/prm800k.py` `process_example`, ported. */
    function trlFromPrm800k(example: any): { prompt: string; completions: string[]; labels: boolean[] }[] {
      const outputs: { prompt: string; completions: string[]; labels: boolean[] }[] = [];
      const prompt = example.question.problem;
      const prevC: string[] = [];
      const prevL: boolean[] = [];
      for (const step of example.label.steps) {
        if (step.completions === null && step.human_completion === null && step.chosen_completion === null) break;
        step.completions.forEach((c: any, idx: number) => {
          if (idx !== step.chosen_completion) outputs.push({ prompt, completions: [...prevC, c.text], labels: [...prevL, c.rating === 1] });
        });
        let chosen: any;
        let label: boolean;
        if (step.chosen_completion !== null) {
          chosen = step.completions[step.chosen_completion];
          label = chosen.rating === 1;
        } else if (step.human_completion !== null) {
          chosen = step.human_completion;
          label = true;
        } else break;
        prevC.push(chosen.text);
        prevL.push(label);
      }
      outputs.push({ prompt, completions: prevC, labels: prevL });
      return outputs;
    }
    const rec: any = sampleJson(PRM);
    const prmRows = trlFromPrm800k(rec);
    const pbItems: any[] = sampleJson(PB);
    const pbRows = pbItems.map((it) => {
      const n = it.label === -1 ? it.steps.length : it.label + 1;
      return { prompt: it.problem, completions: it.steps.slice(0, n), labels: it.steps.slice(0, n).map((_: string, j: number) => it.label === -1 || j < it.label) };
    });

    it('reads the rows TRL derives from the PRM800K sample (JSONL), labels true → +1, false → −1', async () => {
      // chosen_completion is null at step 7: its 4 completions are terminal rows, then the 6-step prefix.
      assert.equal(prmRows.length, 5);
      const text = prmRows.map((x) => JSON.stringify(x)).join('\n') + '\n';
      const loaded = await loadFile(tmpFile('prm800k_trl.jsonl', text));
      assert.equal(loaded.format, 'trl-stepwise');
      assert.equal(loaded.rollouts.length, 5);
      loaded.rollouts.forEach((r, i) => {
        Rollout.parse(r);
        assert.equal(r.source.line, i + 1);
        assert.equal(r.task.instruction, rec.question.problem);
        assert.equal(r.steps.length, prmRows[i].completions.length + 1);
        assert.deepEqual(r.steps.slice(1).map((s) => s.message), prmRows[i].completions);
        assert.deepEqual(r.steps.slice(1).map(labelOf), prmRows[i].labels.map((l) => (l ? 1 : -1)));
        assert.equal(r.steps[1].referenceLabel!.source, LABEL_SOURCE.trlStepwise);
      });
      // TRL maps rating 0 (step 2, "I wonder how many ways…") to false: the first −1 of every row.
      assert.equal(rec.label.steps[1].completions[0].rating, 0);
      assert.deepEqual(firstErrorSteps(loaded.rollouts[4]), [2]);
      assert.deepEqual(loaded.rollouts[0].steps.map(labelOf), [null, 1, -1, 1, 1, 1, 1, -1]);
      assert.deepEqual(loaded.rollouts[1].steps.map(labelOf), [null, 1, -1, 1, 1, 1, 1, 1]);
    });

    it('reads ProcessBench-derived rows as a JSON array with the same first errors', async () => {
      const loaded = await loadFile(tmpFile('processbench_trl.json', JSON.stringify(pbRows)));
      assert.equal(loaded.format, 'trl-stepwise');
      assert.equal(loaded.rollouts.length, 400);
      loaded.rollouts.forEach((r, i) => {
        assert.deepEqual(firstErrorSteps(r), pbItems[i].label === -1 ? [] : [pbItems[i].label + 1]);
        assert.equal(r.outcome.resolved, null);
        assert.equal(r.source.line, null);
      });
      assert.deepEqual(acceptedBy(MINE, '/x/processbench_trl.json', JSON.stringify(pbRows)), ['trl-stepwise']);
    });

    it('leaves out a row whose labels do not match its completions, located', async () => {
      const rows: any[] = prmRows.map((x) => ({ ...x }));
      rows[1].labels = rows[1].labels.slice(1);
      rows[2].labels = rows[2].labels.map((l: boolean) => (l ? 1 : 0));
      const text = rows.map((x) => JSON.stringify(x)).join('\n');
      const loaded = await loadFile(tmpFile('trl.jsonl', text));
      assert.equal(loaded.rollouts.length, 3);
      assert.deepEqual(loaded.issues!.map((i) => [i.line, i.pointer]), [
        [2, '/labels'],
        ...rows[2].labels.map((_: number, j: number) => [3, `/labels/${j}`]),
      ]);
      assert.match(loaded.issues![0].expected, /one label per completion \(7\)/);
      assert.equal(loaded.issues![1].found, 'number 1');
    });

    it('declines rows whose labels are not booleans (e.g. Math-Shepherd "+"/"-" strings)', () => {
      const text = JSON.stringify({ prompt: 'p', completions: ['a'], labels: ['+'] });
      assert.deepEqual(acceptedBy(MINE, '/x/t.jsonl', text + '\n'), []);
    });
  });
});
