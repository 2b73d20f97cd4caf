/**
 * Rollout ids are unique within a file, in the full load (src/core/formats/rows.ts uniqueIds) and
 * in the lazy index (arrayIndex.ts) alike: rows of a JSON array written on one line (Python's
 * `json.dump(rows)`) are told apart by their position; files whose rows start on distinct lines keep
 * `#line<N>` (JSONL dumps, pretty-printed arrays: label journals are keyed by these ids).
 */
import * as assert from 'node:assert/strict';
import { loadFile } from '../../../src/core/load';
import { buildIndex, readCachedIndex, writeCachedIndex } from '../../../src/core/scale/rolloutIndex';
import { tmpDir, tmpFile } from '../samples';

const row = (i: number, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ messages: [{ role: 'user', content: `q${i}` }, { role: 'assistant', content: `a${i}` }], reward: i % 2, ...extra });

/** Ids of the full load and of the index (fast and slow path); asserts they agree. */
async function ids(file: string): Promise<string[]> {
  const full = (await loadFile(file)).rollouts.map((r) => r.id);
  for (const noFastPath of [false, true]) assert.deepEqual((await buildIndex(file, { chunkBytes: 64, noFastPath })).entries.map((e) => e.id), full, `noFastPath ${noFastPath}`);
  return full;
}

describe('scale: unique rollout ids for rows on one line', () => {
  it('a one-line array of rows without ids: `<path>:1`, then `#<position>`', async () => {
    const f = tmpFile('noids.json', JSON.stringify([row(1), row(2), row(3)]));
    assert.deepEqual(await ids(f), [`${f}:1`, `${f}:1#2`, `${f}:1#3`]);
  });

  it('a one-line array with a repeated id (and a left-out item, which keeps its position)', async () => {
    const f = tmpFile('dupids.json', JSON.stringify([row(1, { id: 'x' }), row(2, { id: 'x' }), { messages: 'bad', id: 'x' }, row(3, { id: 'x' }), row(4, { id: 'y' })]));
    assert.deepEqual(await ids(f), ['x', 'x#2', 'x#4', 'y']);
  });

  it('rows on their own lines keep `#line<N>` (pretty-printed array, JSONL)', async () => {
    const arr = tmpFile('dupids_pretty.json', JSON.stringify([row(1, { id: 'x' }), row(2, { id: 'x' })], null, 2));
    const a = await ids(arr);
    assert.equal(a[0], 'x');
    assert.match(a[1], /^x#line\d+$/);
    const jsonl = tmpFile('dupids.jsonl', [row(1, { id: 'x' }), row(2, { id: 'x' }), row(3, { id: 'x' })].map((r) => JSON.stringify(r)).join('\n') + '\n');
    assert.deepEqual(await ids(jsonl), ['x', 'x#line2', 'x#line3']);
  });

  it('two items per line: the first on a line gets `#line<N>`, the next one its position', async () => {
    const items = [row(1, { id: 'x' }), row(2, { id: 'x' }), row(3, { id: 'x' }), row(4, { id: 'x' })].map((r) => JSON.stringify(r));
    const f = tmpFile('twoperline.json', `[${items[0]}, ${items[1]},\n${items[2]}, ${items[3]}]\n`);
    assert.deepEqual(await ids(f), ['x', 'x#2', 'x#line2', 'x#4']);
  });

  it('an index cached before this id scheme (version 2: `#line1` repeats) is not reused', async () => {
    const f = tmpFile('cached_noids.json', JSON.stringify([row(1), row(2), row(3)]));
    const cache = tmpDir();
    const index = await buildIndex(f);
    await writeCachedIndex(cache, { ...index, version: 2, entries: index.entries.map((e, i) => ({ ...e, id: i ? `${f}:1#line1` : e.id })) });
    assert.equal(await readCachedIndex(cache, f), null);
    await writeCachedIndex(cache, index);
    assert.deepEqual((await readCachedIndex(cache, f))!.entries.map((e) => e.id), [`${f}:1`, `${f}:1#2`, `${f}:1#3`]);
  });
});
