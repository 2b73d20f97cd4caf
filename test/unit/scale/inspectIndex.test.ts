/**
 * The lazy index of large Inspect AI `.json` logs (src/core/scale/inspectIndex.ts), on logs made in
 * a temp folder from the real `log_read_sample.json` (its sample repeated with new ids, some
 * non-ASCII text, pretty-printed as Inspect writes it, or compact): summaries and the rollouts it
 * opens agree with a full `loadFile` (ids, ranges, issue pointers `/samples/<i>/…`), with chunks
 * smaller than a sample (the buffer grows to hold one); `eval` after `samples`; bad and cut-off
 * samples; files that are not Inspect logs; the host's DumpIndexes opens its samples.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { RolloutLoadError } from '../../../src/core/errors';
import { inspectJsonHeader } from '../../../src/core/formats/inspect';
import { JsonDoc } from '../../../src/core/json';
import { loadFile } from '../../../src/core/load';
import type { Rollout } from '../../../src/core/model';
import { loadInspectEntry, looksLikeInspectJson, StreamDelimiter } from '../../../src/core/scale/inspectIndex';
import { inspectSampleSummary } from '../../../src/core/scale/inspectSummary';
import { buildIndex, NotIndexableError, type RolloutIndex } from '../../../src/core/scale/rolloutIndex';
import { DumpIndexes } from '../../../src/host/dumpIndexes';
import { sample, sampleJson, tmpDir, tmpFile } from '../samples';

const LOG = 'inspect/log_read_sample.json';

/** A log of `n` samples made from the sample log's one (ids `<id>-<k>`, every third with non-ASCII text in its input). */
function makeLog(n: number, opts: { indent?: number; evalLast?: boolean } = {}): any {
  const d = sampleJson(LOG);
  const s = d.samples[0];
  const samples = Array.from({ length: n }, (_, k) => ({
    ...s,
    id: `${String(s.id)}-${k}`,
    epoch: 1 + (k % 2),
    ...(k % 3 === 1 ? { input: `Ünïcödé ✓ 𝄞 input ${k}\n${typeof s.input === 'string' ? s.input : ''}` } : {}),
    ...(k % 4 === 2 ? { messages: toolMessages(s.messages, k) } : {}),
  }));
  if (!opts.evalLast) return { ...d, samples };
  const { eval: spec, ...rest } = d;
  return { ...rest, samples, eval: spec };
}

/** Messages with tool calls answered and not: a call and its result, a tool_use content part answered, a tool result no call made, a call with no id (null tool_calls elsewhere). */
function toolMessages(base: any[], k: number): any[] {
  return [
    ...base.filter((m) => m.role !== 'assistant'),
    { role: 'assistant', content: 'Listing.', tool_calls: [{ id: `c${k}`, function: 'bash', arguments: { cmd: 'ls' } }] },
    { role: 'tool', content: 'a\nb', tool_call_id: `c${k}`, function: 'bash' },
    { role: 'assistant', content: [{ type: 'text', text: 'Searching.' }, { type: 'tool_use', id: `u${k}`, name: 'web_search', arguments: {}, result: 'found' }], tool_calls: null },
    { role: 'tool', content: 'late', tool_call_id: `u${k}` },
    { role: 'tool', content: 'orphan', tool_call_id: `x${k}`, error: { type: 'unknown', message: 'no call' } },
    { role: 'user', content: [{ type: 'text', text: 'Thanks ✓' }] },
    // An empty call id makes no call a result can answer: the result is a step of its own.
    { role: 'assistant', content: '', tool_calls: [{ id: '', function: 'bash', arguments: { cmd: 'pwd' } }] },
    { role: 'tool', content: '/', tool_call_id: '' },
  ];
}

function write(name: string, log: any, indent = 2): string {
  return tmpFile(name, JSON.stringify(log, null, indent));
}

/** Every entry opens (loadInspectEntry) as the full load's rollout, deep-equal; the listed fields agree; ranges select the sample's text. */
async function assertAgrees(file: string, chunkBytes: number): Promise<RolloutIndex> {
  const full = await loadFile(file);
  const index = await buildIndex(file, { chunkBytes });
  assert.equal(index.kind, 'inspect');
  // The byte scan lists what the loader lists.
  assert.deepEqual((await buildIndex(file, { chunkBytes, noFastPath: true })).entries, index.entries);
  assert.equal(index.format, 'inspect');
  assert.equal(index.complete, true);
  assert.deepEqual(
    index.entries.map((e) => ({ id: e.id, taskId: e.taskId, groupId: e.groupId, reward: e.reward, resolved: e.resolved, steps: e.steps })),
    full.rollouts.map((r) => ({ id: r.id, taskId: r.task.id, groupId: r.groupId, reward: r.outcome.reward, resolved: r.outcome.resolved, steps: r.steps.length })),
  );
  const header = inspectJsonHeader(JsonDoc.parse(file, index.header!));
  const text = new TextDecoder().decode(fs.readFileSync(file));
  const bytes = fs.readFileSync(file);
  for (const [i, e] of index.entries.entries()) {
    const own = bytes.subarray(e.offset, e.offset + e.length).toString('utf8');
    const before = text.slice(0, e.charOffset!).split('\n');
    assert.equal(e.line, before.length);
    assert.equal(e.column, before[before.length - 1].length + 1);
    // Every sample here is one the byte scan reads (none falls back to the loader).
    const { baseId, taskId, groupId, reward, resolved, steps } = e;
    assert.deepEqual(inspectSampleSummary(Buffer.from(own), file, header, e.item!), { baseId, taskId, groupId, reward, resolved, steps }, `scan of sample ${e.item}`);
    const r: Rollout = await loadInspectEntry(index, e);
    assert.deepEqual(r, full.rollouts[i]);
    assert.equal(text.slice(r.source.range!.start, r.source.range!.end), own);
  }
  return index;
}

describe('scale/inspectIndex: large Inspect .json logs', () => {
  it('tells an Inspect log from its first bytes', () => {
    assert.equal(looksLikeInspectJson(Buffer.from('\ufeff \n{\n  "version": 2,\n  "status": "success"')), true);
    assert.equal(looksLikeInspectJson(Buffer.from('{"version":2}')), true);
    assert.equal(looksLikeInspectJson(Buffer.from('{"schema_version": "ATIF-v1.5"}')), false);
    assert.equal(looksLikeInspectJson(Buffer.from('[{"version": 2}]')), false);
  });

  it('StreamDelimiter finds the end of a value fed a part at a time, escapes split between parts', () => {
    const v = Buffer.from('{"a": "x\\\\", "b": ["\\"]}", {"c": "}"}]}, 1] tail');
    const want = v.indexOf(', 1] tail'); // just after the outer `}`
    for (let cutAt = 1; cutAt < v.length; cutAt++) {
      const d = new StreamDelimiter();
      const first = d.feed(v, 0, cutAt);
      assert.equal(first >= 0 ? first : d.feed(v, cutAt, v.length), want, `cut at ${cutAt}`);
    }
    assert.equal(new StreamDelimiter().feed(v, 0, v.length), want);
  });

  it('indexes a pretty-printed log read in chunks smaller than a sample, as the full load reads it', async () => {
    const file = write('big.json', makeLog(12));
    const one = JSON.stringify(sampleJson(LOG).samples[0], null, 2).length;
    const index = await assertAgrees(file, Math.floor(one / 5));
    assert.equal(index.entries.length, 12);
    assert.equal(JSON.parse(index.header!).samples, undefined);
  });

  it('indexes a compact log, and one whose eval comes after its samples', async () => {
    await assertAgrees(write('compact.json', makeLog(5), 0), 64 * 1024);
    const late = await assertAgrees(write('late.json', makeLog(4, { evalLast: true })), 4096);
    assert.equal(late.entries.length, 4);
  });

  it('leaves out a sample that does not conform, with its pointer in the log; lists the samples before a cut', async () => {
    const log = makeLog(4);
    delete log.samples[2].epoch;
    const file = write('bad.json', log);
    const index = await buildIndex(file, { chunkBytes: 8192 });
    assert.deepEqual(
      index.entries.map((e) => e.item),
      [0, 1, 3],
    );
    assert.equal(index.skipped, 1);
    assert.match(index.skippedMessages[0], /\/samples\/2\/epoch/);
    // The full load fails the whole file at the same pointer.
    await assert.rejects(loadFile(file), (e: RolloutLoadError) => e.issues.some((i) => i.pointer === '/samples/2/epoch'));

    const whole = fs.readFileSync(write('whole.json', makeLog(3)));
    const second = (await buildIndex(write('whole.json', makeLog(3)))).entries[1];
    const cut = await buildIndex(tmpFile('cut.json', whole.subarray(0, second.offset + (second.length >> 1)).toString('utf8')), { chunkBytes: 4096 });
    assert.equal(cut.entries.length, 1);
    assert.match(cut.skippedMessages[0], /the file may be cut off/);
  });

  it('a header that does not conform fails the file with its pointer; other JSON objects are not indexed', async () => {
    const log = makeLog(2);
    log.eval.model = 7;
    await assert.rejects(buildIndex(write('badheader.json', log)), (e: RolloutLoadError) => e instanceof RolloutLoadError && e.issues[0].pointer === '/eval/model');
    for (const s of ['atif/harbor-golden_openhands_hello-world_ATIF-v1.5.trajectory.json', 'openhands/harbor-rfc_openhands_trajectory.json']) {
      await assert.rejects(buildIndex(sample(s)), NotIndexableError, s);
    }
    await assert.rejects(buildIndex(tmpFile('nosamples.json', JSON.stringify({ version: 2, status: 'started', eval: { task: 't', model: 'm' } }))), NotIndexableError);
    await assert.rejects(buildIndex(tmpFile('noeval.json', JSON.stringify({ version: 2, samples: [{ id: 1 }] }))), NotIndexableError);
  });

  it('the host opens its samples through DumpIndexes (cached on disk, reused unchanged)', async () => {
    const file = write('host.json', makeLog(6));
    const out = { info: () => undefined, warn: () => undefined } as any;
    const cache = tmpDir();
    const index = await new DumpIndexes(cache, out).index(file);
    assert.equal(index.kind, 'inspect');
    const full = await loadFile(file);
    const again = new DumpIndexes(cache, out);
    for (const i of [0, 5]) assert.deepEqual(await again.open(file, i), full.rollouts[i]);
    assert.equal((await again.index(file)).header, index.header);
  });
});
