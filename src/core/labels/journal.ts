/**
 * The label journal: an append-only JSON Lines file per rollout file, implementing the contract of
 * `./api.ts` (`openLabelStore`). See docs/labels.md for the user-facing description.
 *
 * Writing. Every batch (one user action) is serialised to whole lines — one `LabelEntry` per line,
 * each ending in `\n` — and appended with ONE `write` on a descriptor opened with `O_APPEND`, then
 * `fsync`'d before the promise resolves (the folder too when the file was just created). Writers in
 * other processes append to the same file; the kernel keeps `O_APPEND` writes of one call whole, so
 * lines never interleave. When the file does not end in `\n` (a write cut by a crash), the next
 * batch starts with a `\n` so the cut fragment stays a line of its own and cannot swallow new data.
 *
 * Reading. Every line is replayed. Blank lines are skipped; the last line when it has no `\n` (a
 * write that was cut) is ignored with a warning — so is an unparsable last line; any other line
 * that is not a valid entry is skipped with a located warning `file:line: …` — so is an entry whose
 * `time` is not an ISO-8601 time or lies more than a week past the clock (`badEntryTime`): such an
 * entry takes no part in merging, so it can neither stop a write nor win over a valid entry.
 * Nothing here throws for bad content.
 *
 * Merging. Every entry holds the full label state of one key (annotator, rollout id, step index or
 * null for the verdict), so the current state of a key is simply its latest entry: the greatest
 * `time` wins, ties broken by the greater `id` (string order). Two windows (or two people whose
 * journals git merged) therefore converge on the same labels whatever order their lines are in.
 * A store stamps its entries with a time strictly after every entry it has seen (a clock that runs
 * at least 1 ms ahead of the latest), so its own newest action always wins over what it has read.
 *
 * This module never imports `vscode`.
 */
import { randomUUID, createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import type { Rollout } from '../model';
import type { CurrentLabel, LabelChange, LabelEntry, LabelStore, LabelValue, OpenLabelStore } from './api';
import { stepHash } from './stepHash';

/** Folder (in a workspace folder) that holds the journals; users may commit it. */
export const LABELS_DIR = '.trajectory-labels';
/** Suffix of a journal file name: `<rollout file name>.labels.jsonl`. */
export const JOURNAL_SUFFIX = '.labels.jsonl';

/** Schema of one journal line (format version 1). Extra members are allowed and ignored. */
export const LabelEntrySchema = z.object({
  v: z.literal(1),
  id: z.string().min(1),
  batch: z.string().min(1),
  rolloutId: z.string(),
  stepIndex: z.number().int().nonnegative().nullable(),
  stepHash: z.string().nullable(),
  value: z.union([z.literal(1), z.literal(0), z.literal(-1)]).nullable(),
  firstError: z.boolean(),
  note: z.string().nullable(),
  annotator: z.string(),
  time: z.string().min(1),
  origin: z.enum(['manual', 'propagated']),
});

/**
 * Where the journal of a rollout file lives:
 * `<workspaceFolder>/.trajectory-labels/<file path relative to the folder>.labels.jsonl` when the file
 * is inside `workspaceFolder`, else `<globalStorage>/labels/<sha256 hex of the absolute file path>.labels.jsonl`.
 * @param rolloutFile the file the rollouts were read from (`LoadedFile.path`)
 * @param workspaceFolder the workspace folder holding the file, or null
 * @param globalStorage the extension's global storage folder (`ExtensionContext.globalStorageUri.fsPath`)
 */
export function journalPathFor(rolloutFile: string, workspaceFolder: string | null, globalStorage: string): string {
  const abs = path.resolve(rolloutFile);
  if (workspaceFolder !== null && isInside(workspaceFolder, abs)) {
    const root = path.resolve(workspaceFolder);
    return path.join(root, LABELS_DIR, path.relative(root, abs) + JOURNAL_SUFFIX);
  }
  return path.join(path.resolve(globalStorage), 'labels', createHash('sha256').update(abs, 'utf8').digest('hex') + JOURNAL_SUFFIX);
}

/** True when `file` lies inside `folder` (not the folder itself). */
export function isInside(folder: string, file: string): boolean {
  const rel = path.relative(path.resolve(folder), path.resolve(file));
  return !(rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel));
}

/**
 * The workspace folder the command line uses for a rollout file: the nearest folder, starting at
 * the file's own folder and going up, that holds a `.trajectory-labels/` folder; null when none does.
 */
export function findLabelsRoot(rolloutFile: string): string | null {
  let dir = path.dirname(path.resolve(rolloutFile));
  for (;;) {
    try {
      if (fs.statSync(path.join(dir, LABELS_DIR)).isDirectory()) return dir;
    } catch {
      // not here
    }
    const up = path.dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

/** The state one entry sets for its key. */
export interface LabelState {
  value: LabelValue | null;
  firstError: boolean;
  note: string | null;
  origin: 'manual' | 'propagated';
  stepHash: string | null;
}

const CLEARED: Omit<LabelState, 'stepHash'> = { value: null, firstError: false, note: null, origin: 'manual' };

function isCleared(s: Pick<LabelState, 'value' | 'note' | 'firstError'>): boolean {
  return s.value === null && s.note === null && !s.firstError;
}

/** Key of a label: annotator, rollout id, step index (null = verdict). */
export function labelKey(annotator: string, rolloutId: string, stepIndex: number | null): string {
  return JSON.stringify([annotator, rolloutId, stepIndex]);
}

/** Milliseconds of an entry time, or NaN. */
function timeMs(t: string): number {
  return Date.parse(t);
}

/** True when entry `a` supersedes entry `b` (later time; ties by greater id). */
export function isNewer(a: LabelEntry, b: LabelEntry): boolean {
  const ta = timeMs(a.time);
  const tb = timeMs(b.time);
  if (Number.isFinite(ta) && Number.isFinite(tb)) {
    if (ta !== tb) return ta > tb;
  } else if (a.time !== b.time) {
    return a.time > b.time;
  }
  return a.id > b.id;
}

/** Serialises an entry with a fixed key order (`{"v":1,"id":…` first, which the reader relies on to recover glued lines). */
export function entryLine(e: LabelEntry): string {
  const ordered: LabelEntry = {
    v: 1,
    id: e.id,
    batch: e.batch,
    rolloutId: e.rolloutId,
    stepIndex: e.stepIndex,
    stepHash: e.stepHash,
    value: e.value,
    firstError: e.firstError,
    note: e.note,
    annotator: e.annotator,
    time: e.time,
    origin: e.origin,
  };
  return JSON.stringify(ordered);
}

/** Result of reading journal text. */
export interface ParsedJournal {
  entries: LabelEntry[];
  /** Located problems (`file:line: …`) of lines that were skipped. */
  warnings: string[];
  /** Characters of `text` consumed: up to and including the last `\n` (a cut last line is not consumed). */
  consumed: number;
  /** Lines consumed. */
  lines: number;
}

const ENTRY_START = '{"v":';

/** Parses one line into an entry, or says why it is not one. */
function parseEntry(line: string): { entry: LabelEntry } | { error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return { error: 'not JSON' };
  }
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw) && typeof (raw as { v?: unknown }).v === 'number' && (raw as { v: number }).v !== 1) {
    return { error: `journal format version ${(raw as { v: number }).v} (this version reads 1); written by a newer Trajectory Inspector?` };
  }
  const r = LabelEntrySchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0];
    return { error: `not a label entry (${i.path.length ? `/${i.path.join('/')}` : '/'}: ${i.message})` };
  }
  const bad = badEntryTime(r.data.time);
  if (bad) return { error: `not a label entry (/time: ${bad}); it takes no part in merging` };
  return { entry: r.data as LabelEntry };
}

/** Entry times are ISO-8601 UTC as `Date.toISOString` writes them for years 0000–9999 (`2026-03-02T10:15:04.512Z`; an offset instead of `Z` is accepted). */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * Entries dated more than this past this machine's clock (ms; 7 days) are ignored: one would win over
 * every label written until then, and a store stamps its entries after the latest time it read.
 */
export const MAX_FUTURE_MS = 7 * 24 * 3600 * 1000;

/**
 * Why an entry's `time` cannot take part in merging (not ISO-8601, not a real date, or too far in the
 * future: see MAX_FUTURE_MS), or null when it can.
 */
export function badEntryTime(time: string, now = Date.now()): string | null {
  if (!ISO_TIME.test(time)) return `${JSON.stringify(time.length > 40 ? time.slice(0, 40) + '…' : time)} is no ISO-8601 time like 2026-03-02T10:15:04.512Z`;
  const ms = Date.parse(time);
  if (!Number.isFinite(ms)) return `${JSON.stringify(time)} is no real date`;
  if (ms > now + MAX_FUTURE_MS) return `${JSON.stringify(time)} is more than 7 days after this machine's clock`;
  return null;
}

/**
 * Parses journal text (see the module docs for the rules).
 * @param file path for the warnings
 * @param text the text (or the new part of it)
 * @param firstLine 1-based number of the first line of `text` in the file
 */
export function parseJournal(file: string, text: string, firstLine = 1): ParsedJournal {
  const entries: LabelEntry[] = [];
  const warnings: string[] = [];
  const lastNl = text.lastIndexOf('\n');
  const complete = lastNl < 0 ? '' : text.slice(0, lastNl);
  const tail = text.slice(lastNl + 1);
  const lines = lastNl < 0 ? [] : complete.split('\n');
  // The last complete line is "the last line" only when nothing follows it.
  const lastIdx = tail.trim() === '' ? lines.length - 1 : -1;
  lines.forEach((line, i) => {
    const n = firstLine + i;
    if (line.trim() === '') return;
    const p = parseEntry(line);
    if ('entry' in p) {
      entries.push(p.entry);
      return;
    }
    // A fragment cut by a crash, with a later writer's entry glued to it: recover the entry.
    for (let at = line.indexOf(ENTRY_START, 1); at > 0; at = line.indexOf(ENTRY_START, at + 1)) {
      const q = parseEntry(line.slice(at));
      if ('entry' in q) {
        entries.push(q.entry);
        warnings.push(`${file}:${n}: a cut-off fragment (${at} characters) before an entry was ignored`);
        return;
      }
    }
    if (i === lastIdx && p.error === 'not JSON') {
      warnings.push(`${file}:${n}: the last line is not a whole entry (a write cut short): ignored`);
    } else {
      warnings.push(`${file}:${n}: skipped: ${p.error}`);
    }
  });
  if (tail.trim() !== '') {
    warnings.push(`${file}:${firstLine + lines.length}: the last line has no newline (a write cut short): ignored`);
  }
  return { entries, warnings, consumed: lastNl + 1, lines: lines.length };
}

/** Reads and parses a whole journal; a missing file is an empty journal. */
export async function readJournal(file: string): Promise<ParsedJournal> {
  let text: string;
  try {
    text = await fs.promises.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], warnings: [], consumed: 0, lines: 0 };
    return { entries: [], warnings: [`${file}: cannot read the label journal (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`], consumed: 0, lines: 0 };
  }
  return parseJournal(file, text);
}

/** The winning entry of every key. */
export function mergeEntries(entries: Iterable<LabelEntry>, into = new Map<string, LabelEntry>()): Map<string, LabelEntry> {
  for (const e of entries) {
    const k = labelKey(e.annotator, e.rolloutId, e.stepIndex);
    const cur = into.get(k);
    if (!cur || isNewer(e, cur)) into.set(k, e);
  }
  return into;
}

/**
 * Appends text durably: one write on an `O_APPEND` descriptor, fsync (and the folder's fsync when
 * the file is new). A `\n` is put first when the file does not end in one.
 */
export async function appendDurably(file: string, text: string): Promise<void> {
  const dir = path.dirname(file);
  await fs.promises.mkdir(dir, { recursive: true });
  let existed = true;
  try {
    await fs.promises.stat(file);
  } catch {
    existed = false;
  }
  const fh = await fs.promises.open(file, fs.constants.O_RDWR | fs.constants.O_APPEND | fs.constants.O_CREAT, 0o644);
  try {
    const { size } = await fh.stat();
    let data = text;
    if (size > 0) {
      const last = Buffer.alloc(1);
      await fh.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) data = '\n' + text;
    }
    const buf = Buffer.from(data, 'utf8');
    let off = 0;
    while (off < buf.length) {
      // With O_APPEND the kernel appends whatever the position; a short write (disk full, signal) is continued.
      const { bytesWritten } = await fh.write(buf, off, buf.length - off, null);
      if (bytesWritten <= 0) throw new Error(`could not write to ${file}`);
      off += bytesWritten;
    }
    await fh.sync();
  } finally {
    await fh.close();
  }
  if (!existed) await syncDir(dir);
}

async function syncDir(dir: string): Promise<void> {
  let dh: fs.promises.FileHandle | null = null;
  try {
    dh = await fs.promises.open(dir, 'r');
    await dh.sync();
  } catch {
    // Windows cannot fsync a folder; the file's own fsync is what there is.
  } finally {
    await dh?.close().catch(() => undefined);
  }
}

/** One key a batch changed: the state before (null: no label) and the state written. */
interface BatchItem {
  rolloutId: string;
  stepIndex: number | null;
  before: LabelState | null;
  after: LabelState;
}

/** A key and the state to write for it. */
interface Write {
  rolloutId: string;
  stepIndex: number | null;
  state: LabelState;
}

/** The store `openLabelStore` returns: the contract's `LabelStore` plus a few helpers (additions, not in api.ts). */
export interface JournalLabelStore extends LabelStore {
  /** Located warnings of the last read (torn last line, skipped lines). */
  readonly warnings: string[];
  /** The annotator this store writes as. */
  readonly annotator: string;
  /** Replaces the rollouts used for step hashes (the file was re-read); keeps the undo history. */
  setRollouts(rollouts: Rollout[]): void;
  /** True when `undo()` has a batch of this session to revert. */
  canUndo(): boolean;
  /** True when `redo()` has a batch to re-apply. */
  canRedo(): boolean;
  /** Every annotator with a current label, sorted. */
  annotators(): string[];
}

class JournalStore implements JournalLabelStore {
  warnings: string[] = [];
  private lineWarnings: string[] = [];
  private tailWarnings: string[] = [];
  private winners = new Map<string, LabelEntry>();
  private readonly undoStack: BatchItem[][] = [];
  private readonly redoStack: BatchItem[][] = [];
  private rollouts = new Map<string, Rollout>();
  private hashes = new Map<string, (string | undefined)[]>();
  private lastTime = 0;
  /** Bytes of the file read so far, the lines they hold, and the file's identity. */
  private consumed = 0;
  private consumedLines = 0;
  private ident: string | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly path: string,
    readonly annotator: string,
    rollouts: Rollout[],
  ) {
    this.setRollouts(rollouts);
  }

  setRollouts(rollouts: Rollout[]): void {
    this.rollouts = new Map(rollouts.map((r) => [r.id, r]));
    this.hashes.clear();
  }

  canUndo(): boolean {
    return this.undoStack.length > 0;
  }

  canRedo(): boolean {
    return this.redoStack.length > 0;
  }

  annotators(): string[] {
    return [...new Set(this.current().map((l) => l.annotator))].sort();
  }

  /** Hash of a step of a known rollout; undefined when the rollout or step is unknown. */
  private hashOf(rolloutId: string, stepIndex: number): string | undefined {
    const r = this.rollouts.get(rolloutId);
    if (!r) return undefined;
    let hs = this.hashes.get(rolloutId);
    if (!hs) {
      hs = new Array(r.steps.length);
      this.hashes.set(rolloutId, hs);
    }
    if (stepIndex >= r.steps.length) return undefined;
    // A hole: the step is not in memory (a rollout read by windows holds only the steps labelled).
    const s = r.steps[stepIndex] as Rollout['steps'][number] | undefined;
    if (!s) return undefined;
    return (hs[stepIndex] ??= stepHash(s));
  }

  /** True when step `stepIndex` of a known rollout is within its length but not in memory (a hole). */
  private isUnread(rolloutId: string, stepIndex: number): boolean {
    const r = this.rollouts.get(rolloutId);
    return !!r && stepIndex < r.steps.length && !(r.steps[stepIndex] as Rollout['steps'][number] | undefined);
  }

  private isStale(e: LabelEntry): boolean {
    if (!this.rollouts.has(e.rolloutId)) return true;
    if (e.stepIndex === null || e.stepHash === null) return false;
    // A step not in memory cannot be compared: not called stale (the caller reads labelled steps first).
    if (this.isUnread(e.rolloutId, e.stepIndex)) return false;
    return this.hashOf(e.rolloutId, e.stepIndex) !== e.stepHash;
  }

  current(rolloutId?: string): CurrentLabel[] {
    const out: CurrentLabel[] = [];
    for (const e of this.winners.values()) {
      if (rolloutId !== undefined && e.rolloutId !== rolloutId) continue;
      if (isCleared(e)) continue;
      out.push({
        rolloutId: e.rolloutId,
        stepIndex: e.stepIndex,
        value: e.value,
        firstError: e.firstError,
        note: e.note,
        annotator: e.annotator,
        time: e.time,
        origin: e.origin,
        stale: this.isStale(e),
      });
    }
    return out.sort(
      (a, b) =>
        (a.rolloutId < b.rolloutId ? -1 : a.rolloutId > b.rolloutId ? 1 : 0) ||
        (a.stepIndex ?? -1) - (b.stepIndex ?? -1) ||
        (a.annotator < b.annotator ? -1 : a.annotator > b.annotator ? 1 : 0),
    );
  }

  /** Runs write operations one after another. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.queue.then(fn, fn);
    this.queue = p.catch(() => undefined);
    return p;
  }

  private fingerprint(): string {
    return [...this.winners.values()].map((e) => e.id).sort().join(',');
  }

  /** Reads what was appended since the last read (everything when the file was replaced or shrank). */
  async refresh(): Promise<void> {
    let st: fs.Stats;
    try {
      st = await fs.promises.stat(this.path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        if (this.consumed > 0 || this.winners.size) this.resetRead();
        this.tailWarnings = [];
        this.warnings = [];
        return;
      }
      this.tailWarnings = [`${this.path}: cannot read the label journal (${code ?? (e as Error).message})`];
      this.warnings = [...this.lineWarnings, ...this.tailWarnings];
      return;
    }
    const ident = `${st.dev}:${st.ino}`;
    if (ident !== this.ident || st.size < this.consumed) {
      this.resetRead();
      this.ident = ident;
    }
    if (st.size === this.consumed) {
      this.tailWarnings = [];
      this.warnings = [...this.lineWarnings];
      return;
    }
    let bytes: Buffer;
    const fh = await fs.promises.open(this.path, 'r');
    try {
      const len = st.size - this.consumed;
      bytes = Buffer.alloc(Math.max(0, len));
      let off = 0;
      while (off < len) {
        const { bytesRead } = await fh.read(bytes, off, len - off, this.consumed + off);
        if (bytesRead === 0) break;
        off += bytesRead;
      }
      bytes = bytes.subarray(0, off);
    } finally {
      await fh.close();
    }
    // Only whole lines are consumed, so a cut UTF-8 sequence can only sit in the unconsumed tail.
    const lastNl = bytes.lastIndexOf(0x0a);
    const completeBytes = lastNl + 1;
    const text = bytes.toString('utf8');
    const parsed = parseJournal(this.path, text, this.consumedLines + 1);
    this.consumed += completeBytes;
    this.consumedLines += parsed.lines;
    const tailNote = / has no newline | is not a whole entry /;
    this.lineWarnings.push(...parsed.warnings.filter((w) => !tailNote.test(w)));
    this.tailWarnings = parsed.warnings.filter((w) => tailNote.test(w));
    this.warnings = [...this.lineWarnings, ...this.tailWarnings];
    mergeEntries(parsed.entries, this.winners);
    for (const e of parsed.entries) {
      const t = timeMs(e.time);
      if (Number.isFinite(t) && t > this.lastTime) this.lastTime = t;
    }
  }

  private resetRead(): void {
    this.winners = new Map();
    this.consumed = 0;
    this.consumedLines = 0;
    this.lineWarnings = [];
    this.tailWarnings = [];
    this.ident = null;
  }

  reload(): Promise<boolean> {
    return this.serial(async () => {
      const before = this.fingerprint();
      await this.refresh();
      return this.fingerprint() !== before;
    });
  }

  /** The annotator's current state of a key (null: no label or a cleared one). */
  private stateOf(rolloutId: string, stepIndex: number | null): LabelState | null {
    const e = this.winners.get(labelKey(this.annotator, rolloutId, stepIndex));
    if (!e || isCleared(e)) return null;
    return { value: e.value, firstError: e.firstError, note: e.note, origin: e.origin, stepHash: e.stepHash };
  }

  private nextTime(): string {
    // lastTime comes only from entries badEntryTime accepted, so it is near the clock; never past what Date can write.
    const ms = Math.min(Math.max(Date.now(), this.lastTime + 1), 8.64e15);
    this.lastTime = ms;
    return new Date(ms).toISOString();
  }

  /** Writes one batch (skipping writes that change nothing); returns the entries and the undo items. */
  private async writeBatch(writes: Write[]): Promise<{ entries: LabelEntry[]; items: BatchItem[] }> {
    const batch = randomUUID();
    const time = this.nextTime();
    const entries: LabelEntry[] = [];
    const items: BatchItem[] = [];
    for (const w of writes) {
      const before = this.stateOf(w.rolloutId, w.stepIndex);
      if (sameState(before, w.state)) continue;
      const e: LabelEntry = {
        v: 1,
        id: randomUUID(),
        batch,
        rolloutId: w.rolloutId,
        stepIndex: w.stepIndex,
        stepHash: w.state.stepHash,
        value: w.state.value,
        firstError: w.state.firstError,
        note: w.state.note,
        annotator: this.annotator,
        time,
        origin: w.state.origin,
      };
      entries.push(e);
      items.push({ rolloutId: w.rolloutId, stepIndex: w.stepIndex, before, after: w.state });
    }
    if (entries.length === 0) return { entries, items };
    await appendDurably(this.path, entries.map((e) => entryLine(e) + '\n').join(''));
    mergeEntries(entries, this.winners);
    return { entries, items };
  }

  private checkTarget(rolloutId: string, stepIndex: number | null): void {
    const r = this.rollouts.get(rolloutId);
    if (!r) throw new RangeError(`label store: unknown rollout id ${JSON.stringify(rolloutId)}`);
    if (stepIndex !== null && (!Number.isInteger(stepIndex) || stepIndex < 0 || stepIndex >= r.steps.length)) {
      throw new RangeError(`label store: rollout ${JSON.stringify(rolloutId)} has no step ${stepIndex} (it has ${r.steps.length})`);
    }
  }

  apply(changes: LabelChange[], origin: 'manual' | 'propagated' = 'manual'): Promise<LabelEntry[]> {
    return this.serial(async () => {
      for (const c of changes) {
        this.checkTarget(c.rolloutId, c.stepIndex);
        if (c.value !== undefined && c.value !== null && c.value !== 1 && c.value !== 0 && c.value !== -1) {
          throw new RangeError(`label store: value must be 1, 0, -1 or null, not ${JSON.stringify(c.value)}`);
        }
      }
      await this.refresh();
      // Several changes of one key in a batch fold into one entry, in order.
      const pending = new Map<string, Write>();
      for (const c of changes) {
        const k = labelKey(this.annotator, c.rolloutId, c.stepIndex);
        const prevWrite = pending.get(k);
        const prev = prevWrite ? prevWrite.state : this.stateOf(c.rolloutId, c.stepIndex);
        const base = prev ?? { ...CLEARED, stepHash: null };
        let value = c.value !== undefined ? c.value : base.value;
        let firstError: boolean;
        if (c.firstError !== undefined) firstError = c.firstError;
        else if (c.value !== undefined && c.value !== -1) firstError = false;
        else firstError = base.firstError;
        if (firstError && c.value === undefined) value = -1;
        if (firstError && value !== -1) throw new RangeError('label store: a first error has the value -1');
        const note = c.note !== undefined ? c.note : base.note;
        const o = c.value !== undefined || prev === null ? origin : base.origin;
        const hash = c.stepIndex === null ? null : this.hashOf(c.rolloutId, c.stepIndex) ?? null;
        pending.set(k, { rolloutId: c.rolloutId, stepIndex: c.stepIndex, state: { value, firstError, note, origin: o, stepHash: hash } });
      }
      const { entries, items } = await this.writeBatch([...pending.values()]);
      if (items.length) {
        this.undoStack.push(items);
        this.redoStack.length = 0;
      }
      return entries;
    });
  }

  markFirstError(rollout: Rollout, stepIndex: number): Promise<LabelEntry[]> {
    return this.serial(async () => {
      this.checkTarget(rollout.id, stepIndex);
      await this.refresh();
      const rid = rollout.id;
      const hash = (i: number) => this.hashOf(rid, i) ?? null;
      const writes: Write[] = [];
      const target = this.stateOf(rid, stepIndex);
      writes.push({ rolloutId: rid, stepIndex, state: { value: -1, firstError: true, note: target?.note ?? null, origin: 'manual', stepHash: hash(stepIndex) } });
      let holes = false;
      for (let i = 0; i < rollout.steps.length && !holes; i++) holes = !(i in rollout.steps);
      if (holes) {
        throw new RangeError(`label store: rollout ${JSON.stringify(rid)} does not hold all its steps in memory (read by windows): a first error cannot be propagated`);
      }
      for (const s of rollout.steps) {
        if (s.index === stepIndex) continue;
        const cur = this.stateOf(rid, s.index);
        if (s.index > stepIndex && s.role === 'agent') {
          if (cur && cur.origin === 'manual' && cur.value !== null) {
            // The annotator's own label stays; only one step is the first error.
            if (cur.firstError) writes.push({ rolloutId: rid, stepIndex: s.index, state: { ...cur, firstError: false } });
            continue;
          }
          writes.push({ rolloutId: rid, stepIndex: s.index, state: { value: -1, firstError: false, note: cur?.note ?? null, origin: 'propagated', stepHash: hash(s.index) } });
        } else if (cur) {
          if (cur.origin === 'propagated' && cur.value !== null && s.index < stepIndex) {
            // Propagated from an earlier first-error mark that this one moves past: no longer implied.
            writes.push({ rolloutId: rid, stepIndex: s.index, state: { value: null, firstError: false, note: cur.note, origin: 'propagated', stepHash: cur.stepHash } });
          } else if (cur.firstError) {
            writes.push({ rolloutId: rid, stepIndex: s.index, state: { ...cur, firstError: false } });
          }
        }
      }
      const { entries, items } = await this.writeBatch(writes);
      if (items.length) {
        this.undoStack.push(items);
        this.redoStack.length = 0;
      }
      return entries;
    });
  }

  /** Writes each item's `before` where the key still holds the item's entry; returns the inverse items. */
  private async revert(items: BatchItem[]): Promise<BatchItem[]> {
    await this.refresh();
    const writes: Write[] = [];
    for (const it of items) {
      // A key whose state is no longer what this batch left there was changed since (another window): left alone.
      if (!sameState(this.stateOf(it.rolloutId, it.stepIndex), it.after)) continue;
      const state = it.before ?? { ...CLEARED, stepHash: it.after.stepHash };
      writes.push({ rolloutId: it.rolloutId, stepIndex: it.stepIndex, state });
    }
    const { items: inverse } = await this.writeBatch(writes);
    return inverse;
  }

  undo(): Promise<boolean> {
    return this.serial(async () => {
      const rec = this.undoStack.pop();
      if (!rec) return false;
      const inverse = await this.revert(rec);
      if (inverse.length) this.redoStack.push(inverse);
      return true;
    });
  }

  redo(): Promise<boolean> {
    return this.serial(async () => {
      const rec = this.redoStack.pop();
      if (!rec) return false;
      const inverse = await this.revert(rec);
      if (inverse.length) this.undoStack.push(inverse);
      return true;
    });
  }
}

function sameState(a: LabelState | null, b: LabelState): boolean {
  if (a === null) return isCleared(b);
  if (isCleared(a) && isCleared(b)) return true;
  return a.value === b.value && a.firstError === b.firstError && a.note === b.note && a.origin === b.origin && a.stepHash === b.stepHash;
}

/**
 * Opens the label store of one rollout file (the journal is created on the first write).
 * @param journalPath where the journal lives (`journalPathFor`)
 * @param options.annotator the name written on this store's entries
 * @param options.rollouts the file's rollouts: changes must name one of them; their steps give the hashes for staleness
 */
export async function openLabelStore(journalPath: string, options: { annotator: string; rollouts: Rollout[] }): Promise<JournalLabelStore> {
  const store = new JournalStore(path.resolve(journalPath), options.annotator, options.rollouts);
  await store.refresh();
  return store;
}

// The implementation matches the contract's signature.
void (openLabelStore satisfies OpenLabelStore);
