/**
 * The lazy index of JSONL dumps (src/core/scale): its summaries and the rollouts it opens agree with
 * a full `loadFile` of the same file, on the real samples and on rows derived from them that take
 * the step mapping's other paths; growth, cache and bad rows.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadFile } from '../../../src/core/load';
import { buildIndex, cachePathFor, NotIndexableError, readCachedIndex, writeCachedIndex, type RolloutIndex } from '../../../src/core/scale/rolloutIndex';
import { loadRow } from '../../../src/core/scale/rowLoad';
import { FAST_SUMMARIZERS } from '../../../src/core/scale/rowSummary';
import { sample, sampleJsonl, sampleText, tmpDir, tmpFile } from '../samples';

const SWE = 'openai-responses/nemo-gym_mini_swe_agent_2_example_rollouts.jsonl';
const MULTI = 'openai-responses/nemo-gym_example_tool_call_multireward_example_rollouts.jsonl';
const APB = 'process-labels/agentprocessbench_hotpotqa_subset_lines_1-46-51-52-94-99.jsonl';

/** Index and full load of a file agree on every listed field, and each indexed row opens as the full load's rollout. */
async function assertAgrees(file: string, opts: { noFastPath?: boolean } = {}): Promise<RolloutIndex> {
  const full = await loadFile(file);
  const index = await buildIndex(file, { chunkBytes: 4096, ...opts });
  assert.equal(index.format, full.format);
  assert.equal(index.complete, true);
  assert.deepEqual(
    index.entries.map((e) => ({ id: e.id, taskId: e.taskId, groupId: e.groupId, reward: e.reward, resolved: e.resolved, steps: e.steps, line: e.line })),
    full.rollouts.map((r) => ({ id: r.id, taskId: r.task.id, groupId: r.groupId, reward: r.outcome.reward, resolved: r.outcome.resolved, steps: r.steps.length, line: r.source.line })),
  );
  // The fast scan itself reads every row (the index falls back to the loader when it throws).
  const fast = FAST_SUMMARIZERS[index.format];
  if (fast && !opts.noFastPath) {
    const bytes = fs.readFileSync(file);
    for (const e of index.entries) {
      const { baseId, taskId, groupId, reward, resolved, steps } = e;
      assert.deepEqual(fast(bytes.subarray(e.offset, e.offset + e.length), file, e.line), { baseId, taskId, groupId, reward, resolved, steps }, `fast scan of line ${e.line}`);
    }
  }
  for (const [i, e] of index.entries.entries()) {
    const r = await loadRow(file, index.format, e);
    const want = full.rollouts[i];
    // loadRow sees one row: the caller gives it the file-wide unique id (the index's).
    assert.equal(e.id.startsWith(r.id), true);
    assert.deepEqual(r.steps.map((s) => [s.role, s.message, s.actions.length, s.observations.length]), want.steps.map((s) => [s.role, s.message, s.actions.length, s.observations.length]));
    // Same line; the range is as long (its start is a byte offset: the samples hold multi-byte text before some rows).
    assert.equal(r.source.line, want.source.line);
    assert.equal(r.source.range!.end - r.source.range!.start, want.source.range!.end - want.source.range!.start);
    assert.equal(r.source.range!.start, e.offset);
  }
  return index;
}

describe('scale/rolloutIndex on the real RL dump samples', () => {
  it('NeMo-Gym mini-swe-agent rollouts: same ids (repeats get #line<N>), groups, rewards, resolved, step counts as loadFile', async () => {
    const index = await assertAgrees(sample(SWE));
    assert.equal(index.entries.length, 5);
    // The sample repeats its ids: the second and later rows carry their line.
    const rows = sampleJsonl(SWE);
    assert.equal(index.entries[0].baseId, `${rows[0].instance_id}#rollout-${rows[0]._ng_rollout_index}`);
    assert.deepEqual(index.entries.map((e) => e.reward), rows.map((r) => r.reward));
    assert.ok(index.entries[0].steps >= 5);
  });

  it('NeMo-Gym multireward rollouts (reasoning items, reward components): same as loadFile', async () => {
    const index = await assertAgrees(sample(MULTI));
    assert.equal(index.entries[0].resolved, null); // a reward summed from components says nothing on pass/fail
    assert.equal(index.entries[0].groupId, `ng-task-${sampleJsonl(MULTI)[0]._ng_task_index}`);
  });

  it('AgentProcessBench rows (no fast path: the real loader per line) and the loader-only pass agree with loadFile', async () => {
    const index = await assertAgrees(sample(APB));
    assert.equal(index.format, 'agentprocessbench');
    await assertAgrees(sample(SWE), { noFastPath: true });
  });

  it('rows derived from the samples that take the other paths of the step mapping agree with loadFile', async () => {
    const base = sampleJsonl(SWE)[0];
    const out = base.response.output as any[];
    const variants: any[] = [];
    const v = (f: (r: any) => void): void => {
      const r = JSON.parse(JSON.stringify(base));
      f(r);
      variants.push(r);
    };
    v((r) => (r.response.output = [{ type: 'reasoning', summary: [{ text: 'plan' }] }, ...out]));
    v((r) => (r.response.output = [{ type: 'reasoning', summary: [] }, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: '' }] }, { type: 'reasoning', summary: [] }, ...out]));
    v((r) => (r.response.output = [{ type: 'message', role: 'assistant', content: '<think>only thinking</think>' }, { type: 'reasoning', summary: [] }, ...out]));
    for (const text of ['<think>plan</think>', '  \n<think>plan</think>\n ', '<think>plan</think> ok', 'plan</think>', 'plan</think>  x', '<think>unclosed', ' x <think>a</think>', '\u00a0<think>a</think>', '<think>a</think>\u2028', '']) {
      v((r) => (r.response.output = [{ type: 'message', role: 'assistant', content: text }, { type: 'reasoning', summary: [] }, ...out]));
      v((r) => (r.response.output = [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] }, { type: 'reasoning', summary: [] }, ...out]));
    }
    v((r) => (r.response.output = [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: '<think>a</think>' }, { type: 'output_text', text: '' }] }, { type: 'reasoning', summary: [] }]));
    v((r) => (r.response.output = [{ type: 'message', role: 'assistant', content: 'run <tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>' }, { type: 'function_call_output', output: 'a\nb' }, ...out]));
    v((r) => (r.response.output = [{ type: 'function_call', name: 'submit', arguments: '{}' }, { type: 'function_call_output', output: 'done' }, { type: 'function_call_output', call_id: 'nobody', output: 'stray' }]));
    v((r) => (r.response.output = [{ type: 'local_shell_call', call_id: 'c1', action: { command: ['ls'] } }, { type: 'local_shell_call_output', call_id: 'c1', output: 'x' }, { role: 'assistant', content: 'no type' }, { type: 'web_search_call', id: 'w1' }, { type: 'unknown_item' }]));
    v((r) => {
      r.responses_create_params.instructions = 'be brief';
      r.responses_create_params.input = 'a plain string prompt';
      delete r.instance_id;
      r._ng_task_index = 7;
      r.reward = 0;
    });
    v((r) => {
      delete r._ng_rollout_index;
      r.resolved = false;
      r.metadata = { eval_report: {} };
    });
    const f = tmpFile('derived.jsonl', variants.map((x) => JSON.stringify(x)).join('\n') + '\n');
    const index = await assertAgrees(f);
    assert.equal(index.entries.length, variants.length);
  });
});

describe('scale/rolloutIndex on OpenAI chat rows (made from the real NeMo-Gym rows, as the rlDumps tests make them)', () => {
  /** A NeMo-Gym row as Chat Completions messages (function_call → tool_calls, outputs → tool messages). */
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

  it('same ids, prompt-hash groups, rewards, resolved and step counts as loadFile, on every path of the mapping', async () => {
    const rows = [...sampleJsonl(SWE), ...sampleJsonl(MULTI)];
    const out: any[] = rows.map((r, i) => ({ messages: chatMessages(r), reward: r.reward, ...(i % 3 === 0 ? { uid: `g${i % 2}` } : {}), ...(i === 2 ? { id: 'rollout-two' } : {}), ...(i === 4 ? { instance_id: r.instance_id, is_correct: true } : {}) }));
    out.push({ messages: [{ role: 'system', content: 'sys' }, { role: 'user', content: [{ type: 'text', text: 'do it' }] }, { role: 'assistant', content: '<think>x</think>run <tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>' }, { role: 'tool', content: 'a' }, { role: 'tool', content: 'stray' }, { role: 'ipython', tool_call_id: 'nope', content: 'b' }, { role: 'critic', content: 'c' }], score: 0.5 });
    out.push({ messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: null, function_call: { name: 'submit', arguments: '{}' } }, { role: 'function', content: 'ok' }, { role: 'assistant', content: '', tool_calls: [{ function: { name: 'finish' } }] }, { role: 'tool', content: 'done' }], score: [0.1, 0.2], resolved: false });
    out.push({ messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }], reward: 1, id: 'rollout-two' });
    out.push({ messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a', tool_calls: null }], reward: 0, id: 7, task_id: 3 });
    const f = tmpFile('chat_rollouts.jsonl', out.map((x) => JSON.stringify(x)).join('\n') + '\n');
    const index = await assertAgrees(f);
    assert.equal(index.format, 'openai-chat');
    assert.ok(index.entries.some((e) => e.groupId?.startsWith('prompt-sha256:')));
    assert.ok(index.entries.some((e) => e.id === 'rollout-two#line' + (out.length - 1)));
  });
});

describe('scale/rolloutIndex growth, cache and bad rows', () => {
  const rows = sampleText(SWE).split('\n').filter((l) => l.trim() !== '');

  it('a file that grows (a running job) is extended from where the last pass stopped; an unterminated last line waits until it parses', async () => {
    const f = path.join(tmpDir(), 'rollouts.jsonl');
    fs.writeFileSync(f, rows.slice(0, 2).join('\n') + '\n');
    const first = await buildIndex(f);
    assert.equal(first.entries.length, 2);
    const half = rows[2].slice(0, 1000);
    fs.appendFileSync(f, half);
    const second = await buildIndex(f, { previous: JSON.parse(JSON.stringify(first)) });
    assert.equal(second.entries.length, 2, 'a half-written row is not listed');
    assert.equal(second.indexedTo, first.indexedTo);
    fs.appendFileSync(f, rows[2].slice(1000));
    const third = await buildIndex(f, { previous: second });
    assert.equal(third.entries.length, 3, 'a complete last line without a line break is listed');
    assert.equal(third.tail, 1);
    fs.appendFileSync(f, '\n' + rows.slice(3).join('\n') + '\n');
    const fourth = await buildIndex(f, { previous: third });
    const full = await loadFile(f);
    assert.deepEqual(fourth.entries.map((e) => [e.id, e.line, e.steps]), full.rollouts.map((r) => [r.id, r.source.line, r.steps.length]));
    assert.equal(fourth.tail, 0);
  });

  it('a file rewritten (not only grown) is indexed again from the start', async () => {
    const f = path.join(tmpDir(), 'rollouts.jsonl');
    fs.writeFileSync(f, rows.slice(0, 3).join('\n') + '\n');
    const first = await buildIndex(f);
    fs.writeFileSync(f, rows.slice(3).join('\n') + '\n' + rows[0] + '\n');
    const again = await buildIndex(f, { previous: first });
    assert.deepEqual(again.entries.map((e) => e.line), [1, 2, 3]);
    assert.equal(again.entries[2].steps, first.entries[0].steps);
  });

  it('the cache keeps the index by path; an unchanged file reuses it', async () => {
    const dir = tmpDir();
    const f = tmpFile('rollouts.jsonl', rows.join('\n') + '\n');
    const index = await buildIndex(f);
    await writeCachedIndex(dir, index);
    assert.ok(fs.existsSync(cachePathFor(dir, f)));
    const cached = await readCachedIndex(dir, f);
    assert.deepEqual(cached, index);
    let progressed = 0;
    const reused = await buildIndex(f, { previous: cached, onProgress: () => progressed++ });
    assert.equal(reused, cached);
    assert.equal(progressed, 0);
    assert.equal(await readCachedIndex(dir, path.join(path.dirname(f), 'other.jsonl')), null);
  });

  it('bad rows are left out with their located messages, as loadFile leaves them out', async () => {
    const f = tmpFile('rollouts.jsonl', [rows[0], '{"responses_create_params": {"input": [', rows[1], '', '{"response": 3, "responses_create_params": 5}', rows[2]].join('\n') + '\n');
    const index = await buildIndex(f);
    const full = await loadFile(f);
    assert.deepEqual(index.entries.map((e) => [e.id, e.line]), full.rollouts.map((r) => [r.id, r.source.line]));
    assert.equal(index.skipped, 2);
    assert.equal(index.skippedMessages.length, full.issues?.length);
    assert.match(index.skippedMessages[0], /:2:/);
  });

  it('files that are not one rollout per line are not indexed', async () => {
    await assert.rejects(buildIndex(sample('atif/harbor-golden_terminus2_invalid-json_ATIF-v1.5.trajectory.json')), NotIndexableError);
    await assert.rejects(buildIndex(sample('asciicast/asciinema-tests_demo.cast')), NotIndexableError);
  });

  it('cancels through an AbortSignal', async () => {
    const f = tmpFile('rollouts.jsonl', rows.join('\n') + '\n');
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(buildIndex(f, { signal: ac.signal, chunkBytes: 1024 }), /cancelled/);
  });
});

describe('scale/rolloutIndex: a file rewritten in place', () => {
  it('the same size with rows swapped and a reward edited is indexed again, not reused', async () => {
    const lines = sampleText(SWE).trimEnd().split('\n');
    const f = tmpFile('rewrite.jsonl', lines.join('\n') + '\n');
    const before = await buildIndex(f);
    // Swap the first two rows and flip a reward digit: same bytes in all, same size.
    const swapped = [lines[1], lines[0], ...lines.slice(2)].join('\n') + '\n';
    const edited = swapped.replace(/"reward": ?1\.0/, (m) => m.replace('1.0', '0.0'));
    assert.equal(Buffer.byteLength(edited), fs.statSync(f).size);
    fs.writeFileSync(f, edited);
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(f, later, later);
    const again = await buildIndex(f, { previous: before });
    const fresh = await buildIndex(f);
    assert.deepEqual(again.entries.map((e) => [e.id, e.offset, e.length, e.reward]), fresh.entries.map((e) => [e.id, e.offset, e.length, e.reward]));
    assert.notDeepEqual(again.entries.map((e) => e.offset), before.entries.map((e) => e.offset));
    for (const e of again.entries) assert.equal((await loadRow(f, again.format, e)).id, e.id);
  });
});

describe('scale/rolloutIndex: a row that is not valid UTF-8', () => {
  it('is left out with its reason on the fast path as on the loader path (it was listed, then failed to open)', async () => {
    const lines = sampleText(SWE).trimEnd().split('\n');
    // The second row gets two bytes that are not UTF-8 inside a string (the first row tells the format).
    const bad = Buffer.concat([Buffer.from(lines[1].slice(0, 40)), Buffer.from([0xff, 0xfe]), Buffer.from(lines[1].slice(40))]);
    const f = path.join(tmpDir(), 'badutf8.jsonl');
    fs.writeFileSync(f, Buffer.concat([Buffer.from(lines[0] + '\n'), bad, Buffer.from('\n' + lines.slice(2).join('\n') + '\n')]));
    const fast = await buildIndex(f);
    const slow = await buildIndex(f, { noFastPath: true });
    assert.equal(fast.skipped, 1);
    assert.deepEqual(fast.entries.map((e) => e.id), slow.entries.map((e) => e.id));
    assert.equal(fast.entries.length, lines.length - 1);
  });
});
