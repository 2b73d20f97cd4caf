import { strict as assert } from 'node:assert';
import { runBounded } from './bounded';
import type { Declined } from '../../src/core/errors';

type Out = { message: string; declined: Declined[] };

describe('hostile no-format files: every decline points at a place (issue 18 item 8)', () => {
  it('an ATIF-like file whose schema_version is a number: the ATIF decline says so and points at the field', async () => {
    const text = JSON.stringify({ schema_version: 1.5, session_id: 's', agent: { name: 'a' }, steps: [] }, null, 2);
    const r = await runBounded<Out>('noformatCases.ts', 'declines', ['trajectory.json', text]);
    const atif = r.value.declined.find((d) => /ATIF/.test(d.format))!;
    assert.doesNotMatch(atif.reason, /no "schema_version" field/);
    assert.match(atif.reason, /"schema_version" is number 1\.5/);
    assert.deepEqual([atif.line, atif.column, atif.pointer], [2, 21, '/schema_version']);
    assert.match(r.value.message, /\(line 2, column 21, at \/schema_version\)/);
  });
  it('every loader of a JSON or JSONL file names a line, a column and a pointer', async () => {
    for (const [name, text] of [
      ['x.json', JSON.stringify({ hello: 'world', steps: 3 }, null, 2)],
      ['x.jsonl', '{"type":"robot","n":1}\n{"type":"robot","n":2}\n'],
      ['x.json', '[1, 2, 3]'],
    ]) {
      const r = await runBounded<Out>('noformatCases.ts', 'declines', [name, text]);
      assert.ok(r.value.declined.length > 10);
      for (const d of r.value.declined) {
        assert.ok(typeof d.line === 'number' && typeof d.column === 'number' && typeof d.pointer === 'string', `${name}: ${d.format}: ${d.reason}`);
        assert.match(d.reason, /\(line \d+, column \d+, at \/[^)]*\)$/);
      }
    }
  });
  it('a reason saying a field is missing when it is there with another type says what it holds', async () => {
    const text = JSON.stringify({ trajectory: 'not a list' }, null, 2);
    const r = await runBounded<Out>('noformatCases.ts', 'declines', ['x.traj', text]);
    const swe = r.value.declined.find((d) => /^SWE-agent trajectory \(/.test(d.format))!;
    assert.match(swe.reason, /"trajectory" is there but holds string "not a list"/);
    assert.equal(swe.pointer, '/trajectory');
  });
});
