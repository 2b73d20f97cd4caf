/**
 * Streaming in-file search (src/core/scale/search.ts) on the real NeMo-Gym sample: hits agree with
 * the test's own line-by-line count, at every chunk size, with byte offsets that point at the text
 * and the rollout (index entry) each falls in.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { buildIndex } from '../../../src/core/scale/rolloutIndex';
import { searchFile, SearchCancelledError } from '../../../src/core/scale/search';
import { sample, sampleJsonl, tmpFile } from '../samples';

const SWE = 'openai-responses/nemo-gym_mini_swe_agent_2_example_rollouts.jsonl';

/** The test's own count: [line, occurrences] of `needle` in each line (JS strings, case as given). */
function expectedLines(text: string, needle: string, fold = false): number[] {
  const out: number[] = [];
  text.split('\n').forEach((l, i) => {
    const hay = fold ? l.toLowerCase() : l;
    const n = fold ? needle.toLowerCase() : needle;
    for (let at = hay.indexOf(n); at >= 0; at = hay.indexOf(n, at + n.length)) out.push(i + 1);
  });
  return out;
}

describe('scale/search on the real NeMo-Gym sample', () => {
  const file = sample(SWE);
  const bytes = fs.readFileSync(file);
  const text = bytes.toString('utf8');
  // A command the agent ran, read from the sample: the first function call's `command` argument.
  const rows = sampleJsonl(SWE);
  const call = rows[0].response.output.find((i: any) => i.type === 'function_call');
  const command: string = JSON.parse(call.arguments).command;

  it('finds a command the agent ran (quotes and all) at every chunk size, with offsets, lines and rollouts', async () => {
    const index = await buildIndex(file);
    // Inside the file the command is a JSON string inside a JSON string: search for the inner JSON text.
    const query = JSON.stringify(command).slice(1, -1);
    const needle = JSON.stringify(query).slice(1, -1);
    const want = expectedLines(text, needle);
    assert.ok(want.length >= 1);
    for (const chunkBytes of [997, 64 * 1024, 4 * 1024 * 1024]) {
      const r = await searchFile(file, query, { caseSensitive: true, entries: index.entries, chunkBytes });
      assert.equal(r.complete, true);
      assert.deepEqual(r.hits.map((h) => h.line), want, `chunk ${chunkBytes}`);
      for (const h of r.hits) {
        assert.equal(bytes.toString('utf8', h.offset, h.offset + h.length), needle);
        assert.equal(index.entries[h.rollout!].line, h.line);
        assert.ok(h.preview.includes(needle.slice(0, 20)));
      }
    }
  });

  it('literal text as the user sees it matches its JSON-escaped form; case folding; regular expressions', async () => {
    // An output line the environment printed, with its quotes.
    const q = 'def show_versions';
    const sens = await searchFile(file, q, { caseSensitive: true, chunkBytes: 4096 });
    assert.deepEqual(sens.hits.map((h) => h.line), expectedLines(text, q));
    const fold = await searchFile(file, 'DEF SHOW_VERSIONS', { chunkBytes: 4096 });
    assert.deepEqual(fold.hits.map((h) => h.line), expectedLines(text, q, true));
    const quoted = await searchFile(file, '"command"', { caseSensitive: true });
    assert.deepEqual(quoted.hits.map((h) => h.line), expectedLines(text, '\\"command\\"'));
    const re = await searchFile(file, 'exit code:? \\d+', { regex: true, chunkBytes: 5000 });
    const wantRe = text.split('\n').flatMap((l, i) => [...l.matchAll(/exit code:? \d+/gi)].map(() => i + 1));
    assert.deepEqual(re.hits.map((h) => h.line), wantRe);
    for (const h of re.hits) assert.match(bytes.toString('utf8', h.offset, h.offset + h.length), /^exit code:? \d+$/i);
  });

  it('non-ASCII text: byte offsets of regex hits after multi-byte characters', async () => {
    const f = tmpFile('u.jsonl', ['{"a": "héllo wörld — ünïcode"}', '{"a": "ß ü ü"}', ''].join('\n'));
    const r = await searchFile(f, 'ü', { regex: true, caseSensitive: true, chunkBytes: 7 });
    const b = fs.readFileSync(f);
    assert.deepEqual(r.hits.map((h) => [h.line, b.toString('utf8', h.offset, h.offset + h.length)]), [[1, 'ü'], [2, 'ü'], [2, 'ü']]);
    const lit = await searchFile(f, 'Ü', { chunkBytes: 7 });
    assert.equal(lit.hits.length, 3);
  });

  it('stops at maxHits and cancels', async () => {
    const r = await searchFile(file, 'type', { maxHits: 3 });
    assert.equal(r.hits.length, 3);
    assert.equal(r.complete, false);
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(searchFile(file, 'type', { signal: ac.signal }), SearchCancelledError);
    await assert.rejects(searchFile(file, '(', { regex: true }), SyntaxError);
  });
});
