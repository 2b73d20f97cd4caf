/**
 * Streaming in-file search (src/core/scale/fileSearch.ts) on the real NeMo-Gym sample: hits agree with
 * the test's own line-by-line count, at every chunk size, with byte offsets that point at the text
 * and the rollout (index entry) each falls in.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { buildIndex } from '../../../src/core/scale/rolloutIndex';
import { searchFile, searchFileScan, SearchCancelledError } from '../../../src/core/scale/fileSearch';
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

describe('scale/fileSearch on the real NeMo-Gym sample', () => {
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

describe('scale/fileSearch driven by ripgrep (rgPath): the same hits as the built-in scanner', () => {
  const RG = process.env.TI_RG ?? '/usr/bin/rg';
  const file = sample(SWE);
  before(function () {
    if (!fs.existsSync(RG)) {
      if (process.env.CI === 'true') throw new Error(`ripgrep is missing at ${RG} (scripts/setup-test-env.sh installs it)`);
      this.skip();
    }
  });

  it('literal (case-sensitive and folded), quoted, regex and non-ASCII queries: identical hits, lines, rollouts and previews', async () => {
    const index = await buildIndex(file);
    const u = tmpFile('u.jsonl', ['{"a": "héllo wörld — ünïcode"}', '{"a": "ß ü ü"}', ''].join('\n'));
    const cases: [string, string, { regex?: boolean; caseSensitive?: boolean }][] = [
      [file, 'def show_versions', { caseSensitive: true }],
      [file, 'DEF SHOW_VERSIONS', {}],
      [file, '"command"', { caseSensitive: true }],
      [file, 'exit code:? \\d+', { regex: true }],
      [file, 'Traceback \\(most', { regex: true, caseSensitive: true }],
      [u, 'ü', { regex: true, caseSensitive: true }],
      [u, 'wörld', { caseSensitive: true }],
    ];
    let total = 0;
    for (const [f, q, o] of cases) {
      const entries = f === file ? index.entries : undefined;
      const scan = await searchFileScan(f, q, { ...o, entries });
      let streamed = 0;
      const rg = await searchFile(f, q, { ...o, entries, rgPath: RG, onHits: (h) => (streamed += h.length) });
      assert.deepEqual(rg.hits, scan.hits, `${q} ${JSON.stringify(o)}`);
      assert.equal(streamed, rg.hits.length);
      assert.equal(rg.complete, true);
      total += rg.hits.length;
    }
    assert.ok(total > 10, `hits in all: ${total}`);
  });

  it('stops at maxHits, cancels, and falls back to the scanner for a pattern ripgrep rejects (look-ahead) or a missing rg', async () => {
    const r = await searchFile(file, 'type', { maxHits: 3, rgPath: RG });
    assert.equal(r.hits.length, 3);
    assert.equal(r.complete, false);
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(searchFile(file, 'type', { signal: ac.signal, rgPath: RG }), SearchCancelledError);
    const look = await searchFile(file, 'show_(?=versions)', { regex: true, rgPath: RG });
    assert.deepEqual(look.hits, (await searchFileScan(file, 'show_(?=versions)', { regex: true })).hits);
    assert.ok(look.hits.length > 0);
    const missing = await searchFile(file, 'show_versions', { rgPath: '/nonexistent/rg' });
    assert.deepEqual(missing.hits, (await searchFileScan(file, 'show_versions', {})).hits);
    await assert.rejects(searchFile(file, '(', { regex: true, rgPath: RG }), SyntaxError);
  });
});
