/**
 * The timeline's side of step slicing: turns a large rollout into
 * step heads (cached per rollout object, so a webview shown again does not rebuild them) and answers
 * the webview's `loadSteps` requests from the rollout in memory (for an indexed dump, the rollout
 * read when it was shown). The logic is src/shared/stepHeads.ts; nothing here imports `vscode`.
 *
 * A followed rollout (live follow) changes by its last steps: `update` gives the steps of
 * a `rolloutUpdate` (heads when the rollout is sliced) from the sizes it keeps per step, so an
 * append costs the new steps' work, not the whole rollout's. A rollout that grows past the slicing
 * size while followed is sliced from then on (its earlier steps stay whole in the webview).
 */
import type { Rollout, Step } from '../core/model';
import type { RolloutUpdateMessage, SlicedInfo, StepsMessage, LoadStepsMessage } from '../shared/protocol';
import { PAGED_MIN_STEPS, pagedColumn } from '../shared/pagedSteps';
import { answerStepSlice, initialSteps, rolloutChars, rolloutHeads, SLICE_MIN_CHARS, stepChars, stepHead } from '../shared/stepHeads';

/** Per step of the rollout shown: its size whole, and the size of what the webview was sent of it. */
interface Sizes {
  rolloutId: string;
  full: number[];
  sent: number[];
  fullTotal: number;
  sentTotal: number;
  sliced: boolean;
}

const sum = (a: readonly number[], from = 0): number => {
  let n = 0;
  for (let i = from; i < a.length; i++) n += a[i];
  return n;
};

/** The size rolloutChars counts for a rollout beside its steps. */
const baseChars = (r: Rollout): number => 1000 + (r.task.instruction?.length ?? 0);

/** One timeline's step heads and slice answers. */
export class StepSlices {
  private readonly cache = new WeakMap<Rollout, { rollout: Rollout; sliced: SlicedInfo; collapseLines: number } | null>();
  /** Sizes of the rollout last updated (for `update`). */
  private sizes: Sizes | null = null;
  /** The rollout last presented and whether it went as heads (what the webview has before its first update). */
  private presented: { rolloutId: string; sliced: boolean; paged: boolean } | null = null;

  /**
   * @param minChars rollouts estimated larger than this (UTF-16 code units) are sent as heads…
   * @param pagedMinSteps …and those of them with more steps than this go paged (no heads, pagedSteps.ts).
   */
  constructor(
    private readonly minChars = SLICE_MIN_CHARS,
    private readonly pagedMinSteps = PAGED_MIN_STEPS,
  ) {}

  /**
   * How `rollout` goes to the webview (rolloutMessage.ts asks): null for a small rollout (whole),
   * else its step heads and `sliced` — or, for a rollout of more than `pagedMinSteps` steps, no
   * steps and `sliced.paged` (its column, with row heights for cards collapsed to `collapseLines`
   * output lines) — with the full steps around `revealStep` as `sliced.initial`.
   */
  heads(rollout: Rollout, revealStep: number | null, collapseLines = 20): { rollout: Rollout; sliced: SlicedInfo } | null {
    let h = this.cache.get(rollout);
    if (h !== undefined && h?.sliced.paged && h.collapseLines !== collapseLines) h = undefined;
    if (h === undefined) {
      const chars = rolloutChars(rollout);
      if (chars <= this.minChars) h = null;
      else if (rollout.steps.length > this.pagedMinSteps) {
        const paged = pagedColumn(rollout, collapseLines);
        const headChars = 1000 + (rollout.task.instruction?.length ?? 0) + paged.kinds.length + paged.heights.length + 40 * (paged.castTimes.length + paged.refs.length);
        h = { rollout: { ...rollout, steps: [] }, sliced: { fullChars: chars, headChars, cuts: [], paged }, collapseLines };
      } else h = { ...rolloutHeads(rollout), collapseLines };
      this.cache.set(rollout, h);
    }
    this.presented = { rolloutId: rollout.id, sliced: h !== null, paged: !!h?.sliced.paged };
    this.sizes = null; // measured on the first update
    return h ? { rollout: h.rollout, sliced: { ...h.sliced, initial: initialSteps(rollout, revealStep) } } : null;
  }

  /**
   * The steps from `from` on of `rollout` (the rollout shown, whose earlier steps the webview has),
   * as a `rolloutUpdate` carries them: whole, or heads with `sliced` once the rollout is large.
   */
  update(rollout: Rollout, from: number): Pick<RolloutUpdateMessage, 'steps' | 'sliced'> {
    let z = this.sizes;
    if (!z || z.rolloutId !== rollout.id || z.full.length < from) {
      // First update since the rollout was presented: what it was sent (heads when it was sliced).
      const sliced = this.presented?.rolloutId === rollout.id && this.presented.sliced;
      const full = rollout.steps.slice(0, from).map(stepChars);
      // A paged rollout's steps went as its column (2 characters a step), a sliced one's as heads.
      const paged = sliced && this.presented?.paged === true;
      const sent = paged ? full.map(() => 2) : sliced ? rollout.steps.slice(0, from).map((s) => stepChars(stepHead(s).head)) : full.slice();
      z = this.sizes = { rolloutId: rollout.id, full, sent, fullTotal: sum(full), sentTotal: sum(sent), sliced };
    }
    z.fullTotal -= sum(z.full, from);
    z.sentTotal -= sum(z.sent, from);
    z.full.length = from;
    z.sent.length = from;
    const tail = rollout.steps.slice(from);
    for (const s of tail) {
      const n = stepChars(s);
      z.full.push(n);
      z.fullTotal += n;
    }
    if (!z.sliced && z.fullTotal + baseChars(rollout) > this.minChars) z.sliced = true;
    if (!z.sliced) {
      for (let i = from; i < z.full.length; i++) z.sent.push(z.full[i]);
      z.sentTotal = z.fullTotal;
      return { steps: tail };
    }
    const cuts: SlicedInfo['cuts'] = [];
    const steps: Step[] = tail.map((s, k) => {
      const { head, fields } = stepHead(s);
      if (fields.length) cuts.push({ index: s.index, fields });
      const n = fields.length ? stepChars(head) : z.full[from + k];
      z.sent.push(n);
      z.sentTotal += n;
      return head;
    });
    const base = baseChars(rollout);
    return { steps, sliced: { fullChars: base + z.fullTotal, headChars: base + z.sentTotal, cuts } };
  }

  /**
   * The `steps` answer to `req` from the rollout shown, or null to drop it (another rollout, out of
   * range, or an unexpected error: a bad request never throws into the host).
   */
  answer(req: LoadStepsMessage, rolloutIndex: number, rollout: Rollout | null): StepsMessage | null {
    try {
      return answerStepSlice(req, rolloutIndex, rollout);
    } catch {
      return null;
    }
  }
}
