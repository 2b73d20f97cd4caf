import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { RolloutLoadError, formatIssue } from '../../../src/core/errors';
import { JsonDoc, LineIndex, splitJsonl, toPointer } from '../../../src/core/json';

describe('core/json', () => {
  it('maps offsets to 1-based line/column', () => {
    const idx = new LineIndex('ab\ncd\n\nef');
    assert.deepEqual(idx.position(0), { line: 1, column: 1 });
    assert.deepEqual(idx.position(4), { line: 2, column: 2 });
    assert.deepEqual(idx.position(7), { line: 4, column: 1 });
  });

  it('escapes JSON pointers per RFC 6901', () => {
    assert.equal(toPointer(['steps', 3, 'a/b', 'c~d']), '/steps/3/a~1b/c~0d');
  });

  it('locates a syntax error by line and column', () => {
    const text = '{\n  "a": [1, 2\n}';
    assert.throws(() => JsonDoc.parse('/x.json', text), (e: unknown) => {
      assert.ok(e instanceof RolloutLoadError);
      const i = e.issues[0];
      assert.equal(i.line, 3);
      assert.equal(i.column, 1);
      assert.match(i.expected, /valid JSON/);
      return true;
    });
  });

  it('says in words what a cut-off file lacks, where, and in which value', () => {
    const text = '{\n  "steps": [\n    {"output": "The missing';
    assert.throws(() => JsonDoc.parse('/cut.json', text), (e: unknown) => {
      const i = (e as RolloutLoadError).issues[0];
      assert.equal(i.line, 3);
      assert.equal(i.column, text.split('\n')[2].length + 1); // where the text stops, not where the string starts
      assert.equal(i.expected, 'valid JSON: a closing " for the string that starts at 3:16');
      assert.equal(i.found, 'the end of the file (the file may be cut off)');
      assert.equal(i.pointer, '/steps/0/output');
      return true;
    });
    assert.throws(() => JsonDoc.parse('/x.json', '{"a": [1, 2 "b"]}'), (e: unknown) => {
      const i = (e as RolloutLoadError).issues[0];
      assert.equal(i.expected, 'valid JSON: "," between values');
      assert.equal(i.found, '`"b"]}`');
      assert.doesNotMatch(formatIssue(i), /CommaExpected/);
      return true;
    });
  });

  it('gives ranges of values and validates with located zod issues', () => {
    const text = '{\n  "steps": [\n    {"source": "agent"},\n    {"source": "robot"}\n  ]\n}';
    const doc = JsonDoc.parse('/t.json', text);
    const r = doc.rangeOf(['steps', 1])!;
    assert.equal(text.slice(r.start, r.end), '{"source": "robot"}');
    const schema = z.object({ steps: z.array(z.object({ source: z.enum(['agent', 'user']) })) });
    assert.throws(() => doc.validate(schema, 'test format'), (e: unknown) => {
      assert.ok(e instanceof RolloutLoadError);
      assert.equal(e.issues.length, 1);
      const i = e.issues[0];
      assert.equal(i.pointer, '/steps/1/source');
      assert.equal(i.line, 4);
      assert.match(i.expected, /"agent" \| "user"/);
      assert.equal(i.found, 'string "robot"');
      assert.match(formatIssue(i), /^\/t\.json:4:\d+ at \/steps\/1\/source: expected/);
      return true;
    });
  });

  it('reports a missing field at its parent position', () => {
    const doc = JsonDoc.parse('/m.json', '{\n "steps": [\n  {}\n ]\n}');
    const schema = z.object({ steps: z.array(z.object({ source: z.string() })) });
    assert.throws(() => doc.validate(schema, 'f'), (e: unknown) => {
      const i = (e as RolloutLoadError).issues[0];
      assert.equal(i.pointer, '/steps/0/source');
      assert.equal(i.found, 'missing');
      assert.equal(i.line, 3);
      return true;
    });
  });

  it('splits JSONL with CRLF and blank lines, keeping file offsets', () => {
    const text = '{"a":1}\r\n\n{"b":2}\n';
    const lines = splitJsonl(text);
    assert.deepEqual(lines.map((l) => [l.line, l.text]), [[1, '{"a":1}'], [3, '{"b":2}']]);
    assert.equal(text.slice(lines[1].offset, lines[1].offset + 7), '{"b":2}');
    const idx = new LineIndex(text);
    const doc = JsonDoc.parse('/x.jsonl', lines[1].text, lines[1].offset, idx);
    assert.deepEqual(doc.locate(['b']), { line: 3, column: 6 }); // the value 2
  });
  it('itemRanges gives the ranges rangeOf gives for the items of a top-level array, without the syntax tree', () => {
    const texts = [
      '{"a": 1, "steps": [ {"x": "]}\\"" }, [1, [2]], "s", -1.5e3 , true, null,{} ], "z": {"steps": [9]}}',
      ' {\n "steps":[],"b":"\\\\"}',
      '{"é": "ü", "steps": ["😀", {"t": "x\\u0022"}]}',
    ];
    for (const text of texts) {
      const doc = JsonDoc.parse('/x.json', text, 7);
      const items = (doc.value as { steps: unknown[] }).steps;
      assert.deepEqual(doc.itemRanges('steps'), items.map((_, i) => doc.rangeOf(['steps', i])), text);
    }
    // Repeated keys: the ranges are those of the value JSON.parse keeps (the last).
    assert.deepEqual(JsonDoc.parse('/x.json', '{"steps": [1], "steps": [{"k": [ ]}, 2]}').itemRanges('steps'), [{ start: 25, end: 35 }, { start: 37, end: 38 }]);
    assert.equal(JsonDoc.parse('/x.json', '{"steps": 3}').itemRanges('steps'), null);
    assert.equal(JsonDoc.parse('/x.json', '[1]').itemRanges('steps'), null);
    assert.equal(JsonDoc.parse('/x.json', '{"a": [1]}').itemRanges('steps'), null);
  });
});
