/**
 * The lazy index of large single JSON files whose top level is an array of rows
 * (src/core/scale/arrayIndex.ts): offsets, summaries and the rollouts it opens agree with a full
 * `loadFile` of the same file (ids, ranges, lines, issue pointers), on the real ProcessBench array
 * and on arrays of the real NeMo-Gym / AgentProcessBench rows; bad and cut-off items, a rewrite of
 * the same size and mtime, files that are not arrays of rows.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RolloutLoadError } from '../../../src/core/errors';
import { itemLocation, loadItem } from '../../../src/core/scale/arrayIndex';
import { loadFile } from '../../../src/core/load';
import type { Rollout } from '../../../src/core/model';
import { buildIndex, NotIndexableError, type IndexedRollout, type RolloutIndex } from '../../../src/core/scale/rolloutIndex';
import { FAST_SUMMARIZERS } from '../../../src/core/scale/rowSummary';
import { DumpIndexes, INDEX_MIN_BYTES, wantsIndex } from '../../../src/host/dumpIndexes';
import { loadError, sample, sampleJson, sampleJsonl, tmpDir, tmpFile } from '../samples';

const SWE = 'openai-responses/nemo-gym_mini_swe_agent_2_example_rollouts.jsonl';
const MULTI = 'openai-responses/nemo-gym_example_tool_call_multireward_example_rollouts.jsonl';
const APB = 'process-labels/agentprocessbench_hotpotqa_subset_lines_1-46-51-52-94-99.jsonl';
const PB = 'process-labels/processbench_gsm8k.json';

/** A rollout without what a full load adds across rows (warnings of left-out rows). */
function comparable(r: Rollout): Rollout {
  const c = structuredClone(r);
  delete c.metadata.warnings;
  return c;
}

/**
 * Index and full load agree on every listed field; each entry opens (loadItem) as the full load's
 * rollout, deep-equal (source ranges and lines included); ranges select the item's own text.
 */
async function assertAgrees(file: string, opts: { noFastPath?: boolean; chunkBytes?: number; fastDeclines?: number[] } = {}): Promise<RolloutIndex> {
  const full = await loadFile(file);
  const index = await buildIndex(file, { chunkBytes: 4096, ...opts });
  assert.equal(index.kind, 'array');
  assert.equal(index.format, full.format);
  assert.equal(index.complete, true);
  assert.deepEqual(
    index.entries.map((e) => ({ id: e.id, taskId: e.taskId, groupId: e.groupId, reward: e.reward, resolved: e.resolved, steps: e.steps })),
    full.rollouts.map((r) => ({ id: r.id, taskId: r.task.id, groupId: r.groupId, reward: r.outcome.reward, resolved: r.outcome.resolved, steps: r.steps.length })),
  );
  const bytes = fs.readFileSync(file);
  const text = new TextDecoder().decode(bytes); // drops a BOM, as loadFile does
  const fast = opts.noFastPath ? undefined : FAST_SUMMARIZERS[index.format];
  for (const [i, e] of index.entries.entries()) {
    const itemBytes = bytes.subarray(e.offset, e.offset + e.length);
    // Offsets: the item's bytes are exactly one JSON value; its char offset, line and column point at its first character.
    JSON.parse(itemBytes.toString('utf8'));
    assert.equal(text.slice(e.charOffset!, e.charOffset! + itemBytes.toString('utf8').length), itemBytes.toString('utf8'));
    const before = text.slice(0, e.charOffset!).split('\n');
    assert.equal(e.line, before.length);
    assert.equal(e.column, before[before.length - 1].length + 1);
    if (fast && opts.fastDeclines?.includes(e.item!)) assert.throws(() => fast(itemBytes, file, e.line));
    else if (fast) {
      const { baseId, taskId, groupId, reward, resolved, steps } = e;
      assert.deepEqual(fast(itemBytes, file, e.line), { baseId, taskId, groupId, reward, resolved, steps }, `fast scan of item ${e.item}`);
    }
    const r = await loadItem(file, index.format, itemLocation(e));
    r.id = e.id;
    assert.deepEqual(comparable(r), comparable(full.rollouts[i]));
    // Show in Source: the rollout's range is its item, each step's range lies inside it.
    assert.equal(text.slice(r.source.range!.start, r.source.range!.end), itemBytes.toString('utf8'));
    for (const s of r.steps) if (s.range) assert.ok(s.range.start >= r.source.range!.start && s.range.end <= r.source.range!.end);
  }
  return index;
}

/** A NeMo-Gym row as Chat Completions messages (as the JSONL index tests make them). */
function chatMessages(row: any): any[] {
  const text = (o: any) => (typeof o.content === 'string' ? o.content : (o.content ?? []).map((p: any) => p.text ?? '').join(''));
  const messages: any[] = row.responses_create_params.input.map((m: any) => ({ role: m.role, content: m.content }));
  for (const o of row.response.output) {
    if (o.type === 'message') messages.push({ role: 'assistant', content: text(o), tool_calls: [] });
    else if (o.type === 'function_call') {
      if (messages[messages.length - 1].role !== 'assistant') messages.push({ role: 'assistant', content: '', tool_calls: [] });
      messages[messages.length - 1].tool_calls.push({ id: o.call_id, type: 'function', function: { name: o.name, arguments: o.arguments } });
    } else if (o.type === 'function_call_output') messages.push({ role: 'tool', tool_call_id: o.call_id, content: o.output });
  }
  return messages;
}

describe('scale/arrayIndex on real top-level JSON arrays of rows', () => {
  it('ProcessBench gsm8k.json (the real file): offsets, summaries, ids (#<n> repeats) and every opened rollout equal loadFile', async () => {
    const index = await assertAgrees(sample(PB));
    assert.equal(index.format, 'processbench');
    assert.equal(index.entries.length, sampleJson<unknown[]>(PB).length);
    // Process-label records in an array have no line of their own (as a full load gives them).
    assert.equal((await loadItem(sample(PB), 'processbench', itemLocation(index.entries[3]))).source.line, null);
  });

  it('ProcessBench items on the fast scan\'s other paths (no id, null fields, a repeated id, a label out of range) agree with loadFile', async () => {
    const items = sampleJson<any[]>(PB).slice(0, 6);
    const out = [
      items[0],
      { ...items[1], id: undefined },
      { ...items[2], final_answer_correct: null, generator: null },
      { ...items[3], id: items[0].id },
      { ...items[4], label: items[4].steps.length },
      { ...items[5], id: 17, label: -1, problem: 'ü \\u00fc "quoted"' },
    ];
    const f = tmpFile('pb.json', JSON.stringify(out, null, 2));
    // The item without an id goes to the loader (its id is its ordinal).
    const index = await assertAgrees(f, { fastDeclines: [1] });
    assert.equal(index.skipped, 1);
    assert.deepEqual(index.entries.map((e) => e.id), [items[0].id, `${f}#1`, items[2].id, `${items[0].id}#2`, '17']);
    assert.deepEqual(index.entries.map((e) => e.resolved), [items[0].final_answer_correct, items[1].final_answer_correct, null, items[3].final_answer_correct, items[5].final_answer_correct]);
  });

  it('NeMo-Gym rows pretty-printed as one array (multi-byte text before items, chunks smaller than an item)', async () => {
    const rows = [...sampleJsonl(SWE), ...sampleJsonl(MULTI), sampleJsonl(SWE)[0]];
    const f = tmpFile('nemo_rollouts.json', JSON.stringify(rows, null, 2) + '\n');
    const index = await assertAgrees(f, { chunkBytes: 1024 });
    assert.equal(index.format, 'openai-responses');
    assert.equal(index.entries.length, rows.length);
    // A repeated row's id carries the item's line, as loadFile gives it.
    assert.ok(index.entries.some((e) => /#line\d+$/.test(e.id)));
    await assertAgrees(f, { noFastPath: true });
  });

  it('chat rows and AgentProcessBench rows minified on one line (columns), with a BOM', async () => {
    const chat = [...sampleJsonl(SWE), ...sampleJsonl(MULTI)].map((r, i) => ({ messages: chatMessages(r), reward: r.reward, ...(i % 3 === 0 ? { uid: `g${i % 2}` } : {}) }));
    chat.push({ messages: [{ role: 'user', content: 'q ✓' }, { role: 'assistant', content: 'a' }], reward: 1 } as any);
    const f = path.join(tmpDir(), 'chat_rollouts.json');
    fs.writeFileSync(f, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(chat))]));
    const index = await assertAgrees(f, { chunkBytes: 512 });
    assert.equal(index.format, 'openai-chat');
    // Rows without an id are `<path>:<line>`: all on line 1, told apart by their position, as loadFile does.
    assert.ok(index.entries.every((e) => e.line === 1));
    assert.ok(index.entries.some((e) => e.id === `${f}:1#2`));
    assert.equal(new Set(index.entries.map((e) => e.id)).size, index.entries.length);
    const apb = tmpFile('apb.json', JSON.stringify(sampleJsonl(APB)));
    assert.equal((await assertAgrees(apb)).format, 'agentprocessbench');
  });
});

describe('scale/arrayIndex on the other row formats in arrays', () => {
  it('TRL stepwise rows derived from ProcessBench (as the processLabels tests derive them) and rLLM episodes built from the NeMo-Gym rows', async () => {
    const trl = sampleJson<any[]>(PB).map((it) => {
      const n = it.label === -1 ? it.steps.length : it.label + 1;
      return { prompt: it.problem, completions: it.steps.slice(0, n), labels: it.steps.slice(0, n).map((_: string, j: number) => it.label === -1 || j < it.label) };
    });
    assert.equal((await assertAgrees(tmpFile('trl.json', JSON.stringify(trl, null, 1)))).format, 'trl-stepwise');
    // rLLM `Episode.to_dict()` (as in the rlDumps tests, reduced): one step per assistant message, its tool calls as actions.
    const episodes = [...sampleJsonl(SWE), ...sampleJsonl(MULTI)].map((row, i) => {
      const turns: { text: string; calls: any[]; outputs: string[] }[] = [];
      for (const o of row.response.output) {
        if (o.type === 'message') turns.push({ text: typeof o.content === 'string' ? o.content : o.content.map((p: any) => p.text ?? '').join(''), calls: [], outputs: [] });
        else if (o.type === 'function_call' && turns.length) turns[turns.length - 1].calls.push(o);
        else if (o.type === 'function_call_output' && turns.length) turns[turns.length - 1].outputs.push(o.output);
      }
      const steps = turns.map((t, k) => ({
        observation: k === 0 ? 'task' : turns[k - 1].outputs.join('\n'),
        thought: '',
        action: t.calls.map((c) => ({ name: c.name, arguments: JSON.parse(c.arguments) })),
        model_response: t.text,
        reward: 0.0,
        done: k === turns.length - 1,
      }));
      return { id: `${row.instance_id ?? 'task'}:${i}`, task: { instance_id: row.instance_id ?? null }, termination_reason: 'env_done', is_correct: row.reward === 1, trajectories: [{ uid: 'traj-0', name: 'agent', steps, reward: row.reward, info: {} }], metrics: {}, info: {} };
    });
    assert.equal((await assertAgrees(tmpFile('episodes.json', JSON.stringify(episodes, null, 2)))).format, 'rllm-episode');
  });
});

describe('scale/arrayIndex: bad items, cut-off files, rewrites, other files', () => {
  const rows = sampleJsonl(SWE);

  it('a non-conforming item is left out with the same located message a full load gives (pointer /<item>/…)', async () => {
    const bad = { ...rows[1], reward: 'high' };
    const f = tmpFile('bad.json', JSON.stringify([rows[0], bad, rows[2]], null, 2));
    const index = await buildIndex(f);
    const full = await loadFile(f);
    assert.deepEqual(index.entries.map((e) => [e.id, e.item]), full.rollouts.map((r, i) => [r.id, i === 0 ? 0 : 2]));
    assert.equal(index.skipped, 1);
    assert.deepEqual(index.skippedMessages, full.issues!.map((i) => `${i.file}:${i.line}:${i.column} at ${i.pointer}: expected ${i.expected}, found ${i.found}`));
    assert.match(index.skippedMessages[0], / at \/1\/reward:/);
  });

  it('an item that is not valid JSON gets a located error and the other items still list (a full load fails the whole file)', async () => {
    const good = JSON.stringify(rows[0]);
    const broken = '{"responses_create_params": {"input": []} "response": {}}';
    const text = `[\n  ${good},\n  ${broken},\n  ${JSON.stringify(rows[2])}\n]\n`;
    const f = tmpFile('syntax.json', text);
    // A full load fails the whole file, at the same place.
    const fullError = await loadError(f);
    const index = await buildIndex(f);
    assert.equal(index.entries.length, 2);
    assert.equal(index.skipped, 1);
    // Line 3, at the missing comma after `{"input": []}` (column counted from the line's start).
    const col = 3 + broken.indexOf('"response"');
    assert.deepEqual([fullError.issues[0].line, fullError.issues[0].column, fullError.issues[0].pointer], [3, col, '/1/response']);
    assert.match(index.skippedMessages[0], new RegExp(`syntax\\.json:3:${col} at /1/response: expected valid JSON: "," between values`), index.skippedMessages[0]);
    // Opening the bad item through loadItem gives the same located error.
    const at = { offset: Buffer.byteLength(`[\n  ${good},\n  `), length: broken.length, line: 3, column: 3, charOffset: `[\n  ${good},\n  `.length, item: 1 };
    await assert.rejects(loadItem(f, index.format, at), (e: RolloutLoadError) => e.issues[0].line === 3 && e.issues[0].column === col);
  });

  it('a cut-off array (a file still being written) lists its complete items and says where it stops', async () => {
    const whole = JSON.stringify(rows, null, 2);
    // The first three items and 200 bytes of the fourth.
    const f = tmpFile('cut.json', whole.slice(0, JSON.stringify(rows.slice(0, 3), null, 2).length - 2 + 200));
    const index = await buildIndex(f, { chunkBytes: 2048 });
    assert.equal(index.entries.length, 3);
    assert.match(index.skippedMessages[index.skippedMessages.length - 1], /cut off or still being written/);
    // Written to its end later: indexed again with every item.
    fs.writeFileSync(f, whole);
    const later = await buildIndex(f, { previous: index });
    assert.equal(later.entries.length, rows.length);
  });

  it('a file rewritten to the same size and mtime is indexed again (fingerprint), an unchanged one reused', async () => {
    const f = tmpFile('rewrite.json', JSON.stringify(rows, null, 2));
    const t = new Date('2025-01-02T03:04:05Z');
    fs.utimesSync(f, t, t);
    const before = await buildIndex(f);
    assert.equal(await buildIndex(f, { previous: before }), before);
    // Same bytes in another order: the same size; the mtime put back.
    const swapped = JSON.stringify([rows[1], rows[0], ...rows.slice(2)], null, 2);
    assert.equal(Buffer.byteLength(swapped), fs.statSync(f).size);
    fs.writeFileSync(f, swapped);
    fs.utimesSync(f, t, t);
    assert.equal(fs.statSync(f).mtimeMs, before.mtimeMs);
    const again = await buildIndex(f, { previous: before });
    assert.notEqual(again, before);
    assert.deepEqual(
      again.entries.map((e: IndexedRollout) => e.offset),
      (await buildIndex(f)).entries.map((e) => e.offset),
    );
    assert.notDeepEqual(again.entries.map((e) => e.length), before.entries.map((e) => e.length));
  });

  it('JSON files that are not arrays of rows are not indexed (the caller loads them whole)', async () => {
    for (const s of ['openhands/tests_runtime_trajs_basic.json', 'openhands/harbor-rfc_openhands_trajectory.json', 'openai-chat/harbor-golden_terminus2_invalid-json.traces.json', 'atif/harbor-golden_openhands_hello-world_ATIF-v1.5.trajectory.json']) {
      await assert.rejects(buildIndex(sample(s)), NotIndexableError, s);
    }
    await assert.rejects(buildIndex(tmpFile('empty.json', '[ ]')), NotIndexableError);
    await assert.rejects(buildIndex(tmpFile('numbers.json', '[1, 2, 3]')), NotIndexableError);
  });
});

describe('host/dumpIndexes with a JSON array file', () => {
  it('wants the index for large .json files; opens items through it (cached on disk) as the full load reads them', async () => {
    assert.equal(wantsIndex('/d/rollouts.json', INDEX_MIN_BYTES), true);
    assert.equal(wantsIndex('/d/rollouts.json', INDEX_MIN_BYTES - 1), false);
    assert.equal(wantsIndex('/d/rollouts.txt', INDEX_MIN_BYTES), false);
    const rows = [...sampleJsonl(SWE), ...sampleJsonl(MULTI)];
    const f = tmpFile('rollouts.json', JSON.stringify(rows, null, 2));
    const logged: string[] = [];
    const out = { info: (m: string) => logged.push(m), warn: (m: string) => logged.push(m) } as any;
    const cache = tmpDir();
    const dumps = new DumpIndexes(cache, out);
    const index = await dumps.index(f);
    assert.equal(index.kind, 'array');
    const full = await loadFile(f);
    for (const i of [0, rows.length - 1]) assert.deepEqual(comparable(await dumps.open(f, i)), comparable(full.rollouts[i]));
    // A second DumpIndexes (the next session) reads the cached index instead of indexing again.
    const again = await new DumpIndexes(cache, out).index(f);
    assert.deepEqual(again, index);
    assert.equal(logged.filter((m) => m.startsWith('index: rollouts.json')).length, 1);
  });
});
