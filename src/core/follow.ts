/**
 * Following a JSONL session file that is still being written, and opening a large one
 * progressively: the file is read from the last byte offset read (never again from the start),
 * its complete lines are fed to the loader's incremental reader (`FormatLoader.stream`, a
 * RecordStream), and each read reports which rollouts changed and from which step on.
 *
 * Positions are those of a full load (`loadFile`): lines are split as `splitJsonl` splits the whole
 * text (CRLF, blank lines), offsets are UTF-16 offsets in the decoded text (a leading BOM dropped)
 * and the line index grows with the file (`LineIndex.append`), so step ranges (Show in Source) and
 * located issues point at the same text as after a full load.
 *
 * - Partial lines: the bytes after the last line break are held back (also a UTF-8 sequence cut in
 *   the middle: bytes are split at line feeds, which never occur inside a sequence). A held-back
 *   tail that is a complete JSON value (a file whose last line has no line break) is read at once;
 *   one that is not (a line still being written) waits, and is reported as a located issue, until
 *   its line break arrives — or, once the file has not grown for `settleMs`, it is taken as a
 *   cut-off write: pushed as it is and the stream told `end()` (the loader then reports the bad line
 *   like a full load does).
 * - Truncation and rewrites: a file that shrank, was replaced (another inode), or whose first
 *   bytes or the bytes just before the offset read changed, gives `reset` (the caller opens it again
 *   from the start); so does a line read without its line break that then went on.
 * - A deleted file gives `deleted` (what was read stays valid); created again, `reset`.
 * - Bursts: a read takes everything the file has gained (up to `maxBytes`), so many appends between
 *   two reads cost one read and one snapshot.
 *
 * Only loaders with `stream()` are followed this way (`JsonlFollower.open` returns null for the
 * others: the caller reads the file whole). This module never imports `vscode`.
 */
import { promises as fs, watch as fsWatch, type FSWatcher, type Stats } from 'node:fs';
import * as path from 'node:path';
import type { LocatedIssue } from './errors';
import { pickLoader } from './formats/registry';
import { convertedLink } from './formats/harborLayout';
import type { RolloutLink } from './model';
import type { FileAccess, FormatLoader, RecordStream } from './formats/types';
import { JsonDoc, LineIndex, splitJsonl, type JsonlLine } from './json';
import { cutLastLineIssue, makeInput, MAX_FILE_BYTES, type LoadedFile } from './load';
import { nodeFiles } from './nodeFiles';

/** The bytes of a file could not be read as UTF-8 text (an invalid sequence or a NUL byte): a full load reports where. */
export class FollowDecodeError extends Error {
  constructor(readonly file: string) {
    super(`${file}: not UTF-8 text`);
    this.name = 'FollowDecodeError';
  }
}

/**
 * Turns the bytes of a file, given a part at a time, into its complete non-blank lines with the
 * positions a full load gives them (1-based line, UTF-16 offset, text without its `\r\n`).
 */
export class JsonlLineReader {
  /** Line starts of the text read so far (for the located positions of parsed lines). */
  readonly index = new LineIndex('');
  /** Bytes after the last line feed read (a line still to be completed), as received. */
  private carry: Uint8Array[] = [];
  private carryBytes = 0;
  /** Bytes of the file up to and including the last line feed read. */
  private doneBytes = 0;
  /** A first part was decoded: only there is a BOM dropped (as decodeUtf8 drops it). */
  private started = false;

  constructor(private readonly file: string) {}

  /** Bytes taken so far (complete lines and the held-back tail). */
  get bytes(): number {
    return this.doneBytes + this.carryBytes;
  }

  /** Bytes of the complete lines read so far. */
  get completeBytes(): number {
    return this.doneBytes;
  }

  /**
   * Takes the next bytes of the file (the reader keeps no reference to `bytes`); returns the
   * complete non-blank lines they end, in order.
   * @throws FollowDecodeError when the completed text is not UTF-8 or holds a NUL byte
   */
  push(bytes: Uint8Array): JsonlLine[] {
    const lf = bytes.lastIndexOf(10);
    if (lf < 0) {
      if (bytes.length) {
        this.carry.push(bytes.slice());
        this.carryBytes += bytes.length;
      }
      return [];
    }
    const head = bytes.subarray(0, lf + 1);
    const whole = this.carry.length ? concatBytes([...this.carry, head], this.carryBytes + head.length) : head;
    const rest = bytes.subarray(lf + 1);
    this.carry = rest.length ? [rest.slice()] : [];
    this.carryBytes = rest.length;
    const text = this.decode(whole, true);
    const lines = splitJsonl(text, this.index.length, this.index.lineCount);
    this.index.append(text);
    this.doneBytes += whole.length;
    return lines;
  }

  /**
   * The held-back tail (bytes after the last line feed) as a line, decoded leniently (a cut UTF-8
   * sequence shows as U+FFFD), a final `\r` dropped; null when there is none or it is blank.
   */
  tail(): JsonlLine | null {
    if (!this.carryBytes) return null;
    let text = this.decode(concatBytes(this.carry, this.carryBytes), false);
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (text.trim() === '') return null;
    return { line: this.index.lineCount, offset: this.index.length, text };
  }

  /** Bytes of the held-back tail. */
  get tailBytes(): number {
    return this.carryBytes;
  }

  private decode(b: Uint8Array, fatal: boolean): string {
    const first = !this.started;
    if (fatal) this.started = true;
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal, ignoreBOM: !first }).decode(b);
    } catch {
      throw new FollowDecodeError(this.file);
    }
    if (fatal && text.includes('\u0000')) throw new FollowDecodeError(this.file);
    return text;
  }
}

function concatBytes(parts: readonly Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** True for a line that is one whole JSON value (a tail that needs no line break to be complete). */
function parsesWhole(text: string): boolean {
  const t = text.trim();
  if (!t.startsWith('{') && !t.startsWith('[')) return false;
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
}

/** Options of a JsonlFollower. */
export interface FollowOptions {
  /** Neighbouring files for the loader (default: Node's fs). */
  files?: FileAccess;
  /** Loaders to detect the format with (default: the registry's). */
  loaders?: readonly FormatLoader[];
  /**
   * Bytes read before the first snapshot (default 256 KiB); more, doubling, while they hold no
   * complete line (up to 16 MiB, else the file is not followed).
   */
  firstBytes?: number;
  /** A partial last line that has not grown for this long (ms) is taken as a cut-off write (default 2000). */
  settleMs?: number;
  /** Clock in ms (tests). */
  now?(): number;
}

/** One rollout a read changed: its position in `loaded.rollouts` and its first step that is new or changed. */
export interface RolloutChange {
  index: number;
  /** Steps before this one are the same values as before the read. */
  changedFrom: number;
}

/** What one `read` found. */
export type FollowResult =
  /** Nothing new (the file did not grow, or only a partial line did). */
  | { kind: 'same' }
  /** `loaded` changed: these rollouts (new ones have `changedFrom` 0). */
  | { kind: 'update'; changes: RolloutChange[] }
  /** The file shrank, was replaced or rewritten, or cannot be read as text: read it again from the start. */
  | { kind: 'reset'; reason: string }
  /** The file is gone; what was read stays as it was. */
  | { kind: 'deleted' };

/** Bytes at the start of the file compared on every read (a rewrite shows there first). */
const HEAD_CHECK_BYTES = 4096;
/** Bytes just before the offset read compared on every read. */
const TAIL_CHECK_BYTES = 64;
const MAX_FIRST_BYTES = 16 * 1024 * 1024;

/** Reads `length` bytes at `position` (fewer at the end of the file). */
async function readAt(fh: fs.FileHandle, position: number, length: number): Promise<Uint8Array> {
  const buf = new Uint8Array(length);
  let got = 0;
  while (got < length) {
    const { bytesRead } = await fh.read(buf, got, length - got, position + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return got === length ? buf : buf.subarray(0, got);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A session file followed through its loader's RecordStream (see the module comment). */
export class JsonlFollower {
  /** The file as read so far: what a full load of the lines read gives (plus the held-back line's issue). */
  readonly loaded: LoadedFile;
  private readonly now: () => number;
  private readonly settleMs: number;
  /** The `converted` link every rollout gets (a raw session inside a Harbor trial), or null. */
  converted: RolloutLink | null = null;
  /** File identity and state at the last read. */
  private ino: number;
  private dev: number;
  private size: number;
  private mtimeMs: number;
  /** First bytes of the file as read (compared on each read). */
  private head: Uint8Array;
  /** Last bytes taken (just before `reader.bytes`). */
  private seen: Uint8Array;
  /** When the file last grew (ms): a partial tail settles `settleMs` after. */
  private grewAt: number;
  /** A tail pushed without its line break: its line, and whether the stream was told `end()`. */
  private tailPushed: { line: number; ended: boolean } | null = null;
  private deleted = false;
  private reading: Promise<FollowResult> | null = null;

  private constructor(
    readonly file: string,
    readonly loader: FormatLoader,
    private readonly stream: RecordStream,
    private readonly reader: JsonlLineReader,
    st: Stats,
    first: Uint8Array,
    opts: FollowOptions,
  ) {
    this.now = opts.now ?? (() => Date.now());
    this.settleMs = opts.settleMs ?? 2000;
    this.ino = st.ino;
    this.dev = st.dev;
    this.size = st.size;
    this.mtimeMs = st.mtimeMs;
    this.grewAt = st.mtimeMs;
    this.head = first.slice(0, HEAD_CHECK_BYTES);
    this.seen = first.slice(Math.max(0, first.length - TAIL_CHECK_BYTES));
    this.loaded = { path: file, format: loader.id, schemaVersion: null, rollouts: [] };
  }

  /**
   * Starts following `file`: reads its first part, picks the loader from it as a full load would,
   * and when that loader has `stream()`, feeds it the first part's lines (`loaded` then holds the
   * first steps). Null when the file is not a JSONL file of a format with an incremental reader (or
   * not a readable text file): read it whole instead. Call `read` to go on.
   */
  static async open(file: string, opts: FollowOptions = {}): Promise<JsonlFollower | null> {
    const files = opts.files ?? nodeFiles;
    let fh: fs.FileHandle;
    try {
      fh = await fs.open(file, 'r');
    } catch {
      return null;
    }
    try {
      const st = await fh.stat();
      if (!st.isFile() || st.size > MAX_FILE_BYTES) return null;
      const reader = new JsonlLineReader(file);
      let want = Math.min(opts.firstBytes ?? 256 * 1024, st.size);
      let first: Uint8Array = new Uint8Array(0);
      let lines: JsonlLine[] = [];
      let detectText = '';
      // Read until the part holds a complete line (or the whole file is read). Only a `.jsonl` file
      // may have a first line longer than the first part; for another name, a first part without a
      // line break, or whose first line is not a JSON value alone, is no JSONL (a JSON document, a
      // binary archive): it is read whole, as before, without reading more here.
      const named = /\.jsonl$/i.test(file);
      for (;;) {
        const more = await readAt(fh, first.length, want - first.length);
        first = concatBytes([first, more], first.length + more.length);
        if (first.lastIndexOf(10) >= 0 || first.length >= st.size || more.length === 0) break;
        if (want >= MAX_FIRST_BYTES || !named) return null;
        want = Math.min(st.size, want * 2, MAX_FIRST_BYTES);
      }
      if (!named) {
        const nl = first.indexOf(10);
        const firstLine = new TextDecoder('utf-8').decode(first.subarray(0, nl < 0 ? first.length : nl));
        if (!parsesWhole(firstLine)) return null;
      }
      try {
        lines = reader.push(first);
        detectText = new TextDecoder('utf-8').decode(first.subarray(0, reader.completeBytes));
      } catch {
        return null; // a full load says where the bad bytes are
      }
      const tail = reader.tail();
      if (tail && parsesWhole(tail.text)) detectText += (detectText && !detectText.endsWith('\n') ? '\n' : '') + tail.text;
      if (detectText.trim() === '') return null;
      let loader: FormatLoader;
      try {
        const input = makeInput(file, detectText, files);
        if (input.linesKind !== 'jsonl') return null;
        loader = pickLoader(input, opts.loaders);
      } catch {
        return null;
      }
      if (!loader.stream) return null;
      const index = reader.index;
      const stream = loader.stream({ path: file, files, parseLine: (l) => JsonDoc.parse(file, l.text, l.offset, index, true) });
      const f = new JsonlFollower(file, loader, stream, reader, st, first, opts);
      f.takeLines(lines);
      await stream.settle?.();
      f.converted = await convertedLink(file, files);
      f.snapshot();
      return f;
    } finally {
      await fh.close();
    }
  }

  /** Bytes of the file read so far (complete lines and a held-back tail). */
  get bytesRead(): number {
    return this.reader.bytes;
  }

  /** Size of the file at the last read. */
  get fileSize(): number {
    return this.size;
  }

  /** The whole file has been read (at the last read). */
  get caughtUp(): boolean {
    return this.reader.bytes >= this.size;
  }

  /** The file was deleted (at the last read). */
  get isDeleted(): boolean {
    return this.deleted;
  }

  /**
   * Reads what the file gained since the last read (at most `maxBytes` of it: call again while not
   * `caughtUp`) and feeds the stream. Concurrent calls share one read.
   */
  read(opts: { maxBytes?: number } = {}): Promise<FollowResult> {
    if (this.reading) return this.reading;
    const p = this.readOnce(opts.maxBytes ?? Infinity).finally(() => {
      if (this.reading === p) this.reading = null;
    });
    this.reading = p;
    return p;
  }

  private async readOnce(maxBytes: number): Promise<FollowResult> {
    let fh: fs.FileHandle;
    try {
      fh = await fs.open(this.file, 'r');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        this.deleted = true;
        return { kind: 'deleted' };
      }
      return { kind: 'reset', reason: `the file cannot be read (${code ?? String(e)})` };
    }
    try {
      if (this.deleted) return { kind: 'reset', reason: 'the file was created again' };
      const st = await fh.stat();
      if (st.ino !== this.ino || st.dev !== this.dev) return { kind: 'reset', reason: 'the file was replaced' };
      if (st.size < this.reader.bytes) return { kind: 'reset', reason: 'the file was truncated' };
      if (st.size > MAX_FILE_BYTES) return { kind: 'reset', reason: 'the file grew past the size read' };
      if (st.size !== this.size || st.mtimeMs !== this.mtimeMs) {
        // The part read must still be there as it was: its first bytes and its last ones.
        const head = await readAt(fh, 0, this.head.length);
        const seenAt = this.reader.bytes - this.seen.length;
        const seen = await readAt(fh, seenAt, this.seen.length);
        if (!sameBytes(head, this.head) || !sameBytes(seen, this.seen)) return { kind: 'reset', reason: 'the file was rewritten' };
      }
      this.mtimeMs = st.mtimeMs;
      const grew = st.size > this.size;
      this.size = st.size;
      if (!grew && this.reader.bytes >= st.size) return this.settleTail();
      if (grew) this.grewAt = this.now();
      const n = Math.min(st.size - this.reader.bytes, maxBytes);
      const bytes = await readAt(fh, this.reader.bytes, n);
      if (this.tailPushed && !this.tailGoesOn(bytes)) return { kind: 'reset', reason: 'a line read without its line break went on' };
      let lines: JsonlLine[];
      try {
        lines = this.reader.push(bytes);
      } catch {
        return { kind: 'reset', reason: 'the file is not UTF-8 text' };
      }
      this.seen = concatBytes([this.seen, bytes], this.seen.length + bytes.length).slice(-TAIL_CHECK_BYTES);
      if (this.tailPushed && bytes.indexOf(10) >= 0) {
        // Its line break came: the reader gives the line again, already pushed.
        if (lines[0]?.line === this.tailPushed.line) lines.shift();
        this.tailPushed = null;
      }
      const before = this.loaded.rollouts.length;
      const pushed = this.takeLines(lines);
      await this.stream.settle?.();
      if (!pushed && before > 0 && !this.issuesChanged()) return { kind: 'same' };
      return { kind: 'update', changes: this.snapshot() };
    } finally {
      await fh.close();
    }
  }

  /**
   * Bytes that follow a tail pushed without its line break must be whitespace up to the next line
   * feed (the line was complete), else the line read was only part of it.
   */
  private tailGoesOn(bytes: Uint8Array): boolean {
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i];
      if (c === 10) return true;
      if (c !== 32 && c !== 9 && c !== 13) return false;
    }
    return true;
  }

  /** The file did not grow: a partial tail that has waited `settleMs` is a cut-off write. */
  private settleTail(): FollowResult {
    const t = this.reader.tail();
    if (!t || this.tailPushed || this.now() - this.grewAt < this.settleMs) return { kind: 'same' };
    this.stream.push([t]);
    this.stream.end?.();
    this.tailPushed = { line: t.line, ended: true };
    return { kind: 'update', changes: this.snapshot() };
  }

  /** Pushes complete lines, then a tail that is a whole JSON value; true when anything was pushed. */
  private takeLines(lines: JsonlLine[]): boolean {
    if (lines.length) this.stream.push(lines);
    let pushed = lines.length > 0;
    const t = this.reader.tail();
    if (t && !this.tailPushed && parsesWhole(t.text)) {
      this.stream.push([t]);
      this.tailPushed = { line: t.line, ended: false };
      pushed = true;
    } else if (t && !this.tailPushed && this.now() - this.grewAt >= this.settleMs && this.caughtUp) {
      // A cut-off last line of a file that is not being written (its last change is old).
      this.stream.push([t]);
      this.stream.end?.();
      this.tailPushed = { line: t.line, ended: true };
      pushed = true;
    }
    return pushed;
  }

  private lastIssueKey = '';
  private issuesChanged(): boolean {
    return this.issueKey() !== this.lastIssueKey;
  }
  private issueKey(): string {
    const t = this.tailPushed ? null : this.reader.tail();
    return `${this.stream.issues.length}:${t ? t.line : ''}`;
  }

  /** Takes the stream's snapshot into `loaded`; returns what changed. */
  private snapshot(): RolloutChange[] {
    const snap = this.stream.snapshot();
    const before = this.loaded.rollouts;
    const changes: RolloutChange[] = [];
    snap.forEach((s, i) => {
      const prev = before[i];
      const changedFrom = !prev || prev.id !== s.rollout.id ? 0 : Math.min(s.changedFrom, prev.steps.length, s.rollout.steps.length);
      changes.push({ index: i, changedFrom });
    });
    // The same array, its items replaced: holders of `loaded.rollouts` see the new rollouts.
    before.length = 0;
    before.push(...snap.map((s) => s.rollout));
    // A raw session inside a Harbor trial links to the trial's converted trajectory (as loadFile does).
    const link = this.converted;
    if (link) for (const r of before) if (!r.links?.some((l) => l.relation === 'converted')) (r.links ??= []).push(link);
    this.loaded.schemaVersion = before[0]?.schemaVersion ?? null;
    // A tail taken as a cut-off write is a warning, as in a full load of the same bytes (load.ts).
    const cut = this.tailPushed?.ended ? this.tailPushed.line : null;
    const issues: LocatedIssue[] = this.stream.issues.map((i) => (i.line === cut ? cutLastLineIssue(i) : i));
    const t = this.tailPushed ? null : this.reader.tail();
    if (t) {
      issues.push({
        file: this.file,
        line: t.line,
        column: 1,
        pointer: null,
        expected: 'a complete line (ending in a line break)',
        found: `${this.reader.tailBytes} bytes of a line still being written (read when it is complete)`,
        severity: 'warning',
      });
    }
    if (issues.length) this.loaded.issues = issues;
    else delete this.loaded.issues;
    this.lastIssueKey = this.issueKey();
    return changes;
  }
}

/** A watch on one file (see watchFile). */
export interface FileWatch {
  close(): void;
}

/**
 * Calls `onChange` soon after `file` changes: `fs.watch` on its folder (inotify on Linux: within
 * milliseconds; also sees the file deleted, replaced or created again), and a stat every `pollMs`
 * as a backstop where the folder cannot be watched or events are lost (network file systems).
 * `onChange` may be called when nothing changed; callers read and compare.
 */
export function watchFile(file: string, onChange: () => void, opts: { pollMs?: number } = {}): FileWatch {
  const dir = path.dirname(file);
  const name = path.basename(file);
  let watcher: FSWatcher | null = null;
  try {
    watcher = fsWatch(dir, { persistent: false }, (_event, changed) => {
      if (!changed || changed.toString() === name) onChange();
    });
    watcher.on('error', () => {
      watcher?.close();
      watcher = null;
    });
  } catch {
    watcher = null; // polled only
  }
  let last = '';
  const timer = setInterval(() => {
    fs.stat(file).then(
      (st) => {
        const k = `${st.ino}:${st.size}:${st.mtimeMs}`;
        if (k !== last) {
          last = k;
          onChange();
        }
      },
      () => {
        if (last !== 'gone') {
          last = 'gone';
          onChange();
        }
      },
    );
  }, opts.pollMs ?? 1000);
  timer.unref?.();
  return {
    close: () => {
      clearInterval(timer);
      watcher?.close();
      watcher = null;
    },
  };
}

/**
 * Drives a follower: `poke()` when the file may have changed (a watch event, a timer); reads run
 * one at a time, a poke during a read makes one more read after it (a burst of changes costs one or
 * two reads), and while the file is not read to its end the loop goes on reading `sliceBytes` at a
 * time, giving the event loop a turn between reads (a large file opened progressively never holds
 * the thread for more than one slice's work). Each read's result goes to `onResult`.
 */
export class FollowLoop {
  private dirty = false;
  private running = false;
  private closed = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastEnd = 0;

  /**
   * @param opts.sliceBytes bytes per read (default 1 MiB)
   * @param opts.minGapMs least time between the end of one read and the start of the next one a
   *   poke asks for (default 30 ms: coalesces bursts of appends)
   */
  constructor(
    private readonly follower: Pick<JsonlFollower, 'read' | 'caughtUp'>,
    private readonly onResult: (r: FollowResult) => void,
    private readonly opts: { sliceBytes?: number; minGapMs?: number } = {},
  ) {}

  /** The file may have changed: read it soon. */
  poke(): void {
    if (this.closed) return;
    this.dirty = true;
    if (this.running || this.timer) return;
    const wait = Math.max(0, (this.opts.minGapMs ?? 30) - (Date.now() - this.lastEnd));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.run();
    }, wait);
  }

  /** Whether a read is running or about to. */
  get busy(): boolean {
    return this.running || this.timer !== undefined;
  }

  private async run(): Promise<void> {
    if (this.running || this.closed) return;
    this.running = true;
    try {
      while (this.dirty && !this.closed) {
        this.dirty = false;
        let r: FollowResult;
        try {
          r = await this.follower.read({ maxBytes: this.opts.sliceBytes ?? 1024 * 1024 });
        } catch (e) {
          r = { kind: 'reset', reason: e instanceof Error ? e.message : String(e) };
        }
        if (this.closed) return;
        this.onResult(r);
        if (r.kind === 'reset' || r.kind === 'deleted') break;
        if (!this.follower.caughtUp) {
          this.dirty = true;
          await new Promise<void>((res) => setImmediate(res));
        }
      }
    } finally {
      this.running = false;
      this.lastEnd = Date.now();
      if (this.dirty && !this.closed) this.poke();
    }
  }

  /** Stops: no more reads, no more results. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
