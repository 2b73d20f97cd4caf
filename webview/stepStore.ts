/**
 * The webview's store of full steps of a sliced rollout. The `rollout` message of a large
 * rollout holds step heads (src/shared/stepHeads.ts); the timeline asks this store for the full
 * steps of the cards it renders and for the steps around them (`want`), and the store asks the host
 * for the ones missing (`loadSteps`), in chunks of CHUNK_STEPS aligned steps, never twice while
 * a request for the chunk is in flight. Answers (`steps`) are kept in a bounded LRU: at most
 * `maxSteps` steps and `maxChars` characters of step text (the least recently used go first, never
 * below `minKeep`), so scrolling through 10,000 long steps keeps memory flat.
 *
 * A step the head left whole (nothing long) needs no request: `full` returns its head. A paged
 * rollout (SlicedInfo.paged, src/shared/pagedSteps.ts) came without heads: every one of its steps
 * below the column's count is loaded like a cut step (steps a live update brought after that are
 * heads again, with their own cuts).
 */
import type { Step } from '../src/shared/model';
import type { CutField, RolloutMessage, LoadStepsMessage, PagedSteps, StepsMessage } from '../src/shared/protocol';
import { pagedHeight } from '../src/shared/pagedSteps';
import { MAX_SLICE_STEPS } from '../src/shared/protocol';
import { INITIAL_STEPS, stepChars } from '../src/shared/stepHeads';
import { formatBytes } from '../src/shared/text';
import { groupThousands } from './format';

/** Steps per request: requests cover aligned chunks of this many steps (so overlapping ranges share them). */
export const CHUNK_STEPS = INITIAL_STEPS;

export interface StepStoreOptions {
  /** Sends a request to the host. */
  post(msg: LoadStepsMessage): void;
  /** Most full steps kept (default 2000). */
  maxSteps?: number;
  /** Most characters of step text kept (default 32 Mi: about 64 MB of strings). */
  maxChars?: number;
  /** Fewest steps kept whatever their size (the ones on screen; default 120). */
  minKeep?: number;
  /** A request unanswered this long is sent again when asked (ms; default 15 s). */
  retryMs?: number;
  /** Clock (tests). */
  now?(): number;
}

const NO_CUTS: CutField[] = [];

interface Kept {
  step: Step;
  chars: number;
}

/** Full steps of the sliced rollout shown, and the requests for the missing ones. */
export class StepStore {
  private rolloutIndex = 0;
  private rolloutId: string | null = null;
  private count = 0;
  /** Step index → what its head left out (only steps with a cut). */
  private cuts = new Map<number, CutField[]>();
  /** The paged column, and the steps below `pagedCount` (all of them until a live update) that came without a head. */
  private paged: PagedSteps | null = null;
  private pagedCount = 0;
  /** Full steps, least recently used first. */
  private kept = new Map<number, Kept>();
  private keptChars = 0;
  /** Chunk → [request seq, time sent] of the requests in flight. */
  private inFlight = new Map<number, { seq: number; at: number }>();
  private seq = 0;
  /** The chunks of the last `want`, as steps `wantedFrom` … `wantedTo - 1`: never evicted. */
  private wantedFrom = 0;
  private wantedTo = 0;
  /** Answers to requests numbered at most this are from before the last reset: dropped. */
  private resetSeq = 0;
  /**
   * Live follow: steps from `from` on changed after requests up to `seq` were sent; an answer to
   * such a request may bring those steps as they were, so they are not kept from it.
   */
  private changes: { seq: number; from: number }[] = [];
  /** Requests sent since the last reset (tests and the bench read it). */
  requests = 0;
  private readonly maxSteps: number;
  private readonly maxChars: number;
  private readonly minKeep: number;
  private readonly retryMs: number;
  private readonly now: () => number;

  constructor(private readonly opts: StepStoreOptions) {
    this.maxSteps = opts.maxSteps ?? 2000;
    this.maxChars = opts.maxChars ?? 32 * 1024 * 1024;
    this.minKeep = opts.minKeep ?? 120;
    this.retryMs = opts.retryMs ?? 15_000;
    this.now = opts.now ?? (() => Date.now());
  }

  /** A rollout was shown: forget everything of the previous one (answers still on the way are dropped). */
  reset(msg: RolloutMessage | null): void {
    this.kept.clear();
    this.keptChars = 0;
    this.inFlight.clear();
    this.resetSeq = this.seq;
    this.changes = [];
    this.requests = 0;
    this.wantedFrom = this.wantedTo = 0;
    this.cuts = new Map((msg?.sliced?.cuts ?? []).map((c) => [c.index, c.fields]));
    this.paged = msg?.sliced?.paged ?? null;
    this.pagedCount = this.paged?.count ?? 0;
    this.rolloutId = msg?.sliced ? msg.rollout.id : null;
    this.rolloutIndex = msg?.rolloutIndex ?? 0;
    this.count = msg?.rollout.steps.length ?? 0;
    // The full steps that came with the heads (the first cards), kept as an answer would be.
    for (const st of msg?.sliced?.initial?.steps ?? []) this.keep(st);
    this.evict();
  }

  /** The rollout shown is sliced (its steps are heads). */
  get sliced(): boolean {
    return this.rolloutId !== null;
  }

  /** Full steps kept now. */
  get size(): number {
    return this.kept.size;
  }

  /** Characters of step text kept now (stepChars estimate). */
  get chars(): number {
    return this.keptChars;
  }

  /** Requests in flight now. */
  get pending(): number {
    return this.inFlight.size;
  }

  /** Whether step `index` came without its full content (cut head, or no head: paged). */
  private isCut(index: number): boolean {
    return index < this.pagedCount || this.cuts.has(index);
  }

  /** What the head of step `index` left out (empty for a step of a paged rollout: it came without a head); null when the step came whole. */
  cutOf(index: number): CutField[] | null {
    return this.cuts.get(index) ?? (index < this.pagedCount ? NO_CUTS : null);
  }

  /** For a step of a paged rollout that came without a head, its full card body's estimated height (CSS px, collapsed); else null. */
  heightOf(index: number): number | null {
    return this.paged && index < this.pagedCount ? pagedHeight(this.paged, index) : null;
  }

  /**
   * The full step `index` (marked as just used), `head` itself when the head left nothing out, or
   * null when it is still to come.
   */
  full(index: number, head: Step): Step | null {
    if (!this.sliced || !this.isCut(index)) return head;
    const k = this.kept.get(index);
    if (!k) return null;
    this.kept.delete(index);
    this.kept.set(index, k);
    return k.step;
  }

  /** Steps `from` … `to - 1` are wanted: asks the host for the chunks with a missing step. Returns the requests sent. */
  want(from: number, to: number): number {
    if (!this.sliced) return 0;
    const lo = Math.max(0, Math.floor(from));
    const hi = Math.min(this.count, Math.ceil(to));
    // The chunks asked for are kept whatever the budget (see evict), or their answers would evict
    // each other and be asked for again, forever, when the steps shown outgrow the budget.
    this.wantedFrom = Math.floor(lo / CHUNK_STEPS) * CHUNK_STEPS;
    this.wantedTo = Math.ceil(hi / CHUNK_STEPS) * CHUNK_STEPS;
    let sent = 0;
    const now = this.now();
    for (let chunk = Math.floor(lo / CHUNK_STEPS); chunk * CHUNK_STEPS < hi; chunk++) {
      const f = this.inFlight.get(chunk);
      if (f && now - f.at < this.retryMs) continue;
      const start = chunk * CHUNK_STEPS;
      const end = Math.min(this.count, start + CHUNK_STEPS);
      let first = -1;
      let last = -1;
      for (let i = start; i < end; i++) {
        if (this.isCut(i) && !this.kept.has(i)) {
          if (first < 0) first = i;
          last = i;
        }
      }
      if (first < 0) continue;
      const seq = ++this.seq;
      this.inFlight.set(chunk, { seq, at: now });
      this.requests++;
      sent++;
      this.opts.post({ type: 'loadSteps', rolloutIndex: this.rolloutIndex, rolloutId: this.rolloutId!, from: first, to: Math.min(last + 1, first + MAX_SLICE_STEPS), seq });
    }
    return sent;
  }

  /** An answer from the host: keeps its steps. False when it is not for the rollout shown (dropped). */
  receive(m: StepsMessage): boolean {
    if (!this.sliced || m.rolloutId !== this.rolloutId || m.rolloutIndex !== this.rolloutIndex || m.seq <= this.resetSeq) return false;
    for (const [chunk, f] of this.inFlight) if (f.seq === m.seq) this.inFlight.delete(chunk);
    // Steps changed since this request was sent may be old in the answer.
    let stale = Infinity;
    for (const c of this.changes) if (c.seq >= m.seq) stale = Math.min(stale, c.from);
    for (const s of m.steps) if (s.index < stale) this.keep(s);
    this.evict();
    return true;
  }

  /**
   * The rollout shown changed by its last steps (live follow, a `rolloutUpdate`): it has `count`
   * steps now, and the ones from `from` on are new or changed. `cuts` are theirs when the update is
   * sliced (the rollout becomes sliced when it was not: its earlier steps came whole and stay so);
   * null when the steps came whole. Full steps kept from `from` on are dropped (asked for again).
   */
  update(rolloutIndex: number, rolloutId: string, from: number, count: number, cuts: readonly { index: number; fields: CutField[] }[] | null): void {
    if (cuts && !this.sliced) {
      this.rolloutId = rolloutId;
      this.rolloutIndex = rolloutIndex;
    }
    if (!this.sliced) {
      this.count = count;
      return;
    }
    for (const k of [...this.cuts.keys()]) if (k >= from) this.cuts.delete(k);
    this.pagedCount = Math.min(this.pagedCount, from);
    for (const [k, v] of [...this.kept]) {
      if (k >= from) {
        this.kept.delete(k);
        this.keptChars -= v.chars;
      }
    }
    for (const c of cuts ?? []) this.cuts.set(c.index, c.fields);
    if (this.seq > this.resetSeq) {
      this.changes.push({ seq: this.seq, from });
      if (this.changes.length > 64) this.changes.shift(); // answers older than that are long gone
    }
    // Requests for the changed chunks are answered with steps that may be old: ask again.
    for (const chunk of [...this.inFlight.keys()]) if ((chunk + 1) * CHUNK_STEPS > from) this.inFlight.delete(chunk);
    this.count = count;
  }

  /** Keeps one full step (ignored when out of range or when its head is whole). */
  private keep(s: Step): void {
    if (s.index >= this.count || !this.isCut(s.index)) return;
    const old = this.kept.get(s.index);
    if (old) {
      this.keptChars -= old.chars;
      this.kept.delete(s.index);
    }
    const chars = stepChars(s);
    this.kept.set(s.index, { step: s, chars });
    this.keptChars += chars;
  }

  private evict(): void {
    for (const [index, k] of this.kept) {
      if (this.kept.size <= this.minKeep) break;
      if (this.kept.size <= this.maxSteps && this.keptChars <= this.maxChars) break;
      if (index >= this.wantedFrom && index < this.wantedTo) continue;
      this.kept.delete(index);
      this.keptChars -= k.chars;
    }
  }
}

const FIELD_WORD: Record<string, string> = { message: 'message', reasoning: 'reasoning', command: 'command', arguments: 'arguments', output: 'output', edit: 'edit' };

/** What a step head left out, in words: `output 5,000 lines · message 1.2 KB`. */
export function describeCut(fields: readonly CutField[]): string {
  return fields
    .map((f) => {
      const word = FIELD_WORD[f.field.split('.').pop() ?? ''] ?? f.field;
      return f.lines > 1 ? `${word} ${groupThousands(f.lines)} lines` : `${word} ${formatBytes(f.chars)}`;
    })
    .join(' · ');
}

export { estimateBodyHeight } from '../src/shared/cardHeight';
