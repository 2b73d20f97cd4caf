/**
 * What one timeline panel keeps about its webview, without VS Code: whether the webview is ready
 * for messages, which load is the newest, which rollout is shown, the step a command asked to
 * reveal, the last step the webview said is selected, and the newest label request answered.
 * TimelinePanel (timeline/timelinePanel.ts) drives it; test/unit/host/timelineSession.test.ts tests it
 * through a fake port.
 *
 * The webview owns the selection: the host asks it to reveal a step (`revealStep`, or the
 * `revealStep` of a `rollout` message) and keeps only the last `stepSelected` it was told, for its
 * commands. A reveal the webview did not confirm with a `stepSelected` is sent again to a webview
 * that is created anew (it was hidden, or torn down while the message was on its way), so a step
 * opened from the tree, a search or a link is not lost to a webview re-created meanwhile.
 */
import type { HostMessage, PersistedState } from '../shared/protocol';

/** Where a session's messages go: the panel's webview. */
export interface WebviewPort {
  /** Posts a message; the session calls it only while the webview is ready. */
  post(msg: HostMessage): void;
}

/** One timeline's webview state. */
export class TimelineSession {
  private ready = false;
  private loadSeq = 0;
  /** Rollout shown (or to show), as an index in the file. */
  private rollout: number;
  /** The last `stepSelected` of the webview, with the rollout it belongs to. */
  private selected: { rolloutIndex: number; stepIndex: number } | null = null;
  /** A step to reveal with the next `rollout` message (or `revealStep`). */
  private pendingReveal: number | null = null;
  /** A step posted to reveal that the webview has not confirmed yet (see the module comment). */
  private unconfirmedReveal: number | null = null;
  /** A command chose the rollout shown: a re-created webview's own state does not override it. */
  private requested = false;
  /** The newest label request of the webview answered (echoed in `labels`). */
  private labelSeq_: number | null = null;

  constructor(
    private readonly port: WebviewPort,
    initialRollout = 0,
  ) {
    this.rollout = initialRollout;
  }

  /** True while the webview takes messages (after `ready`, until hidden). */
  get isReady(): boolean {
    return this.ready;
  }

  /** Posts `msg` to a ready webview; false (dropped) when it is not ready. */
  post(msg: HostMessage): boolean {
    if (!this.ready) return false;
    this.port.post(msg);
    return true;
  }

  // ------------------------------------------------------------ webview lifetime

  /**
   * The webview said `ready` with what it had persisted: unless a command chose the rollout since,
   * the rollout and selection it had come back. A reveal it did not confirm is sent again.
   * @param chosenElsewhere a command asked for a rollout before the webview was created (the editor opened from the tree)
   */
  webviewReady(state: PersistedState | null, chosenElsewhere = false): void {
    this.ready = true;
    if (state && !chosenElsewhere && !this.requested) {
      this.rollout = state.rolloutIndex;
      this.selected = state.selectedStep === null ? null : { rolloutIndex: state.rolloutIndex, stepIndex: state.selectedStep };
    }
    if (this.unconfirmedReveal !== null && this.pendingReveal === null) this.pendingReveal = this.unconfirmedReveal;
    this.unconfirmedReveal = null;
  }

  /** The webview was hidden (and is torn down): nothing is posted until it is `ready` again. */
  webviewHidden(): void {
    this.ready = false;
  }

  // ------------------------------------------------------------ loads

  /** Starts a load; the number it returns stays `isCurrent` until the next load starts. */
  beginLoad(): number {
    return ++this.loadSeq;
  }

  isCurrent(load: number): boolean {
    return load === this.loadSeq;
  }

  /** Makes any load in flight stale (the panel closed). */
  cancelLoads(): void {
    this.loadSeq++;
  }

  // ------------------------------------------------------------ rollout and steps

  /** The rollout shown. */
  get rolloutIndex(): number {
    return this.rollout;
  }

  /** The step the webview last said is selected in the rollout shown, or null. */
  get selectedStep(): number | null {
    return this.selected && this.selected.rolloutIndex === this.rollout ? this.selected.stepIndex : null;
  }

  /** Keeps the rollout shown and the selection inside a file of `count` rollouts whose shown one has `steps(i)` steps. */
  clamp(count: number, steps: (rolloutIndex: number) => number): void {
    this.rollout = Math.max(0, Math.min(this.rollout, count - 1));
    const n = steps(this.rollout);
    if (this.selected && this.selected.rolloutIndex === this.rollout && this.selected.stepIndex >= n) {
      this.selected = n ? { rolloutIndex: this.rollout, stepIndex: n - 1 } : null;
    }
    if (this.pendingReveal !== null && this.pendingReveal >= n) this.pendingReveal = null;
  }

  /** A command (the tree, search, a link, the picker) shows rollout `i`, revealing `step` (null: the webview's own selection). */
  show(rolloutIndex: number, step: number | null): void {
    this.rollout = rolloutIndex;
    this.pendingReveal = step;
    this.unconfirmedReveal = null;
    this.requested = true;
  }

  /** The user picked rollout `i` in the webview's picker. */
  rolloutPicked(rolloutIndex: number): void {
    this.rollout = rolloutIndex;
    this.pendingReveal = null;
    this.unconfirmedReveal = null;
  }

  /** Asks to reveal `step` of the rollout shown: posted now when the webview is ready, else with the next rollout. */
  reveal(step: number): boolean {
    if (this.post({ type: 'revealStep', index: step })) {
      this.pendingReveal = null;
      this.unconfirmedReveal = step;
      return true;
    }
    this.pendingReveal = step;
    return false;
  }

  /**
   * The step to reveal with the `rollout` message being posted now (null: none); the webview should
   * confirm it with `stepSelected`. Call only when the message is posted.
   */
  takeReveal(): number | null {
    const step = this.pendingReveal;
    this.pendingReveal = null;
    this.requested = false;
    if (step !== null) this.unconfirmedReveal = step;
    return step;
  }

  /** The webview says step `stepIndex` of rollout `rolloutIndex` is selected. */
  stepSelected(rolloutIndex: number, stepIndex: number): void {
    if (rolloutIndex !== this.rollout) return;
    this.selected = { rolloutIndex, stepIndex };
    this.unconfirmedReveal = null;
  }

  // ------------------------------------------------------------ labels

  /** The newest label request answered, or null (echoed in `labels`). */
  get labelSeq(): number | null {
    return this.labelSeq_;
  }

  /** Label request `seq` is handled (requests are handled in order: so is every one before it). */
  labelAnswered(seq: number | undefined): void {
    if (seq !== undefined) this.labelSeq_ = Math.max(this.labelSeq_ ?? 0, seq);
  }
}
