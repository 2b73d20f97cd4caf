/**
 * Streamed terminal recordings: core `CastScanner` / `CastSegmenter` (src/core/formats/castScan.ts)
 * give the player the same events as the whole-file path (`parseAsciicast` + host `castView`), from
 * any segment's saved state; host `CastRecording` (src/host/castStream.ts) chains windows into the
 * whole recording and answers a seek with a snapshot (core/castTerm.ts) plus events that draw the
 * same screen as replaying the recording from its start. Real casts from ../shared/samples, and
 * longer ones made of them.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseAsciicast } from '../../../src/core/formats/asciicast';
import { CastScanner, CastSegmenter, type ScannedEvent } from '../../../src/core/formats/castScan';
import { SnapshotTerminal } from '../../../src/core/castTerm';
import { openCastStream } from '../../../src/host/castFile';
import { CastRecording, readCastHeader, type CastStreamSizes } from '../../../src/host/castStream';
import { castSize, castView, streamNote } from '../../../src/host/castView';
import { CastFeed, GATE_MS } from '../../../src/host/timeline/castFeed';
import { makeStep, unknownOutcome, type Rollout } from '../../../src/core/model';
import type { HostMessage } from '../../../src/shared/protocol';
import { isHostMessage, isWebviewMessage } from '../../../src/shared/protocol';
import type { CastProgressMessage } from '../../../src/shared/castProtocol';
import { genCast } from '../../../bench/genCast';
import { sample, tmpDir } from '../samples';

const CASTS = [
  'asciicast/asciinema-tests_demo.cast',
  'asciicast/asciinema-tests_full-v2.cast',
  'asciicast/asciinema-tests_full-v3.cast',
  'asciicast/asciinema-tests_minimal-v3.cast',
  'tb1/lcbpro-1983a_with-agent-logs/sessions/agent.cast',
  'tb1/lcbpro-1983a_with-agent-logs/sessions/tests.cast',
  'tb1/orchestrator_hello-world.1-of-5/sessions/agent.cast',
  'tb1/orchestrator_hello-world.1-of-5/sessions/tests.cast',
];
const TUI_CAST = 'tb1/orchestrator_hello-world.1-of-5/sessions/tests.cast';

/** The player's events of a cast text by the whole-file path. */
function wholeEvents(text: string): { events: ScannedEvent[]; note: string | null } {
  const { cast, note } = castView(parseAsciicast(text, { lenient: true }), Number.MAX_SAFE_INTEGER);
  return { events: cast.events, note };
}

/** The events of a v2 / v3 cast text scanned line by line from the start. */
function scanned(text: string): { events: ScannedEvent[]; scanner: CastScanner } {
  const nl = text.indexOf('\n');
  const head = JSON.parse(text.slice(0, nl < 0 ? text.length : nl));
  const size = castSize(head);
  const scanner = new CastScanner(head.version, { time: 0, acc: 0, cols: size.cols, rows: size.rows, held: '' });
  const events = nl < 0 ? [] : scanner.lines(text.slice(nl + 1));
  const rest = scanner.finish();
  if (rest) events.push(rest);
  return { events, scanner };
}

/** A v2 cast made of `rel`'s events repeated `times` times, each copy later than the one before. */
function repeatCast(rel: string, times: number, dir: string): string {
  const lines = fs.readFileSync(sample(rel), 'utf8').split('\n');
  const events = lines.slice(1).filter((l) => l.trim()).map((l) => JSON.parse(l) as [number, string, string]);
  const span = events[events.length - 1][0] + 1;
  const out = [lines[0]];
  for (let k = 0; k < times; k++) for (const [t, c, d] of events) out.push(JSON.stringify([Number((t + k * span).toFixed(6)), c, d]));
  const file = path.join(dir, `repeat-${times}.cast`);
  fs.writeFileSync(file, out.join('\n') + '\n');
  return file;
}

/** Screen of a headless terminal after `events` (output and resizes) were written to it. */
async function screenAfter(cols: number, rows: number, events: readonly ScannedEvent[], base: string | null = null): Promise<string> {
  const term = new SnapshotTerminal(cols, rows);
  try {
    if (base) await term.write(base);
    let out = '';
    for (const [, code, data] of events) {
      if (code === 'o') out += data;
      else if (code === 'r') {
        const m = /^(\d+)x(\d+)$/.exec(data);
        if (m) {
          await term.write(out);
          out = '';
          term.resize(Number(m[1]), Number(m[2]));
        }
      }
    }
    await term.write(out);
    return term.snapshot();
  } finally {
    term.dispose();
  }
}

async function openRec(file: string, sizes: CastStreamSizes): Promise<{ rec: CastRecording; first: Awaited<ReturnType<typeof CastRecording.open>>['first'] }> {
  const head = await readCastHeader(file);
  assert.ok(head, `${file} has a v2 / v3 header`);
  const { recording, first } = await CastRecording.open(file, head, castSize(head.header), () => {}, 1000, sizes);
  return { rec: recording, first };
}

async function untilDone(rec: CastRecording): Promise<void> {
  while (!rec.status().done) await new Promise((r) => setTimeout(r, 5));
}

describe('host: streamed terminal recordings', function () {
  this.timeout(120_000);

  for (const rel of CASTS) {
    it(`scans ${rel} into the same events and note as the whole-file path`, () => {
      const text = fs.readFileSync(sample(rel), 'utf8');
      const whole = wholeEvents(text);
      const s = scanned(text);
      assert.deepEqual(s.events, whole.events);
      assert.equal(streamNote(JSON.parse(text.split('\n')[0]), s.scanner.counts), whole.note);
    });
  }

  it('scans a hostile cast as castView does: split absurd escapes, resizes past the limit, times going back, unknown codes, damaged lines', () => {
    const lines = [
      JSON.stringify({ version: 2, width: 80, height: 24 }),
      JSON.stringify([0.1, 'o', 'a\x1b[2147']),
      JSON.stringify([0.2, 'o', '483647Sb']),
      JSON.stringify([0.3, 'r', '9999x9999']),
      JSON.stringify([0.25, 'o', 'back in time\x1b[99999999999b']),
      JSON.stringify([1e308, 'o', 'far']),
      JSON.stringify([0.4, 'q', 'unknown code']),
      '[0.5, "o", "cut off',
      JSON.stringify([0.6, 'm', 'marker']),
      JSON.stringify([0.7, 'o', '\x1b[12']),
    ];
    const text = lines.join('\n');
    const whole = wholeEvents(text);
    const s = scanned(text);
    assert.deepEqual(s.events, whole.events);
    assert.equal(streamNote({ version: 2, width: 80, height: 24 }, s.scanner.counts), whole.note);
    assert.ok(whole.note && /lowered/.test(whole.note) && /damaged/.test(whole.note), whole.note ?? '');
  });

  it('cuts a file into segments at line ends whatever the chunks, and a scan resumed from any segment\'s state gives its events', () => {
    const text = fs.readFileSync(sample(TUI_CAST), 'utf8');
    const bytes = Buffer.from(text);
    const headEnd = bytes.indexOf(10) + 1;
    const head = JSON.parse(text.slice(0, headEnd));
    const size = castSize(head);
    const whole = wholeEvents(text).events;
    for (const chunk of [1, 7, 333, 4096, bytes.length]) {
      const got: ScannedEvent[] = [];
      const segs: { offset: number; bytes: number; state: any; events: ScannedEvent[] }[] = [];
      const seg = new CastSegmenter(2, { offset: headEnd, state: { time: 0, acc: 0, cols: size.cols, rows: size.rows, held: '' } }, 1024, (sg, evs) => {
        got.push(...evs);
        segs.push({ ...sg, events: evs });
      });
      for (let i = headEnd; i < bytes.length; i += chunk) seg.push(bytes.subarray(i, Math.min(bytes.length, i + chunk)));
      const rest = seg.end();
      if (rest) got.push(rest);
      assert.deepEqual(got, whole, `chunks of ${chunk}`);
      assert.ok(segs.length > 5, 'several segments');
      for (const sg of segs) {
        assert.equal(bytes[sg.offset - 1], 10, 'a segment starts after a line end');
        const again = new CastScanner(2, sg.state).lines(bytes.subarray(sg.offset, sg.offset + sg.bytes).toString('utf8'));
        assert.deepEqual(again, sg.events);
      }
    }
  });

  it('chains windows into the whole recording, and a seek anywhere draws the screen a replay from the start draws', async () => {
    const dir = tmpDir('ti-cast-stream-');
    const file = repeatCast(TUI_CAST, 20, dir);
    const text = fs.readFileSync(file, 'utf8');
    const whole = wholeEvents(text).events;
    const { rec, first } = await openRec(file, { segmentBytes: 2048, snapshotBytes: 16 * 1024, windowBytes: 4096 });
    try {
      await untilDone(rec);
      assert.ok(rec.snapshotStats.count >= 10, `snapshots kept: ${rec.snapshotStats.count}`);
      assert.equal(rec.status().time, whole[whole.length - 1][0]);
      // Windows from the first on, each asked for at the `next` of the one before.
      const all = [...first.events];
      let next = first.next;
      let windows = 1;
      while (next !== null) {
        const w = await rec.window(next);
        assert.equal(w.from, next);
        all.push(...w.events);
        next = w.next;
        windows++;
      }
      assert.ok(windows > 10, `windows: ${windows}`);
      assert.deepEqual(all, whole);
      const { cols, rows } = castSize(JSON.parse(text.split('\n')[0]));
      const duration = whole[whole.length - 1][0];
      for (const t of [0, duration * 0.13, duration * 0.5, duration * 0.77, duration - 0.01, duration]) {
        const w = await rec.seek(t);
        assert.ok(w.startTime <= t, `the window starts before ${t}`);
        assert.ok(w.events.length === 0 || w.events[w.events.length - 1][0] > t || w.next === null, 'the window reaches past the time');
        const expected = await screenAfter(cols, rows, whole.filter((e) => e[0] <= t));
        const upTo = w.events.filter((e) => e[0] <= t);
        const got = await screenAfter(w.base?.cols ?? cols, w.base?.rows ?? rows, upTo, w.base?.screen ?? null);
        assert.equal(got, expected, `screen at ${t}`);
        if (t > duration * 0.2) assert.ok(w.base, `a seek to ${t} starts from a snapshot`);
      }
    } finally {
      rec.dispose();
    }
  });

  it('plays a generated 12 MB cast: the first window comes before the reading ends, a seek near the end reads one snapshot interval', async () => {
    const gen = genCast(path.join(tmpDir('ti-cast-gen-'), 'gen.cast'), 12e6);
    const head = await readCastHeader(gen.file);
    assert.ok(head);
    const { recording: rec, first } = await CastRecording.open(gen.file, head, castSize(head.header), () => {});
    try {
      assert.equal(rec.status().done, false, 'the first window is given while the file is being read');
      assert.ok(first.events.length > 1_000 && first.next !== null, `first window: ${first.events.length} events`);
      const t = gen.duration - 30;
      const w = await rec.seek(t);
      assert.ok(w.base, 'from a snapshot');
      assert.ok(w.events.length < 200_000, `events of the seek window: ${w.events.length}`);
      const shown = await screenAfter(w.base.cols, w.base.rows, w.events.filter((e) => e[0] <= t), w.base.screen);
      // The generated lines say when they were printed: the last line on screen is the one at t.
      const n = Math.round(t / 0.005) - 1;
      assert.ok(shown.includes(`line ${n} `) || shown.includes(`line ${n}\x1b`), `line ${n} on the screen at ${t}`);
      assert.ok(!shown.includes(`line ${n + 1} `), 'and nothing later');
      await untilDone(rec);
      assert.equal(rec.status().time, gen.duration);
    } finally {
      rec.dispose();
    }
  });

  it('openCastStream: a streamed cast message, a progress at the end, the webview and host guards', async () => {
    const file = sample(TUI_CAST);
    const progress: CastProgressMessage[] = [];
    const h = await openCastStream(2, 'r', file, 'cast-x', (m) => progress.push(m));
    assert.equal(h.message.error, null);
    assert.equal(h.message.cast?.stream?.id, 'cast-x');
    assert.deepEqual(h.message.cast?.events, wholeEvents(fs.readFileSync(file, 'utf8')).events);
    assert.ok(isHostMessage(h.message));
    h.started();
    await untilDone(h.recording!);
    await new Promise((r) => setTimeout(r, 10));
    assert.ok(progress.length >= 1 && progress[progress.length - 1].done);
    assert.ok(isHostMessage(progress[0]));
    const w = await h.recording!.seek(1);
    assert.ok(isHostMessage({ type: 'castWindow', stream: 'cast-x', seq: 1, time: 1, ...w }));
    assert.ok(isWebviewMessage({ type: 'castWindow', stream: 'cast-x', seq: 3, from: null, time: 2.5 }));
    assert.ok(isWebviewMessage({ type: 'castWindow', stream: 'cast-x', seq: 3, from: 4, time: null }));
    assert.ok(!isWebviewMessage({ type: 'castWindow', stream: 'cast-x', seq: 3, from: 4, time: 2 }), 'one of from / time');
    assert.ok(!isWebviewMessage({ type: 'castWindow', stream: 'cast-x', seq: 3, from: null, time: -1 }));
    // A v1 cast (one JSON value) is read whole as before.
    const v1 = path.join(tmpDir('ti-cast-v1-'), 'v1.cast');
    fs.writeFileSync(v1, JSON.stringify({ version: 1, width: 20, height: 5, stdout: [[0.5, 'hi'], [0.5, ' there']] }, null, 2));
    const h1 = await openCastStream(0, 'v', v1, 'cast-y', () => {});
    assert.equal(h1.recording, null);
    assert.equal(h1.message.cast?.stream, undefined);
    assert.deepEqual(h1.message.cast?.events, [[0.5, 'o', 'hi'], [1, 'o', ' there']]);
  });

  it('CastFeed: step-slice answers wait for the first window (at most GATE_MS), windows of another stream are not answered', async () => {
    const file = sample(TUI_CAST);
    const rollout = (id: string): Rollout => ({
      id,
      format: 'tb1-trial',
      schemaVersion: null,
      source: { path: file, range: null, line: null },
      task: { id: null, instruction: null },
      agent: { name: null, version: null, model: null },
      environment: { image: null, workdir: null },
      outcome: unknownOutcome(),
      groupId: null,
      steps: [makeStep(0, 'agent', { castTime: 0 })],
      metadata: {},
      recording: { path: file, kind: 'asciicast' },
    });
    const posted: HostMessage[] = [];
    const feed = new CastFeed((m) => posted.push(m));
    try {
      const r = rollout('a');
      feed.expect(r);
      let open = false;
      const gate = feed.gate().then(() => {
        open = true;
      });
      await new Promise((res) => setTimeout(res, 20));
      assert.equal(open, false, 'the gate waits for the recording');
      await feed.load(0, r);
      await gate;
      assert.equal(posted[0].type, 'cast', 'the first window was posted before the gate opened');
      const id = posted[0].type === 'cast' ? posted[0].cast?.stream?.id : undefined;
      assert.ok(id);
      // The same recording posted again (its rollout re-sent): no wait.
      feed.expect(r);
      let again = false;
      await Promise.race([feed.gate().then(() => (again = true)), new Promise((res) => setTimeout(res, 20))]);
      assert.ok(again);
      await feed.answer({ type: 'castWindow', stream: 'another', seq: 1, from: null, time: 1 });
      assert.ok(!posted.some((m) => m.type === 'castWindow'), 'a request for another stream gets no answer');
      await feed.answer({ type: 'castWindow', stream: id, seq: 7, from: null, time: 1 });
      const w = posted.find((m) => m.type === 'castWindow');
      assert.ok(w && w.type === 'castWindow' && w.seq === 7 && w.time === 1);
      // A rollout whose recording never gets asked for: the gate opens after GATE_MS.
      feed.expect(rollout('b'));
      const t0 = Date.now();
      await feed.gate();
      assert.ok(Date.now() - t0 >= GATE_MS - 50, `opened after ${Date.now() - t0} ms`);
    } finally {
      feed.dispose();
    }
  });
});
