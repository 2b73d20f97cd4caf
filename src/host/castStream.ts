/**
 * A terminal recording (asciicast v2 / v3) played from the file as it is, at any size: the host
 * reads it once from start to end (`CastRecording.open`), keeping for every ~256 KiB of event lines
 * where they start and the scan state there (core/formats/castScan.ts), and, every SNAPSHOT_BYTES
 * of the file, a snapshot of the terminal's screen at that point (core/castTerm.ts, @xterm/headless
 * fed the same clamped output the player gets). The player gets the first window of events as soon
 * as it is read (before the rest is), further windows when it plays on (`window`), and for a seek
 * the snapshot nearest before the time with the events from there (`seek`): what it holds and what
 * the host reads for it stay bounded whatever the recording's size.
 *
 * Memory: ~100 bytes per segment (4,000 for 1 GB), the snapshots (at most MAX_SNAPSHOT_CHARS in all:
 * past that every other one is dropped), and the window being read. No `vscode` import.
 */
import { promises as fsp } from 'node:fs';
import { setImmediate as yieldNow } from 'node:timers/promises';
import { SnapshotTerminal } from '../core/castTerm';
import { parseAsciicastPositioned } from '../core/formats/asciicast';
import { CastScanner, CastSegmenter, type CastScanCounts, type CastSegment, type ScannedEvent } from '../core/formats/castScan';
import type { CastEventView } from '../shared/castProtocol';

/** Bytes of event lines per segment (the unit of a window). */
export const SEGMENT_BYTES = 256 * 1024;
/** Bytes of the file between two snapshots (so a seek reads and replays at most about this much). */
export const SNAPSHOT_BYTES = 1024 * 1024;
/** Bytes of event lines a window holds at least (the last segment may end it later). */
export const WINDOW_BYTES = 1024 * 1024;
/** All snapshots together, characters at most. */
export const MAX_SNAPSHOT_CHARS = 64 * 1024 * 1024;
/** The header line is looked for in the first this many bytes. */
const MAX_HEADER_BYTES = 1024 * 1024;

/** Sizes a recording is read with (the defaults: SEGMENT_BYTES, SNAPSHOT_BYTES, WINDOW_BYTES; tests use small ones). */
export interface CastStreamSizes {
  segmentBytes: number;
  snapshotBytes: number;
  windowBytes: number;
}

const SIZES: CastStreamSizes = { segmentBytes: SEGMENT_BYTES, snapshotBytes: SNAPSHOT_BYTES, windowBytes: WINDOW_BYTES };

/** A snapshot of the screen at the start of segment `seg`. */
interface Snapshot {
  seg: number;
  time: number;
  cols: number;
  rows: number;
  screen: string;
}

/** Events of a window and where it stands. */
export interface CastWindow {
  /** Segment the window starts at. */
  from: number;
  /** Played time before its first event. */
  startTime: number;
  /** The screen to start from (null: a reset terminal of the header's size, only at segment 0). */
  base: { screen: string; cols: number; rows: number } | null;
  events: CastEventView[];
  /** Segment after the window, or null when it reaches the end of the recording. */
  next: number | null;
}

/** How far the reading has come. */
export interface CastProgress {
  /** Played time of the last event read (the recording's duration once `done`). */
  time: number;
  done: boolean;
  counts: CastScanCounts;
  /** Why the reading stopped early (the file shrank or could not be read), else null. */
  error: string | null;
}

/** The header of a v2 / v3 cast file, or null when the file is no such cast (v1 is one JSON value). */
export async function readCastHeader(file: string): Promise<{ header: Record<string, unknown>; version: 2 | 3; end: number } | null> {
  const fh = await fsp.open(file, 'r');
  try {
    const buf = Buffer.alloc(MAX_HEADER_BYTES);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const nl = buf.subarray(0, bytesRead).indexOf(10);
    const end = nl < 0 ? bytesRead : nl + 1;
    if (nl < 0 && bytesRead === MAX_HEADER_BYTES) return null;
    const line = buf.subarray(0, end).toString('utf8');
    let parsed: ReturnType<typeof parseAsciicastPositioned>;
    try {
      parsed = parseAsciicastPositioned(line, { file, lenient: true });
    } catch {
      return null;
    }
    if (parsed.version === 1) return null;
    return { header: parsed.header.raw, version: parsed.version, end };
  } finally {
    await fh.close();
  }
}

/** One recording being played (see the module docs). */
export class CastRecording {
  private readonly segments: CastSegment[] = [];
  private snapshots: Snapshot[] = [];
  private snapshotChars = 0;
  private snapshotEvery: number;
  private progress: CastProgress;
  private waiters: (() => void)[] = [];
  private disposed = false;
  private finalEvent: ScannedEvent | null = null;

  private constructor(
    readonly file: string,
    private readonly version: 2 | 3,
    private readonly headerEnd: number,
    private readonly cols: number,
    private readonly rows: number,
    private readonly sizes: CastStreamSizes,
  ) {
    this.snapshotEvery = sizes.snapshotBytes;
    this.progress = { time: 0, done: false, counts: { damaged: 0, unknownCodes: 0, badTimes: 0, resizesClamped: 0, escapesClamped: 0 }, error: null };
  }

  /**
   * Starts reading `file` (a v2 / v3 cast whose header `readCastHeader` read) and resolves with the
   * recording and its first window once that is read; the reading goes on, `onProgress` told about
   * every ~`progressMs` and at the end.
   */
  static async open(
    file: string,
    head: { version: 2 | 3; end: number },
    size: { cols: number; rows: number },
    onProgress: (p: CastProgress) => void,
    progressMs = 1000,
    sizes: CastStreamSizes = SIZES,
  ): Promise<{ recording: CastRecording; first: CastWindow }> {
    const rec = new CastRecording(file, head.version, head.end, size.cols, size.rows, sizes);
    let resolveFirst!: (w: CastWindow) => void;
    let rejectFirst!: (e: unknown) => void;
    const first = new Promise<CastWindow>((res, rej) => {
      resolveFirst = res;
      rejectFirst = rej;
    });
    void rec.scan(resolveFirst, onProgress, progressMs).catch((e: unknown) => {
      rec.progress = { ...rec.progress, done: true, error: e instanceof Error ? e.message : String(e) };
      rejectFirst(e);
      rec.wake();
      onProgress(rec.status());
    });
    return { recording: rec, first: await first };
  }

  /** How far the reading has come. */
  status(): CastProgress {
    return { ...this.progress, counts: { ...this.progress.counts } };
  }

  /** Stops the reading (the panel closed or shows another recording). */
  dispose(): void {
    this.disposed = true;
    this.wake();
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  private async until(ok: () => boolean): Promise<void> {
    while (!ok() && !this.progress.done && !this.disposed) await new Promise<void>((r) => this.waiters.push(r));
  }

  private async scan(first: (w: CastWindow) => void, onProgress: (p: CastProgress) => void, progressMs: number): Promise<void> {
    const term = new SnapshotTerminal(this.cols, this.rows);
    const firstEvents: CastEventView[] = [];
    let firstDone = false;
    let lastSnapAt = -Infinity;
    let pending: Promise<void> = Promise.resolve();
    let pendingChars = 0;
    const tasks: (() => Promise<void>)[] = [];
    const segmenter = new CastSegmenter(this.version, { offset: this.headerEnd, state: { time: 0, acc: 0, cols: this.cols, rows: this.rows, held: '' } }, this.sizes.segmentBytes, (seg, events) => {
      const index = this.segments.length;
      this.segments.push(seg);
      if (seg.offset - lastSnapAt >= this.snapshotEvery && index > 0) {
        lastSnapAt = seg.offset;
        tasks.push(async () => {
          await pending;
          this.addSnapshot({ seg: index, time: seg.state.time, cols: term.cols, rows: term.rows, screen: term.snapshot() });
        });
      } else if (index === 0) lastSnapAt = seg.offset;
      if (!firstDone) {
        for (const e of events) firstEvents.push(e as CastEventView);
      }
      tasks.push(async () => {
        let out: string[] = [];
        for (const [, code, data] of events) {
          if (code === 'o') out.push(data);
          else if (code === 'r') {
            const m = /^(\d+)x(\d+)$/.exec(data);
            if (m) {
              if (out.length) pending = term.write(out.join(''));
              out = [];
              await pending;
              term.resize(Number(m[1]), Number(m[2]));
            }
          }
        }
        if (out.length) {
          const text = out.join('');
          pendingChars += text.length;
          pending = term.write(text);
          // Keep xterm's write queue short (its memory), without waiting on every segment.
          if (pendingChars > 8 * 1024 * 1024) {
            await pending;
            pendingChars = 0;
          }
        }
      });
    });
    const fh = await fsp.open(this.file, 'r');
    let lastReport = Date.now();
    try {
      // Reads of a window's size, the first one a little over a segment: the first window (its
      // first segment) goes out after it.
      const buf = Buffer.alloc(Math.max(this.sizes.segmentBytes + 64 * 1024, this.sizes.windowBytes));
      let pos = this.headerEnd;
      let reads = 0;
      for (;;) {
        if (this.disposed) return;
        const want = reads++ === 0 ? Math.min(buf.length, this.sizes.segmentBytes + 64 * 1024) : buf.length;
        const { bytesRead } = await fh.read(buf, 0, want, pos);
        if (bytesRead === 0) break;
        pos += bytesRead;
        segmenter.push(Buffer.from(buf.subarray(0, bytesRead)));
        for (const t of tasks.splice(0)) await t();
        this.progress.time = segmenter.scanner.lastTime;
        this.progress.counts = { ...segmenter.scanner.counts };
        if (!firstDone && this.segments.length > 0) {
          firstDone = true;
          first({ from: 0, startTime: 0, base: null, events: firstEvents.splice(0), next: this.segments.length });
        }
        this.wake();
        if (Date.now() - lastReport >= progressMs) {
          lastReport = Date.now();
          onProgress(this.status());
        }
        await yieldNow();
      }
      this.finalEvent = segmenter.end();
      for (const t of tasks.splice(0)) await t();
      await pending;
    } finally {
      await fh.close();
      term.dispose();
    }
    this.progress.time = segmenter.scanner.lastTime;
    this.progress.counts = { ...segmenter.scanner.counts };
    this.progress.done = true;
    if (!firstDone) {
      if (this.finalEvent) firstEvents.push(this.finalEvent as CastEventView);
      first({ from: 0, startTime: 0, base: null, events: firstEvents, next: null });
    }
    this.wake();
    onProgress(this.status());
  }

  private addSnapshot(s: Snapshot): void {
    this.snapshots.push(s);
    this.snapshotChars += s.screen.length;
    if (this.snapshotChars > MAX_SNAPSHOT_CHARS) {
      // Keep every other one and take them half as often from now on.
      this.snapshots = this.snapshots.filter((_, i) => i % 2 === 1);
      this.snapshotChars = this.snapshots.reduce((n, x) => n + x.screen.length, 0);
      this.snapshotEvery *= 2;
    }
  }

  /** Events of segments [from, …) of at least `minBytes` (fewer at the end), read from the file. */
  async window(from: number, minBytes = this.sizes.windowBytes, untilTime = -Infinity): Promise<CastWindow> {
    await this.until(() => this.segments.length > from);
    if (from >= this.segments.length) {
      return { from, startTime: this.progress.time, base: null, events: this.finalEvent && from === this.segments.length ? [this.finalEvent as CastEventView] : [], next: null };
    }
    const start = this.segments[from];
    let to = from;
    let bytes = 0;
    // Segments up to the one holding `untilTime`, then minBytes more.
    for (;;) {
      if (to >= this.segments.length) {
        await this.until(() => this.segments.length > to);
        if (to >= this.segments.length) break;
      }
      const seg = this.segments[to];
      if (seg.state.time <= untilTime) {
        to++;
        continue;
      }
      if (bytes >= minBytes) break;
      bytes += seg.bytes;
      to++;
    }
    const end = to < this.segments.length ? this.segments[to].offset : this.segments[to - 1].offset + this.segments[to - 1].bytes;
    const fh = await fsp.open(this.file, 'r');
    let text: string;
    try {
      const buf = Buffer.alloc(end - start.offset);
      const { bytesRead } = await fh.read(buf, 0, buf.length, start.offset);
      text = buf.subarray(0, bytesRead).toString('utf8');
    } finally {
      await fh.close();
    }
    const scanner = new CastScanner(this.version, start.state);
    const events = scanner.lines(text) as CastEventView[];
    const atEnd = to >= this.segments.length && this.progress.done;
    if (atEnd && this.finalEvent) events.push(this.finalEvent as CastEventView);
    return { from, startTime: start.state.time, base: null, events, next: atEnd ? null : to };
  }

  /**
   * The window for showing time `t`: from the snapshot nearest before `t` (segment 0 when there is
   * none) through the segment holding `t` and one more. Waits until the reading has passed `t`.
   */
  async seek(t: number): Promise<CastWindow> {
    await this.until(() => this.progress.time > t);
    let snap: Snapshot | null = null;
    for (let lo = 0, hi = this.snapshots.length; lo < hi; ) {
      const mid = (lo + hi) >>> 1;
      if (this.snapshots[mid].time <= t) {
        snap = this.snapshots[mid];
        lo = mid + 1;
      } else hi = mid;
    }
    // One segment past `t`: the player asks for the next window as it plays on.
    const w = await this.window(snap ? snap.seg : 0, this.sizes.segmentBytes, t);
    return { ...w, base: snap ? { screen: snap.screen, cols: snap.cols, rows: snap.rows } : null };
  }

  /** Snapshots kept and their characters (for tests and the benchmark). */
  get snapshotStats(): { count: number; chars: number; segments: number } {
    return { count: this.snapshots.length, chars: this.snapshotChars, segments: this.segments.length };
  }
}
