/**
 * core/follow: reading a JSONL session a part at a time gives what a full load of the same bytes
 * gives (steps, ranges that point at the right text, located issues), whatever the parts; partial
 * lines (also cut inside a UTF-8 sequence) wait for their line break; truncation, rewrites,
 * replacement and deletion are told apart; bursts of appends coalesce.
 *
 * Two streams: the OpenHands V1 events loader's (real event shapes: the fixture conversation of
 * OpenHands/software-agent-sdk, test/fixtures/PROVENANCE.tsv) and a test-only RecordStream of a
 * toy format whose result records change earlier steps.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FollowLoop, JsonlFollower, JsonlLineReader, type FollowResult } from '../../../src/core/follow';
import type { LocatedIssue } from '../../../src/core/errors';
import { JsonDoc, LineIndex, splitJsonl, type JsonlLine } from '../../../src/core/json';
import type { FormatLoader, RecordStream, StreamedRollout, StreamStart } from '../../../src/core/formats/types';
import { decodeUtf8, loadFile, makeInput } from '../../../src/core/load';
import { makeStep, unknownOutcome, type Rollout, type Step } from '../../../src/core/model';
import { nodeFiles } from '../../../src/core/nodeFiles';
import { censusFile, tmpDir } from '../samples';
import { session, v1Events } from '../v1Session';
import { WAIT_MS, waitUntil } from '../../wait';

const jsonl = (evs: any[], eol = '\n'): string => evs.map((e) => JSON.stringify(e)).join(eol) + eol;

function write(file: string, text: string | Uint8Array): void {
  fs.writeFileSync(file, text);
}
function append(file: string, text: string | Uint8Array): void {
  fs.appendFileSync(file, text);
}

/** Reads until the follower has the whole file; returns every result. */
async function drain(f: JsonlFollower, maxBytes?: number): Promise<FollowResult[]> {
  const out: FollowResult[] = [];
  do out.push(await f.read({ maxBytes }));
  while (!f.caughtUp);
  return out;
}

/** Steps compared for equality (JSON round trip: what the webview gets). */
const plain = (r: Rollout): unknown => JSON.parse(JSON.stringify(r));

describe('core/follow JsonlLineReader', () => {
  it('gives the lines and positions of splitJsonl on the whole text, for every part size (UTF-8 cut mid-sequence, CRLF, BOM, blank lines)', () => {
    const text = '\ufeff{"a":"é"}\r\n\r\n{"b":"日本🦀"}\n  \n{"c":"x"}\r\n';
    const bytes = new TextEncoder().encode(text);
    // decodeUtf8 (a full load) drops the BOM: the positions are those of the text without it.
    const full = text.slice(1);
    const expected = splitJsonl(full);
    assert.equal(expected.length, 3);
    for (let size = 1; size <= bytes.length; size++) {
      const r = new JsonlLineReader('/x.jsonl');
      const got: JsonlLine[] = [];
      for (let at = 0; at < bytes.length; at += size) got.push(...r.push(bytes.subarray(at, at + size)));
      assert.deepEqual(got, expected, `parts of ${size} bytes`);
      const idx = new LineIndex(full);
      for (const at of [0, 5, full.indexOf('{"b"'), full.indexOf('🦀') + 1, full.length]) assert.deepEqual(r.index.position(at), idx.position(at));
      assert.equal(r.bytes, bytes.length);
      assert.equal(r.tail(), null);
    }
  });

  it('holds back a partial last line, also one cut inside a multi-byte character, and keeps a BOM-less offset', () => {
    const r = new JsonlLineReader('/x.jsonl');
    const b = new TextEncoder().encode('{"a":1}\n{"b":"🦀');
    assert.deepEqual(r.push(b.subarray(0, b.length - 2)), [{ line: 1, offset: 0, text: '{"a":1}' }]);
    const t = r.tail()!;
    assert.equal(t.line, 2);
    assert.equal(t.offset, 8);
    assert.match(t.text, /^\{"b":"\uFFFD/);
    assert.equal(r.tailBytes, b.length - 2 - 8);
    assert.deepEqual(r.push(new Uint8Array([...b.subarray(b.length - 2), ...new TextEncoder().encode('"}\n')])), [{ line: 2, offset: 8, text: '{"b":"🦀"}' }]);
    assert.equal(r.tail(), null);
  });

  it('rejects bytes that are not UTF-8 and NUL bytes (a full load says where)', () => {
    assert.throws(() => new JsonlLineReader('/x').push(new Uint8Array([0x7b, 0xff, 0x7d, 0x0a])), /not UTF-8/);
    assert.throws(() => new JsonlLineReader('/x').push(new Uint8Array([0x7b, 0x00, 0x7d, 0x0a])), /not UTF-8/);
  });
});

describe('core/follow JsonlFollower over the OpenHands V1 events stream', () => {
  it('appended in parts of every kind ends equal to a full load: steps, ranges on the right text, and changedFrom keeps earlier steps', async () => {
    const evs = session(40);
    for (const eol of ['\n', '\r\n']) {
      const text = jsonl(evs, eol);
      const bytes = new TextEncoder().encode(text);
      const file = path.join(tmpDir(), 'events.jsonl');
      // The first part: the first 3 lines and half of the 4th, cut inside a multi-byte character.
      const cut = text.indexOf('🦀', text.split(eol).slice(0, 3).join(eol).length) + 1;
      let at = new TextEncoder().encode(text.slice(0, cut)).length - 2;
      write(file, bytes.subarray(0, at));
      const f = (await JsonlFollower.open(file, { firstBytes: 64 }))!;
      assert.ok(f, 'followed: the V1 loader has stream()');
      assert.equal(f.loader.id, 'openhands-v1');
      assert.deepEqual(f.loaded.rollouts[0].steps.map((s) => s.sourceId), [evs[0].id, evs[1].id, 'act-0']);
      // The partial 4th line is held back and said so, at its line.
      assert.deepEqual(f.loaded.issues?.map((i) => [i.line, i.expected]), [[4, 'a complete line (ending in a line break)']]);
      let prev: Step[] = structuredClone(f.loaded.rollouts[0].steps);
      let sizes = [1, 3, 17, 250, 1, 4096];
      let k = 0;
      while (at < bytes.length) {
        const n = sizes[k++ % sizes.length];
        append(file, bytes.subarray(at, at + n));
        at += n;
        const r = await f.read();
        if (r.kind === 'same') continue;
        assert.equal(r.kind, 'update');
        if (r.kind !== 'update') return;
        const steps = f.loaded.rollouts[0].steps;
        const from = r.changes[0].changedFrom;
        assert.deepEqual(steps.slice(0, from), prev.slice(0, from), 'steps before changedFrom are unchanged');
        prev = structuredClone(steps);
      }
      const full = await loadFile(file);
      assert.deepEqual(plain(f.loaded.rollouts[0]), plain(full.rollouts[0]));
      assert.equal(f.loaded.issues, undefined);
      const r0 = f.loaded.rollouts[0];
      assert.equal(r0.steps.length, 2 + 40 + 2);
      // Each step's range is its event's text in the file (Show in Source).
      for (const s of r0.steps) assert.equal(JSON.parse(text.slice(s.range!.start, s.range!.end)).id, s.sourceId);
      // The observation joined its action's step; the command and output kept their characters.
      const s7 = r0.steps.find((s) => s.sourceId === 'act-7')!;
      assert.equal(s7.actions[0].command, 'echo "café 日本 🦀 7"');
      assert.equal(s7.observations[0].output, 'café 日本 🦀 7\n');
      assert.equal(s7.durationSec, 0.4);
    }
  });

  it('opens a large file from its first part, then reads the rest in slices to the same result', async () => {
    const evs = session(400);
    const text = jsonl(evs);
    const file = path.join(tmpDir(), 'big.jsonl');
    write(file, text);
    const f = (await JsonlFollower.open(file, { firstBytes: 4096 }))!;
    const first = f.loaded.rollouts[0].steps.length;
    assert.ok(first > 2 && first < 50, `first part: ${first} steps`);
    assert.equal(f.caughtUp, false);
    const results = await drain(f, 8192);
    assert.ok(results.length > 5);
    assert.ok(results.every((r) => r.kind === 'update'));
    assert.deepEqual(plain(f.loaded.rollouts[0]), plain((await loadFile(file)).rollouts[0]));
  });

  it('reads a last line without a line break at once, and takes its line break later without reading it twice', async () => {
    const evs = session(2);
    const file = path.join(tmpDir(), 'events.jsonl');
    write(file, jsonl(evs).trimEnd());
    const f = (await JsonlFollower.open(file))!;
    assert.equal(f.loaded.rollouts[0].steps.at(-1)!.sourceId, evs.at(-1).id);
    assert.equal(f.loaded.issues, undefined);
    const n = f.loaded.rollouts[0].steps.length;
    const extra = { ...evs.at(-1), id: 'late-1' };
    append(file, `\n${JSON.stringify(extra)}\n`);
    const r = await f.read();
    assert.equal(r.kind, 'update');
    assert.deepEqual(f.loaded.rollouts[0].steps.slice(n - 1).map((s) => s.sourceId), [evs.at(-1).id, 'late-1']);
    assert.deepEqual(plain(f.loaded.rollouts[0]), plain((await loadFile(file)).rollouts[0]));
  });

  it('resets when a line read without its line break goes on', async () => {
    const file = path.join(tmpDir(), 'events.jsonl');
    write(file, jsonl(session(1)).trimEnd());
    const f = (await JsonlFollower.open(file))!;
    append(file, ' {"more": 1}\n');
    assert.deepEqual(await f.read(), { kind: 'reset', reason: 'a line read without its line break went on' });
  });

  it('takes a cut-off last line of a file not being written as a bad line, located as a full load locates it', async () => {
    const text = jsonl(session(2));
    const file = path.join(tmpDir(), 'events.jsonl');
    write(file, text + text.split('\n')[3].slice(0, 60));
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(file, old, old);
    const f = (await JsonlFollower.open(file))!;
    const full = await loadFile(file);
    assert.deepEqual(full.issues?.map((i) => i.line), [text.split('\n').length]);
    assert.deepEqual(f.loaded.issues, full.issues);
    assert.deepEqual(plain(f.loaded.rollouts[0]), plain(full.rollouts[0]));
  });

  it('waits for a partial line of a file being written, and takes it as cut off once it has not grown for settleMs', async () => {
    const text = jsonl(session(2));
    const file = path.join(tmpDir(), 'events.jsonl');
    write(file, text + '{"kind":"MessageEv');
    let now = Date.now();
    const f = (await JsonlFollower.open(file, { now: () => now, settleMs: 2000 }))!;
    const line = text.split('\n').length;
    assert.deepEqual(f.loaded.issues?.map((i) => [i.line, i.column, i.found]), [[line, 1, '18 bytes of a line still being written (read when it is complete)']]);
    assert.deepEqual(await f.read(), { kind: 'same' });
    now += 2500;
    const r = await f.read();
    assert.equal(r.kind, 'update');
    assert.equal(f.loaded.issues?.length, 1);
    assert.equal(f.loaded.issues?.[0].line, line);
    assert.match(f.loaded.issues![0].expected, /valid JSON/);
  });

  it('tells truncation, rewrites, replacement and deletion apart', async () => {
    const dir = tmpDir();
    const file = path.join(dir, 'events.jsonl');
    const text = jsonl(session(3));
    const open = async (): Promise<JsonlFollower> => {
      write(file, text);
      return (await JsonlFollower.open(file))!;
    };
    let f = await open();
    fs.truncateSync(file, 100);
    assert.deepEqual(await f.read(), { kind: 'reset', reason: 'the file was truncated' });
    f = await open();
    // Same size, the start changed (rewritten in place).
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, '{"kind":"X"', 0);
    fs.closeSync(fd);
    assert.deepEqual(await f.read(), { kind: 'reset', reason: 'the file was rewritten' });
    f = await open();
    write(path.join(dir, 'new.jsonl'), text + text);
    fs.renameSync(path.join(dir, 'new.jsonl'), file);
    assert.deepEqual(await f.read(), { kind: 'reset', reason: 'the file was replaced' });
    f = await open();
    fs.unlinkSync(file);
    assert.deepEqual(await f.read(), { kind: 'deleted' });
    assert.equal(f.isDeleted, true);
    assert.equal(f.loaded.rollouts[0].steps.length, 2 + 3 + 2, 'what was read stays');
    write(file, text);
    assert.deepEqual(await f.read(), { kind: 'reset', reason: 'the file was created again' });
  });

  it('follows nothing for a format without stream() or a file that is not JSONL', async () => {
    const dir = tmpDir();
    const chat = path.join(dir, 'rows.jsonl');
    write(chat, '{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}\n');
    assert.equal((await loadFile(chat)).format, 'openai-chat');
    assert.equal(await JsonlFollower.open(chat), null);
    const list = path.join(dir, 'events.json');
    write(list, JSON.stringify(v1Events()));
    assert.equal(await JsonlFollower.open(list), null);
    const empty = path.join(dir, 'empty.jsonl');
    write(empty, '');
    assert.equal(await JsonlFollower.open(empty), null);
    assert.equal(await JsonlFollower.open(path.join(dir, 'missing.jsonl')), null);
    // Another name: followed when its first line is a JSON value alone (not a pretty-printed document).
    const txt = path.join(dir, 'events.log');
    write(txt, jsonl(session(1)));
    assert.equal((await JsonlFollower.open(txt))?.loader.id, 'openhands-v1');
    const pretty = path.join(dir, 'events-pretty.json');
    write(pretty, JSON.stringify(session(1), null, 2));
    assert.equal(await JsonlFollower.open(pretty), null);
  });
});

// ------------------------------------------------------------------ a test-only stream

/**
 * Toy format: `{"t":"step","text":…}` is a step, `{"t":"result","of":k,"out":…}` adds an output to
 * step k (an earlier step changes), `{"t":"fork"}` starts a second rollout. Bad lines are issues.
 */
class ToyStream implements RecordStream {
  readonly issues: LocatedIssue[] = [];
  private readonly rollouts: Rollout[] = [];
  private readonly changed: number[] = [];
  constructor(private readonly start: StreamStart) {}
  private rollout(i: number): Rollout {
    while (this.rollouts.length <= i) {
      const n = this.rollouts.length;
      this.rollouts.push({
        id: `${this.start.path}#${n}`,
        format: 'openai-chat',
        schemaVersion: null,
        source: { path: this.start.path, range: null, line: null },
        task: { id: null, instruction: null },
        agent: { name: null, version: null, model: null },
        environment: { image: null, workdir: null },
        outcome: unknownOutcome(),
        groupId: null,
        steps: [],
        metadata: {},
      });
      this.changed.push(0);
    }
    return this.rollouts[i];
  }
  push(lines: readonly JsonlLine[]): void {
    for (const l of lines) {
      let doc: JsonDoc;
      try {
        doc = this.start.parseLine(l);
      } catch (e) {
        this.issues.push(...(e as { issues: any[] }).issues);
        continue;
      }
      const v = doc.value as { t: string; text?: string; of?: number; out?: string };
      const r = this.rollout(this.rollouts.length ? this.rollouts.length - 1 : 0);
      if (v.t === 'fork') this.rollout(this.rollouts.length);
      else if (v.t === 'step') {
        r.steps.push(makeStep(r.steps.length, 'agent', { message: v.text ?? '', range: doc.valueRange() }));
        const i = this.rollouts.indexOf(r);
        this.changed[i] = Math.min(this.changed[i], r.steps.length - 1);
      } else if (v.t === 'result' && r.steps[v.of!]) {
        r.steps[v.of!].observations.push({ callId: null, output: v.out ?? '', exitCode: null, truncated: false });
        const i = this.rollouts.indexOf(r);
        this.changed[i] = Math.min(this.changed[i], v.of!);
      } else this.issues.push(doc.issue(['t'], '"step", "result" or "fork"'));
    }
  }
  snapshot(): StreamedRollout[] {
    return this.rollouts.map((r, i) => {
      const changedFrom = Math.min(this.changed[i], r.steps.length);
      this.changed[i] = Infinity;
      return { rollout: { ...r, steps: r.steps.map((s) => structuredClone(s)) }, changedFrom };
    });
  }
}

const toyLoader: FormatLoader = {
  id: 'openai-chat',
  label: 'toy steps',
  detect: (input) => ((input.firstLineValue as { t?: string })?.t === 'step' ? { accept: true, confidence: 1 } : { accept: false, reason: 'not toy' }),
  stream: (start) => new ToyStream(start),
  async load(input) {
    const s = new ToyStream({ path: input.path, files: input.files, parseLine: input.parseLine });
    s.push(input.lines ?? []);
    return s.snapshot().map((x) => x.rollout);
  },
};

describe('core/follow with a test-only RecordStream', () => {
  it('reports changedFrom for a result that changes an earlier step, and a new rollout from 0', async () => {
    const file = path.join(tmpDir(), 'toy.jsonl');
    write(file, '{"t":"step","text":"one"}\n{"t":"step","text":"two"}\n');
    const f = (await JsonlFollower.open(file, { loaders: [toyLoader] }))!;
    assert.deepEqual(f.loaded.rollouts[0].steps.map((s) => s.message), ['one', 'two']);
    append(file, '{"t":"result","of":0,"out":"ok"}\n');
    assert.deepEqual(await f.read(), { kind: 'update', changes: [{ index: 0, changedFrom: 0 }] });
    assert.equal(f.loaded.rollouts[0].steps[0].observations[0].output, 'ok');
    append(file, '{"t":"step","text":"three"}\n{"t":"fork"}\n{"t":"step","text":"b1"}\n');
    assert.deepEqual(await f.read(), {
      kind: 'update',
      changes: [
        { index: 0, changedFrom: 2 },
        { index: 1, changedFrom: 0 },
      ],
    });
    append(file, 'not json\n{"t":"other"}\n');
    const r = await f.read();
    assert.equal(r.kind, 'update');
    assert.deepEqual(f.loaded.issues?.map((i) => [i.line, i.pointer]), [[7, null], [8, '/t']]);
    const text = fs.readFileSync(file, 'utf8');
    const full = await toyLoader.load(makeInput(file, text, nodeFiles));
    assert.deepEqual(plain(f.loaded.rollouts[1]), plain(full[1]));
    assert.equal(text.slice(f.loaded.rollouts[1].steps[0].range!.start, f.loaded.rollouts[1].steps[0].range!.end), '{"t":"step","text":"b1"}');
  });
});

describe('core/follow FollowLoop', () => {
  it('coalesces a burst of pokes into few reads and reads a large file to its end in slices', async () => {
    let reads = 0;
    let left = 3; // slices still to read
    const fake = {
      caughtUp: false,
      async read(): Promise<FollowResult> {
        reads++;
        await new Promise((r) => setTimeout(r, 5));
        left = Math.max(0, left - 1);
        fake.caughtUp = left === 0;
        return { kind: 'update', changes: [] };
      },
    };
    const results: FollowResult[] = [];
    const loop = new FollowLoop(fake, (r) => results.push(r), { minGapMs: 10 });
    for (let i = 0; i < 50; i++) loop.poke();
    await waitUntil(() => fake.caughtUp && results.length === reads, WAIT_MS, () => `the loop did not catch up: ${reads} reads`);
    assert.equal(reads, 3, 'three slices, the 50 pokes coalesced');
    for (let i = 0; i < 20; i++) loop.poke();
    await waitUntil(() => results.length === 4, WAIT_MS, () => `no read for the burst after catching up: ${reads} reads`);
    await new Promise((r) => setTimeout(r, 100)); // a read too many would start within the 10 ms gap
    assert.equal(reads, 4, 'one read for a burst after catching up');
    loop.close();
    loop.poke();
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(reads, 4);
    assert.equal(results.length, 4);
  });
});

describe('core/follow on real session files (../shared/format-census)', () => {
  /** Real sessions with multi-byte text (Claude Code, Codex CLI, Copilot CLI, Gemini CLI JSONL). */
  const REAL = [
    'claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl',
    'claude-code/vibecodingtracker_claude_code.jsonl',
    'codex-cli/vibecodingtracker_codex.jsonl',
    'copilot-cli/copilot.jsonl',
    'gemini-cli/session-jsonl_gemini.jsonl',
  ];

  it('reads the lines of each file, in parts of odd sizes, as splitJsonl reads the whole decoded text', () => {
    for (const rel of REAL) {
      const file = censusFile(rel);
      const bytes = fs.readFileSync(file);
      const text = decodeUtf8(file, bytes);
      const expected = splitJsonl(text);
      const firstWide = expected.findIndex((l) => /[^\x00-\x7f]/.test(l.text));
      assert.ok(firstWide >= 0, `${rel} has a line with multi-byte text`);
      for (const size of [1021, 4093, 65_537]) {
        const r = new JsonlLineReader(file);
        const got: JsonlLine[] = [];
        for (let at = 0; at < bytes.length; at += size) got.push(...r.push(bytes.subarray(at, at + size)));
        assert.equal(got.length, expected.length, `${rel}, parts of ${size}`);
        assert.deepEqual(got[firstWide], expected[firstWide]);
        assert.deepEqual(got.at(-1), expected.at(-1));
        assert.ok(got.every((l, i) => l.offset === expected[i].offset && l.line === expected[i].line && l.text === expected[i].text));
        const idx = new LineIndex(text);
        const at = expected.at(-1)!.offset + 3;
        assert.deepEqual(r.index.position(at), idx.position(at));
      }
    }
  });

  it("follows the real Claude Code session appended in parts: each record's range is its line in the file", async () => {
    // A test-only stream of one step per record (the Claude Code loader's own stream comes with it).
    const perRecord: FormatLoader = {
      ...toyLoader,
      detect: (input) => (typeof (input.firstLineValue as { type?: unknown })?.type === 'string' ? { accept: true, confidence: 1 } : { accept: false, reason: 'no type' }),
      stream: (start) => {
        const steps: Step[] = [];
        const issues: LocatedIssue[] = [];
        let changed = 0;
        return {
          issues,
          push(lines) {
            for (const l of lines) {
              const doc = start.parseLine(l);
              steps.push(makeStep(steps.length, 'agent', { message: String((doc.value as { type: string }).type), sourceId: String((doc.value as { uuid?: string }).uuid ?? ''), range: doc.valueRange() }));
            }
          },
          snapshot() {
            const from = changed;
            changed = steps.length;
            return [{ rollout: { id: start.path, format: 'claude-code', schemaVersion: null, source: { path: start.path, range: null, line: null }, task: { id: null, instruction: null }, agent: { name: null, version: null, model: null }, environment: { image: null, workdir: null }, outcome: unknownOutcome(), groupId: null, steps: steps.slice(), metadata: {} }, changedFrom: from }];
          },
        };
      },
    };
    const src = censusFile('claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl');
    const bytes = fs.readFileSync(src);
    const text = decodeUtf8(src, bytes);
    const file = path.join(tmpDir(), 'session.jsonl');
    write(file, bytes.subarray(0, 100_003));
    const f = (await JsonlFollower.open(file, { loaders: [perRecord], firstBytes: 50_000 }))!;
    for (let at = 100_003; at < bytes.length; at += 77_777) {
      append(file, bytes.subarray(at, at + 77_777));
      await drain(f);
    }
    const steps = f.loaded.rollouts[0].steps;
    const lines = splitJsonl(text);
    assert.equal(steps.length, lines.length);
    for (let i = 0; i < lines.length; i++) {
      const v = JSON.parse(lines[i].text);
      assert.deepEqual(JSON.parse(text.slice(steps[i].range!.start, steps[i].range!.end)), v);
      assert.equal(steps[i].message, v.type);
    }
    assert.deepEqual([...new Set(steps.map((s) => s.message))].sort(), [...new Set(lines.map((l) => JSON.parse(l.text).type as string))].sort());
  });
});
