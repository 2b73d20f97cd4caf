/**
 * The fast scan lists exactly the rows the full loader accepts (src/core/scale/jsonScan.ts,
 * rowSummary.ts): rows with bare words, numbers with leading zeros, misplaced commas, colons or
 * brackets, nesting deeper than the JSON parser takes, or a reward of 1e400 (Infinity) are left to the real loader, in JSONL dumps and in
 * JSON arrays; escaped keys are read as the loader reads them.
 */
import * as assert from 'node:assert/strict';
import { loadFile } from '../../../src/core/load';
import { itemLocation, loadItem } from '../../../src/core/scale/arrayIndex';
import { readScalar, ScanError, scalarEnd, valueEnd } from '../../../src/core/scale/jsonScan';
import { buildIndex, type RolloutIndex } from '../../../src/core/scale/rolloutIndex';
import { chatRowSummary } from '../../../src/core/scale/rowSummary';
import { tmpFile } from '../samples';

const good = (i: number): string => JSON.stringify({ messages: [{ role: 'user', content: `q${i}` }, { role: 'assistant', content: `a${i}` }], reward: 1 });
const row = (tail: string): string => `{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"a"}]${tail}}`;

/** Rows the JSON parser or the loader's schema rejects (the full load leaves them out, or fails on them). */
const BAD: Record<string, string> = {
  bare_word: row(',"reward":1,"x":bogus'),
  bare_word_nested: row(',"reward":1,"meta":{"a":[1,{"b":nul}]}'),
  nan_nested: row(',"reward":1,"meta":[NaN]'),
  leading_zero: row(',"reward":1,"x":007'),
  leading_zero_reward: row(',"reward":01'),
  bad_fraction: row(',"reward":1.,"x":1'),
  literal_prefix: row(',"reward":1,"resolved":truex'),
  reward_inf: row(',"reward":1e400'),
  score_inf: row(',"score":-1e400'),
  mismatched: row(',"reward":1,"meta":{"a":[1}]'),
  deep: row(`,"reward":1,"x":${'['.repeat(1100)}${']'.repeat(1100)}`),
  trailing_comma_nested: row(',"reward":1,"meta":{"a":1,}'),
  trailing_comma_array: row(',"reward":1,"meta":[1,]'),
  missing_colon_nested: row(',"reward":1,"meta":{"a" 1}'),
  missing_comma_nested: row(',"reward":1,"meta":[1 "b"]'),
  key_not_string: row(',"reward":1,"meta":{a:1}'),
};

const summary = (e: { id: string; taskId: string | null; groupId: string | null; reward: number | null; resolved: boolean | null; steps: number }) => ({ id: e.id, taskId: e.taskId, groupId: e.groupId, reward: e.reward, resolved: e.resolved, steps: e.steps });

/** The index with and without the fast path list the same entries, and every entry opens. */
async function sameAsSlowPath(file: string): Promise<RolloutIndex> {
  const fast = await buildIndex(file, { chunkBytes: 4096 });
  const slow = await buildIndex(file, { chunkBytes: 4096, noFastPath: true });
  assert.deepEqual(fast.entries, slow.entries);
  assert.equal(fast.skipped, slow.skipped);
  assert.deepEqual(fast.skippedMessages, slow.skippedMessages);
  return fast;
}

describe('scale/jsonScan: values the JSON parser rejects', () => {
  it('scalarEnd and readScalar follow the JSON grammar (literals exactly, numbers without leading zeros) and reject non-finite numbers', () => {
    const b = (s: string): Buffer => Buffer.from(s);
    for (const ok of ['0', '-0', '1.5e-3', '10', 'true', 'false', 'null', '-12.0E+2']) {
      assert.equal(scalarEnd(b(ok), 0), ok.length, ok);
      assert.deepEqual(readScalar(b(ok), 0, ok.length), JSON.parse(ok), ok);
    }
    for (const bad of ['007', '01', '1.', '.5', '-', '1e', '+1', 'bogus', 'nul', 'truex', 'NaN', 'Infinity', '1.2.3']) {
      assert.throws(() => scalarEnd(b(bad), 0), ScanError, bad);
      assert.throws(() => readScalar(b(bad), 0, bad.length), ScanError, bad);
    }
    assert.throws(() => readScalar(b('1e400'), 0, 5), ScanError);
    assert.equal(valueEnd(b('[1, {"a": [true, null]}] x'), 0), 24);
    assert.throws(() => valueEnd(b('[1, {"a": [tru, null]}]'), 0), ScanError);
    assert.throws(() => valueEnd(b('[1, {"a": [1}]'), 0), ScanError);
    for (const bad of ['[1,]', '{"a":1,}', '{"a" 1}', '[1 2]', '{"a":1 "b":2}', '[,1]', '{,}', '{"a"}', '[1:2]', '{1:2}', '["a":1]']) assert.throws(() => valueEnd(b(bad), 0), ScanError, bad);
    for (const ok of ['[]', '{}', '[[], {}]', '{"a":{"b":[1,"x",null]},"c":""}', '[ 1 , 2 ]', '{ "a" : 1 }']) assert.equal(valueEnd(b(ok), 0), ok.length, ok);
    assert.throws(() => valueEnd(b('['.repeat(1000) + ']'.repeat(1000)), 0), ScanError);
    assert.equal(valueEnd(b('['.repeat(100) + ']'.repeat(100)), 0), 200);
  });

  it('a chat row with a bad value throws in the fast scan (its row goes to the loader)', () => {
    for (const [name, r] of Object.entries(BAD)) assert.throws(() => chatRowSummary(Buffer.from(r), 'f.jsonl', 1), Error, name);
    assert.equal(chatRowSummary(Buffer.from(good(0)), 'f.jsonl', 1).reward, 1);
  });

  it('JSONL: the fast index leaves out exactly the rows the full load leaves out', async () => {
    const lines = [good(0), ...Object.values(BAD), good(2)];
    const f = tmpFile('bad_values.jsonl', lines.join('\n') + '\n');
    const full = await loadFile(f);
    const index = await sameAsSlowPath(f);
    assert.deepEqual(index.entries.map(summary), full.rollouts.map((r) => summary({ id: r.id, taskId: r.task.id, groupId: r.groupId, reward: r.outcome.reward, resolved: r.outcome.resolved, steps: r.steps.length })));
    assert.equal(index.entries.length, 2);
    assert.equal(index.skipped, Object.keys(BAD).length);
  });

  for (const [name, bad] of Object.entries(BAD)) {
    it(`JSON array with a ${name} item: the fast index lists what the slow path lists, and every entry opens`, async () => {
      const f = tmpFile(`bad_${name}.json`, `[\n${good(0)},\n${bad},\n${good(2)}\n]\n`);
      const index = await sameAsSlowPath(f);
      assert.deepEqual(index.entries.map((e) => e.item), [0, 2]);
      assert.equal(index.skipped, 1);
      for (const e of index.entries) await loadItem(f, index.format, itemLocation(e));
      // Where the file is valid JSON (the schema rejects the item), the full load agrees.
      if (name.endsWith('_inf')) assert.deepEqual(index.entries.map((e) => e.id), (await loadFile(f)).rollouts.map((r) => r.id));
      else await assert.rejects(loadFile(f));
    });
  }
});

describe('scale/jsonScan: escaped keys', () => {
  const escaped = row(',"rew\\u0061rd":0.5,"\\u0069d":"e1"');

  it('the fast scan declines a row with an escaped key (forEachMember throws ScanError)', () => {
    assert.throws(() => chatRowSummary(Buffer.from(escaped), 'f.jsonl', 1), ScanError);
  });

  it('JSONL and JSON array: the escaped reward and id are read as the full load reads them', async () => {
    const jsonl = tmpFile('escaped_key.jsonl', [good(0), escaped, good(2)].join('\n') + '\n');
    const arr = tmpFile('escaped_key.json', `[\n${good(0)},\n${escaped},\n${good(2)}\n]\n`);
    for (const f of [jsonl, arr]) {
      const full = await loadFile(f);
      const index = await sameAsSlowPath(f);
      assert.deepEqual(index.entries.map(summary), full.rollouts.map((r) => summary({ id: r.id, taskId: r.task.id, groupId: r.groupId, reward: r.outcome.reward, resolved: r.outcome.resolved, steps: r.steps.length })));
      assert.equal(index.entries[1].reward, 0.5);
      assert.equal(index.entries[1].id, 'e1');
    }
  });
});

describe('scale/arrayIndex: nesting limit of an item read alone', () => {
  const nested = (d: number): string => row(`,"reward":1,"x":${'['.repeat(d)}${']'.repeat(d)}`);

  it('an item too deep is left out with the full load\'s message (same line and column)', async () => {
    const f = tmpFile('deep_item.json', `[\n${good(0)},\n${nested(1100)},\n${good(2)}\n]\n`);
    const err = await loadFile(f).then(() => null, (e: Error) => e);
    const index = await sameAsSlowPath(f);
    assert.equal(index.skipped, 1);
    const at = /deep_item\.json:(\d+:\d+)/.exec(err!.message)![1];
    assert.match(index.skippedMessages[0], new RegExp(`deep_item\\.json:${at}: expected JSON nested at most 1000 levels deep`));
  });

  it('an item whose nesting reaches level 1001 of the file only with the array\'s own level is left out, as the full load rejects the file', async () => {
    // The row object is level 2 of the file, `x` opens levels 3…: 998 brackets reach level 1000 of the file, 999 level 1001.
    const ok = tmpFile('deep_ok.json', `[${good(0)},${nested(998)}]`);
    assert.equal((await loadFile(ok)).rollouts.length, 2);
    assert.equal((await sameAsSlowPath(ok)).entries.length, 2);
    const tooDeep = tmpFile('deep_1001.json', `[${good(0)},${nested(999)}]`);
    await assert.rejects(loadFile(tooDeep), /nested at most 1000 levels/);
    const index = await sameAsSlowPath(tooDeep);
    assert.equal(index.entries.length, 1);
    assert.equal(index.skipped, 1);
  });
});
