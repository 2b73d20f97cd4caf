/**
 * The timeline's side of step slicing (issue 7): turns the `rollout` message of a large rollout into
 * step heads (cached per rollout object, so a webview shown again does not rebuild them) and answers
 * the webview's `stepSlice` requests from the rollout in memory (for an indexed dump, the rollout
 * read when it was shown). The logic is src/shared/stepHeads.ts; nothing here imports `vscode`.
 */
import type { Rollout } from '../core/model';
import type { RolloutMessage, SlicedInfo, StepsMessage, StepSliceMessage } from '../shared/protocol';
import { answerStepSlice, initialSteps, rolloutChars, rolloutHeads, SLICE_MIN_CHARS } from '../shared/stepHeads';

/** One timeline's step heads and slice answers. */
export class StepSlices {
  private readonly heads = new WeakMap<Rollout, { rollout: Rollout; sliced: SlicedInfo } | null>();

  /** @param minChars rollouts estimated larger than this (UTF-16 code units) are sent as heads. */
  constructor(private readonly minChars = SLICE_MIN_CHARS) {}

  /** The message to post for `msg`: itself for a small rollout, else with step heads and `sliced`. */
  present(msg: RolloutMessage): RolloutMessage {
    let h = this.heads.get(msg.rollout);
    if (h === undefined) {
      h = rolloutChars(msg.rollout) > this.minChars ? rolloutHeads(msg.rollout) : null;
      this.heads.set(msg.rollout, h);
    }
    return h ? { ...msg, rollout: h.rollout, sliced: { ...h.sliced, initial: initialSteps(msg.rollout, msg.selectStep) } } : msg;
  }

  /**
   * The `steps` answer to `req` from the rollout shown, or null to drop it (another rollout, out of
   * range, or an unexpected error: a bad request never throws into the host).
   */
  answer(req: StepSliceMessage, rolloutIndex: number, rollout: Rollout | null): StepsMessage | null {
    try {
      return answerStepSlice(req, rolloutIndex, rollout);
    } catch {
      return null;
    }
  }
}
