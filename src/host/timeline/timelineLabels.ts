/**
 * The labels of one timeline: the file's LabelSession (shared with the other timelines of the
 * file, through the LabelService), opened when the file is loaded and again when the annotator
 * changes; the `labels` message of the rollout shown; and the label requests of the webview and of
 * the label commands (set a label or verdict, mark the first error, undo, redo), each answered
 * with the newest request handled (TimelineSession.labelAnswered).
 */
import * as vscode from 'vscode';
import type { Rollout } from '../../core/model';
import type { LabelSession } from '../labelSession';
import type { LabelService } from '../labels';
import type { TimelineView } from '../timelineFeature';
import type { TimelineSession } from '../timelineSession';

/** What the labels see of their timeline: its file, the rollout shown, and its webview. */
export type LabelsHost = Pick<TimelineView, 'uri' | 'rolloutIndex' | 'rollout' | 'postMessage'> & {
  /**
   * Called with a session just opened, before its labels are shown: a rollout read by windows reads
   * the steps the journal labels (their hashes say whether a label is stale). Errors are logged.
   */
  prepareLabels?(session: LabelSession): Promise<void>;
};

/** One timeline's labels. */
export class TimelineLabels {
  /** The labels of this file (shared with other timelines of the file); null until opened. */
  private labelSession: LabelSession | null = null;
  private unsubscribe: (() => void) | null = null;
  /** Why the labels could not be opened (shown in the webview instead of labels). */
  private openError: { journal: string; message: string } | null = null;
  private openSeq = 0;
  private closed = false;

  /**
   * @param session the webview state of the timeline: whether it takes messages, the label requests answered
   */
  constructor(
    private readonly host: LabelsHost,
    private readonly session: TimelineSession,
    private readonly labels: LabelService,
    private readonly output: vscode.LogOutputChannel,
  ) {}

  /** The label session of this file, once open. */
  get current(): LabelSession | null {
    return this.labelSession;
  }

  /** The path of this file's journal. */
  get journalPath(): string {
    return this.labelSession?.journal ?? this.labels.locate(this.host.uri.fsPath).journal;
  }

  /** The file's rollouts were (re)read: the open session takes them, else the session is opened. */
  rolloutsRead(rollouts: Rollout[]): void {
    if (this.labelSession) this.labelSession.setRollouts(rollouts);
    else void this.open(rollouts);
  }

  /** The rollouts of an open session changed (a followed file grew, a dump's rollout was read); no-op before it is open. */
  update(rollouts: Rollout[]): void {
    this.labelSession?.setRollouts(rollouts);
  }

  /** Opens (or re-opens, after the annotator changed) the label session of this file. */
  async open(rollouts: Rollout[]): Promise<void> {
    const seq = ++this.openSeq;
    const labels = this.labels;
    let session: LabelSession | null = null;
    let error: { journal: string; message: string } | null = null;
    try {
      session = await labels.acquire(this.host.uri.fsPath, rollouts);
    } catch (e) {
      const journal = labels.locate(this.host.uri.fsPath).journal;
      error = { journal, message: e instanceof Error ? e.message : String(e) };
      this.output.error(`labels: cannot open ${journal}: ${error.message}`);
    }
    if (session && this.host.prepareLabels) {
      try {
        await this.host.prepareLabels(session);
      } catch (e) {
        this.output.warn(`labels: cannot read the labelled steps of ${this.host.uri.fsPath}: ${String(e)} (their labels are not checked for staleness)`);
      }
    }
    if (seq !== this.openSeq || this.closed) {
      if (session) labels.release(session);
      return;
    }
    this.drop();
    this.labelSession = session;
    this.openError = error;
    if (session) {
      this.unsubscribe = session.onChange(() => this.send());
    }
    this.send();
  }

  private drop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.labelSession) this.labels.release(this.labelSession);
    this.labelSession = null;
  }

  /** Posts the labels of the rollout shown (to a ready webview). */
  send(): void {
    const r = this.host.rollout;
    const ts = this.session;
    if (!r || !ts.isReady) return;
    if (this.labelSession) {
      this.host.postMessage(this.labelSession.message(this.host.rolloutIndex, r.id, ts.labelSeq));
    } else if (this.openError) {
      const e = this.openError;
      this.host.postMessage({ type: 'labels', rolloutIndex: this.host.rolloutIndex, rolloutId: r.id, annotator: this.labels.currentAnnotator, labels: [], unsaved: [], journal: e.journal, error: `labels are off for this file: ${e.message}`, warnings: [], seq: ts.labelSeq });
    }
  }

  /** The label session, or null after telling the user why there is none. */
  private sessionOrExplain(): LabelSession | null {
    if (this.labelSession) return this.labelSession;
    const why = this.openError?.message ?? 'the labels of this file are still loading';
    void vscode.window.showWarningMessage(`Trajectory Inspector: cannot label now: ${why}`);
    return null;
  }

  /** Runs a label op; an error writing is shown with Retry (the change stays in memory). */
  private async labelOp(seq: number | undefined, fn: (s: LabelSession) => Promise<unknown>): Promise<void> {
    const session = this.sessionOrExplain();
    // Requests are handled in the order they came (the session serialises its ops), so once this
    // one is done every request up to `seq` is: the answer says so, and the webview drops its
    // in-flight copies of them.
    const answered = (): void => {
      this.session.labelAnswered(seq);
      this.send();
    };
    if (!session) {
      answered();
      return;
    }
    try {
      await fn(session);
    } finally {
      answered();
    }
    if (session.error) this.labels.reportWriteError(session);
  }

  /** Sets the user's label (value and/or note) of a step of the rollout shown, or its verdict (`stepIndex` null). */
  async setLabel(stepIndex: number | null, change: { value?: 1 | 0 | -1 | null; note?: string | null }, seq?: number): Promise<void> {
    const r = this.host.rollout;
    if (!r) return;
    await this.labelOp(seq, (s) => s.run({ kind: 'apply', changes: [{ rolloutId: r.id, stepIndex, ...change }] }));
  }

  /** Marks step `stepIndex` of the rollout shown as its first error. */
  async markFirstError(stepIndex: number, seq?: number): Promise<void> {
    const r = this.host.rollout;
    if (!r) return;
    await this.labelOp(seq, (s) => s.run({ kind: 'firstError', rolloutId: r.id, stepIndex }));
  }

  /** Tells the user why a label request is not done (a warning), and answers it (`seq`) unchanged. */
  async refuse(why: string, seq?: number): Promise<void> {
    void vscode.window.showWarningMessage(`Trajectory Inspector: ${why}`);
    this.session.labelAnswered(seq);
    this.send();
  }

  /** Undoes the user's last label change of the file (the status bar says when there is none). */
  async undo(seq?: number): Promise<void> {
    await this.labelOp(seq, async (s) => {
      if (!(await s.undo()) && !s.error) void vscode.window.setStatusBarMessage('Trajectory Inspector: nothing to undo', 3000);
    });
  }

  /** Redoes the last label change undone. */
  async redo(seq?: number): Promise<void> {
    await this.labelOp(seq, async (s) => {
      if (!(await s.redo()) && !s.error) void vscode.window.setStatusBarMessage('Trajectory Inspector: nothing to redo', 3000);
    });
  }

  /** The user's current verdict on the rollout shown (for the verdict picker). */
  get verdict(): 1 | 0 | -1 | null {
    const r = this.host.rollout;
    const s = this.labelSession;
    if (!r || !s) return null;
    return s.message(this.host.rolloutIndex, r.id, null).labels.find((l) => l.stepIndex === null && l.annotator === s.annotator)?.value ?? null;
  }

  /** The timeline closed: a session being opened is released when it arrives, an open one now. */
  dispose(): void {
    this.closed = true;
    this.openSeq++;
    this.drop();
  }
}
