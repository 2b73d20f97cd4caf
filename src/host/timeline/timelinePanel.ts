/**
 * One open timeline editor (TimelinePanel): a read-only webview over a rollout file. It opens the
 * file as a RolloutSource (rolloutSource.ts: read whole, in a load worker or on this thread, or
 * through a large dump's index; timeline/readSource.ts), waits for the webview's `ready`, then
 * posts the rollout (rolloutMessage.ts) or the load error with its located issues. Nothing a file
 * contains can throw into the host: every failure becomes a `loadError` message. What the panel
 * keeps about its webview (ready, load order, the rollout shown, the step to reveal, the last step
 * selected) is a TimelineSession (timelineSession.ts). Step scores and replay are TimelineFeatures
 * (timelineFeature.ts) the provider hands over; labels are the panel's own (timeline/timelineLabels.ts),
 * through the LabelService.
 *
 * Live follow (docs/live-follow.md): a JSONL file whose format has an incremental reader
 * (`FormatLoader.stream`) is opened through core `JsonlFollower`: the first steps are shown from its
 * first part and the rest is read on by a LiveFollow (timeline/liveFollow.ts); new and changed steps
 * go to the webview as `rolloutUpdate`. Other files are read again whole after they change, at most
 * every few seconds (timeline/reloadThrottle.ts).
 *
 * A big ATIF (timeline/readSource.ts openStepped) is a SteppedRolloutSource: its rollout has no
 * steps in memory; the message is paged and the webview's `loadSteps` are answered from windows of
 * the file; Show in Source, step links, Copy Step and labels read the step they need
 * (`stepAt`); scores and replay say they are off for it (pagedRollout.ts).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LoadedFile } from '../../core/load';
import type { Rollout, RolloutLink, Step } from '../../core/model';
import { findLinkTarget } from '../../core/links';
import { isWebviewMessage, type HostMessage, type LabelAction, type LiveInfo, type LoadErrorMessage, type ViewConfig, type WebviewMessage } from '../../shared/protocol';
import { readSettings } from '../config';
import type { RolloutFiles } from '../rolloutFiles';
import type { HighlightQuery } from '../../shared/highlight';
import { CastFeed } from './castFeed';
import type { LabelSession } from '../labelSession';
import type { LabelService } from '../labels';
import { errorToMessage } from '../loadErrors';
import { makeNonce, timelineHtml } from '../webviewHtml';
import { rolloutMessage, rolloutUpdateMessage } from '../rolloutMessage';
import { LoadedSource, type RolloutSource } from '../rolloutSource';
import { byWindowsNotice, stepCount } from '../pagedRollout';
import { SteppedRolloutSource } from '../steppedSource';
import { StepSlices } from '../stepSlices';
import type { TimelineFeature, TimelineView } from '../timelineFeature';
import { TimelineSession } from '../timelineSession';
import { JsonlFollower } from '../../core/follow';
import type { LiveFiles } from '../liveFiles';
import { LiveFollow } from './liveFollow';
import { openLocation, revealInSource } from './locations';
import { readTimelineSource } from './readSource';
import { ReloadThrottle } from './reloadThrottle';
import { TimelineLabels } from './timelineLabels';


/** What a panel needs of the editor provider that made it (TimelineEditorProvider). */
export interface TimelinePanelOwner {
  readonly output: vscode.LogOutputChannel;
  readonly labels: LabelService;
  /** How the file is read: the load workers and the dump indexes. */
  readonly files: RolloutFiles;
  /** The features told what the panel shows (step scores, replay), in this order. */
  readonly features: readonly TimelineFeature[];
  /** The followed-files registry the panel publishes a followed file to. */
  readonly liveFiles: LiveFiles;
  /** The panel was focused (the commands act on it). */
  setActive(p: TimelinePanel): void;
  /** The panel closed. */
  forget(p: TimelinePanel): void;
  /** Opens a link's target: in `here` when it points into that panel's file, else in the timeline of its file. */
  openLink(link: RolloutLink, here: TimelinePanel | null): Promise<void>;
}

/** One open timeline editor. */
export class TimelinePanel implements vscode.Disposable, TimelineView {
  private readonly disposables: vscode.Disposable[] = [];
  /** Ready state, load order, rollout shown, step to reveal, last step selected, label answers. */
  private readonly session: TimelineSession;
  /** The file's rollouts (null until loaded, and when it could not be). */
  private source: RolloutSource | null = null;
  private error: LoadErrorMessage | null = null;
  /** When the file is read again whole after it changed. */
  private readonly reloads = new ReloadThrottle(() => void this.load());
  private disposed = false;
  /** The labels of this file (its label session, opened once the file is loaded). */
  private readonly labelState: TimelineLabels;
  /** Step heads of a large rollout and the answers to the webview's `loadSteps` requests. */
  private readonly slices = new StepSlices();
  /** The recording the player plays (streamed from its file). */
  private readonly castFeed = new CastFeed((m) => this.post(m));
  /** The file followed through its loader's incremental reader (live follow); null when read whole. */
  private follow: LiveFollow | null = null;
  /** Steps of the rollout shown the webview has (what a `rolloutUpdate` starts from). */
  private sentSteps = 0;
  /** How the file is kept up with (sent with the rollout). */
  private live: LiveInfo | null = null;

  constructor(
    readonly uri: vscode.Uri,
    readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    private readonly owner: TimelinePanelOwner,
    initialRollout: number | null,
  ) {
    this.session = new TimelineSession(
      {
        post: (msg) => {
          this.owner.output.trace(`timeline: posting ${msg.type}`);
          this.panel.webview.postMessage(msg).then(
            (ok) => ok || this.owner.output.debug(`timeline: ${msg.type} not delivered (webview hidden or gone)`),
            (e) => this.owner.output.error(`timeline: posting ${msg.type} failed: ${String(e)}`),
          );
        },
      },
      initialRollout ?? 0,
    );
    this.labelState = new TimelineLabels(this, this.session,
      owner.labels,
      owner.output,
    );
    const roots = [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')];
    panel.webview.options = { enableScripts: true, localResourceRoots: roots };
    panel.webview.html = timelineHtml({
      cspSource: panel.webview.cspSource,
      nonce: makeNonce(),
      scriptUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview.js')).toString(),
      styleUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'timeline.css')).toString(),
    });
    this.disposables.push(
      panel.webview.onDidReceiveMessage((m: unknown) => {
        if (!isWebviewMessage(m)) {
          this.owner.output.warn(`timeline: ignored a malformed message from the webview: ${JSON.stringify(m)?.slice(0, 200)}`);
          return;
        }
        this.owner.output.trace(`timeline: webview says ${m.type}`);
        void this.onMessage(m).catch((e) => {
          this.owner.output.error(`timeline: handling ${m.type} failed: ${String(e)}`);
          void vscode.window.showErrorMessage(`Trajectory Inspector: ${e instanceof Error ? e.message : String(e)}`);
        });
      }),
      panel.onDidChangeViewState(() => {
        // A hidden webview is torn down (no retainContextWhenHidden); it says `ready` again when shown.
        if (!panel.visible) this.session.webviewHidden();
        if (panel.active) this.owner.setActive(this);
      }),
      panel.onDidDispose(() => this.dispose()),
      owner.labels.onReopen(() => {
        if (this.source) void this.labelState.open(this.labelRollouts(this.source));
      }),
    );
    if (uri.scheme === 'file') {
      const watcher = vscode.workspace.createFileSystemWatcher(
        new vscode.RelativePattern(vscode.Uri.file(path.dirname(uri.fsPath)), path.basename(uri.fsPath)),
      );
      const onChange = (): void => this.fileChanged();
      this.disposables.push(watcher, watcher.onDidChange(onChange), watcher.onDidCreate(onChange), watcher.onDidDelete(onChange));
    }
    void this.load();
  }

  /** Rollout shown (index in the file). */
  get rolloutIndex(): number {
    return this.session.rolloutIndex;
  }

  /** The step the webview last said is selected, or null. */
  get selectedStep(): number | null {
    return this.session.selectedStep;
  }

  get rollout(): Rollout | null {
    return this.source?.file.rollouts[this.rolloutIndex] ?? null;
  }

  get selected(): Step | null {
    const r = this.rollout;
    return r && this.selectedStep !== null ? (r.steps[this.selectedStep] ?? null) : null;
  }

  /** Steps of the rollout shown (of one read by windows: the file's count, not `steps.length`); 0 before it is loaded. */
  get stepCount(): number {
    const r = this.rollout;
    return r ? stepCount(r) : 0;
  }

  /**
   * Step `index` of rollout `rolloutIndex` (default: the one shown): from memory, or read from
   * the file for a rollout read by windows; null when there is no such step.
   * @throws RolloutLoadError (located) when the file's step does not conform or the file changed
   */
  async stepAt(index: number, rolloutIndex = this.rolloutIndex): Promise<Step | null> {
    const source = this.source;
    if (source instanceof SteppedRolloutSource) return rolloutIndex === 0 ? source.step(index) : null;
    return source?.file.rollouts[rolloutIndex]?.steps[index] ?? null;
  }

  /** The selected step (read from the file for a rollout read by windows), or null. @throws as stepAt */
  async selectedStepRead(): Promise<Step | null> {
    return this.selectedStep === null ? null : this.stepAt(this.selectedStep);
  }

  /** A label session just opened: for a rollout read by windows, the steps its journal labels are read (for staleness). */
  async prepareLabels(session: LabelSession): Promise<void> {
    const source = this.source;
    if (!(source instanceof SteppedRolloutSource)) return;
    const r = source.labelRollout;
    const labelled = session.message(0, r.id, null).labels.flatMap((l) => (l.stepIndex === null ? [] : [l.stepIndex]));
    if (await source.keepForLabels(labelled)) session.setRollouts([r]);
  }

  /** The rollouts the label session sees: for a rollout read by windows, its label view (only the labelled steps in memory). */
  private labelRollouts(source: RolloutSource): Rollout[] {
    return source instanceof SteppedRolloutSource ? [source.labelRollout] : source.file.rollouts;
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  private config(): ViewConfig {
    return { collapseOutputLines: readSettings(this.uri).timeline.collapseOutputLines };
  }

  private post(msg: HostMessage): void {
    if (!this.disposed) this.session.post(msg);
  }

  /** The file changed on disk (VS Code's watcher): a followed file is read on; another one read again, throttled. */
  private fileChanged(): void {
    if (this.follow) this.follow.poke();
    else this.reloads.schedule();
  }

  /** Stops following the file (before it is read again, or when the panel closes). */
  private stopFollow(): void {
    this.follow?.close();
    this.follow = null;
  }

  /** (Re)reads the file. A newer load supersedes an older one still in flight. */
  async load(): Promise<void> {
    const load = this.session.beginLoad();
    this.reloads.cancel();
    this.stopFollow();
    this.post({ type: 'loading', file: this.uri.fsPath });
    let source: RolloutSource | null = null;
    let error: LoadErrorMessage | null = null;
    const started = Date.now();
    if (this.uri.scheme !== 'file') {
      error = errorToMessage(this.uri.toString(), new Error(`Only files on disk can be opened (this one has the scheme "${this.uri.scheme}").`));
    } else {
      // A session format with an incremental reader: shown from its first part, then followed.
      let follower: JsonlFollower | null = null;
      try {
        follower = await JsonlFollower.open(this.uri.fsPath);
      } catch (e) {
        this.owner.output.warn(`timeline: cannot follow ${path.basename(this.uri.fsPath)}: ${String(e)}; reading it whole`);
      }
      if (!this.session.isCurrent(load) || this.disposed) return;
      if (follower && follower.loaded.rollouts.length > 0) {
        this.startFollow(follower);
        return;
      }
      ({ source, error } = await readTimelineSource(this.uri.fsPath, { files: this.owner.files, show: this.rolloutIndex, supersede: this }));
    }
    if (!this.session.isCurrent(load) || this.disposed) return;
    this.reloads.loaded(started);
    this.source = source;
    this.error = error;
    this.live = source && this.uri.scheme === 'file' ? { mode: 'reload', state: 'live', bytes: 0, size: 0 } : null;
    if (source) this.sourceOpened(source);
    this.sendCurrent();
  }

  /** A source was opened (read whole, through its index, or followed): keep the selection inside it, open its labels, show a pending link's target. */
  private sourceOpened(source: RolloutSource): void {
    const rollouts = source.file.rollouts;
    this.session.clamp(source.count, (i) => stepCount(rollouts[i]));
    this.labelState.rolloutsRead(this.labelRollouts(source));
    const link = this.pendingLink;
    this.pendingLink = null;
    const t = link ? this.linkTarget(source, link) : null;
    if (t) this.session.show(t.rollout, t.step);
  }

  // ------------------------------------------------------------ live follow

  /** Shows what `f` read of the file so far and follows it from there. */
  private startFollow(f: JsonlFollower): void {
    this.source = new LoadedSource(f.loaded);
    this.error = null;
    this.sourceOpened(this.source);
    const follow = (this.follow = new LiveFollow(f, this.uri.fsPath, this.owner.liveFiles, this, {
      changed: (changes, live) => {
        if (this.follow !== follow || this.disposed) return;
        this.live = live;
        this.postChanges(follow, changes);
      },
      stateChanged: (live) => {
        if (this.follow !== follow || this.disposed) return;
        this.live = live;
        this.post({ type: 'live', live });
      },
      reset: (reason) => {
        if (this.follow !== follow || this.disposed) return;
        this.owner.output.info(`timeline: ${path.basename(this.uri.fsPath)}: ${reason}; reading it again`);
        void this.load();
      },
    }));
    this.live = follow.info;
    this.sendCurrent();
    this.owner.output.info(`timeline: following ${path.basename(this.uri.fsPath)} (${f.loader.id}${f.caughtUp ? '' : `, ${f.bytesRead} of ${f.fileSize} bytes read, the rest in slices`})`);
  }

  /** Tells labels, scores, the Rollouts view and the webview what the reads since the last post changed. */
  private postChanges(follow: LiveFollow, changes: ReadonlyMap<number, number>): void {
    const source = this.source;
    const loaded = source?.file;
    if (!source || !loaded || loaded !== follow.follower.loaded) return;
    this.labelState.update(loaded.rollouts);
    const byId = new Map<string, number>();
    for (const [i, from] of changes) if (loaded.rollouts[i]) byId.set(loaded.rollouts[i].id, from);
    for (const feature of this.owner.features) feature.rolloutsChanged?.(this, loaded.rollouts, byId);
    follow.publish();
    this.session.clamp(source.count, (i) => loaded.rollouts[i].steps.length);
    const r = this.rollout;
    if (!r || !this.session.isReady) return; // a webview shown again gets the whole rollout (sendCurrent)
    const from = Math.min(changes.get(this.rolloutIndex) ?? r.steps.length, this.sentSteps, r.steps.length);
    this.post(rolloutUpdateMessage(source, this.rolloutIndex, from, this.slices.update(r, from), this.live ?? follow.info));
    this.sentSteps = r.steps.length;
  }

  // ------------------------------------------------------------ labels

  /** Sets the user's label (value and/or note) of a step of the rollout shown, or its verdict (`stepIndex` null). */
  async setLabel(stepIndex: number | null, change: { value?: 1 | 0 | -1 | null; note?: string | null }, seq?: number): Promise<void> {
    const source = this.source;
    // A rollout read by windows: the step is read first, so the label store can bound and hash it.
    if (stepIndex !== null && source instanceof SteppedRolloutSource && (await source.keepForLabels([stepIndex]))) this.labelState.update([source.labelRollout]);
    return this.labelState.setLabel(stepIndex, change, seq);
  }

  /** Marks step `stepIndex` of the rollout shown as its first error. */
  markFirstError(stepIndex: number, seq?: number): Promise<void> {
    const n = this.source instanceof SteppedRolloutSource ? this.source.stepped.count : null;
    // It labels every later agent step: up to the whole file's steps, read and written at once.
    if (n !== null) return this.labelState.refuse(byWindowsNotice('Mark First Error', n, 'it labels every later agent step (label the steps one by one)'), seq);
    return this.labelState.markFirstError(stepIndex, seq);
  }

  /** Undoes the user's last label change of the file. */
  undoLabel(seq?: number): Promise<void> {
    return this.labelState.undo(seq);
  }

  /** Redoes the last label change undone. */
  redoLabel(seq?: number): Promise<void> {
    return this.labelState.redo(seq);
  }

  /** The user's current verdict on the rollout shown (for the verdict picker). */
  get verdict(): 1 | 0 | -1 | null {
    return this.labelState.verdict;
  }

  /** A labelling command: the webview does what its key does. False when no webview can take it. */
  labelAction(action: LabelAction): boolean {
    if (!this.session.isReady || !this.source) return false;
    this.post({ type: 'runLabelAction', action });
    return true;
  }

  /** The Toggle Follow command: the webview turns Follow on / off (`on` undefined: the other way). False when no webview can take it. */
  followAction(on?: boolean): boolean {
    if (!this.session.isReady || !this.source) return false;
    this.post({ type: 'toggleFollow', ...(on !== undefined ? { on } : {}) });
    return true;
  }

  /** The label session of this file, once open. */
  get labels(): LabelSession | null {
    return this.labelState.current;
  }

  /** The path of this file's journal. */
  get journalPath(): string {
    return this.labelState.journalPath;
  }

  get loadedFile(): LoadedFile | null {
    return this.source?.file ?? null;
  }

  /** Posts whatever is loaded (the rollout or the error) to a ready webview. */
  private sendCurrent(): void {
    if (!this.session.isReady) return;
    if (this.error) {
      this.post(this.error);
      return;
    }
    const source = this.source;
    if (!source) return;
    const i = this.rolloutIndex;
    if (!source.readNow(i)) {
      // A rollout of an indexed dump is read when it is shown.
      void source.rollout(i).then(
        () => {
          if (this.source !== source) return;
          this.labelState.update(source.file.rollouts);
          this.sendCurrent();
        },
        (e) => this.source === source && this.post(errorToMessage(this.uri.fsPath, e)),
      );
      return;
    }
    const live = this.live ? (this.follow ? this.follow.info : this.live) : null;
    const reveal = this.session.takeReveal();
    if (source instanceof SteppedRolloutSource) {
      // Paged, its first chunk read from the file.
      void source.message(reveal, this.config(), live).then(
        (msg) => {
          if (this.source !== source || this.disposed) return;
          this.post(msg);
          this.castFeed.expect(msg.rollout);
          this.shown(i, reveal, msg.sliced?.paged?.count ?? 0);
        },
        (e) => this.source === source && this.post(errorToMessage(this.uri.fsPath, e)),
      );
      return;
    }
    const msg = rolloutMessage(source, i, reveal, this.config(), { slices: this.slices, live });
    this.post(msg);
    this.castFeed.expect(msg.rollout);
    // A paged message carries no steps: the webview has placeholders for all of them.
    this.shown(i, reveal, msg.sliced?.paged?.count ?? msg.rollout.steps.length);
  }

  /** The rollout message of rollout `i` (revealing `reveal`, `sent` steps) was posted: the highlight, labels and features follow it. */
  private shown(i: number, reveal: number | null, sent: number): void {
    const hl = this.pendingHighlight;
    this.pendingHighlight = null;
    if (hl && hl.step === reveal) this.post({ type: 'highlight', rolloutIndex: i, index: hl.step, query: hl.query });
    this.sentSteps = sent;
    this.labelState.send();
    for (const feature of this.owner.features) feature.onShown?.(this);
  }

  private async onMessage(m: WebviewMessage): Promise<void> {
    switch (m.type) {
      case 'ready': {
        // A re-created webview (it was hidden) brings back what it had shown, unless a command asked for something else.
        this.session.webviewReady(m.state);
        const source = this.source;
        if (source) this.session.clamp(source.count, (i) => stepCount(source.file.rollouts[i]));
        this.sendCurrent();
        break;
      }
      case 'stepSelected':
        this.session.stepSelected(m.rolloutIndex, m.stepIndex);
        break;
      case 'rolloutSelected':
        if (this.source && m.rolloutIndex < this.source.count) {
          this.session.rolloutPicked(m.rolloutIndex);
          this.sendCurrent();
        }
        break;
      case 'showInSource':
        await this.showInSource(m.rolloutIndex, m.stepIndex);
        break;
      case 'openLocation':
        await openLocation(m.file, m.line, m.column);
        break;
      case 'openLink':
        await this.openLink(m.rolloutIndex, m.stepIndex, m.link);
        break;
      case 'openUrl':
        // A hyperlink of a recording (OSC 8): VS Code asks before opening a domain the user has not trusted.
        await vscode.env.openExternal(vscode.Uri.parse(m.url, true));
        break;
      case 'reload':
        await this.load();
        break;
      case 'resend':
        this.sendCurrent();
        break;
      case 'loadCast':
        await this.sendCast(m.rolloutIndex);
        break;
      case 'castWindow':
        await this.castFeed.answer(m);
        break;
      case 'setLabel':
        if (m.rolloutIndex !== this.rolloutIndex) break;
        await this.setLabel(m.stepIndex, { ...(m.value !== undefined ? { value: m.value } : {}), ...(m.note !== undefined ? { note: m.note } : {}) }, m.seq);
        break;
      case 'markFirstError':
        if (m.rolloutIndex !== this.rolloutIndex) break;
        await this.markFirstError(m.stepIndex, m.seq);
        break;
      case 'undoLabel':
        await this.undoLabel(m.seq);
        break;
      case 'redoLabel':
        await this.redoLabel(m.seq);
        break;
      case 'replay':
      case 'openStepFile':
      case 'branch':
        for (const feature of this.owner.features) await feature.onMessage?.(this, m);
        break;
      case 'loadSteps': {
        // The player's first window goes out before the step texts (castFeed.ts).
        await this.castFeed.gate();
        const source = this.source;
        if (source instanceof SteppedRolloutSource) {
          if (m.rolloutIndex !== this.rolloutIndex) break;
          const answer = await source.stepped.answer(m);
          if (answer && this.source === source) this.post(answer);
          break;
        }
        const answer = this.slices.answer(m, this.rolloutIndex, this.rollout);
        if (answer) this.post(answer);
        break;
      }
    }
  }

  /** Opens the terminal recording of rollout `rolloutIndex` (streamed, castFeed.ts) and posts its first window (or why it cannot be shown). */
  private async sendCast(rolloutIndex: number): Promise<void> {
    const r = this.source?.file.rollouts[rolloutIndex];
    if (r) await this.castFeed.load(rolloutIndex, r);
  }

  /**
   * Follows a link of the rollout shown (its own links when `stepIndex` is null, else the step's):
   * the target is looked up in the rollout this panel holds, never taken from the webview.
   */
  private async openLink(rolloutIndex: number, stepIndex: number | null, linkIndex: number): Promise<void> {
    const r = this.source?.file.rollouts[rolloutIndex];
    const link = (stepIndex === null ? r?.links : (await this.stepAt(stepIndex, rolloutIndex))?.links)?.[linkIndex];
    if (!link) return;
    if (link.missing) {
      void vscode.window.showWarningMessage(`Trajectory Inspector: ${link.label} cannot be opened: ${link.missing}`);
      return;
    }
    await this.owner.openLink(link, link.path === null || path.resolve(link.path) === this.uri.fsPath ? this : null);
  }

  /** Selects a link's target once this panel's file is loaded (a link opened from another timeline). */
  private pendingLink: Pick<RolloutLink, 'rolloutId' | 'stepIndex' | 'callId'> | null = null;
  /** A search's matches to mark in the step a search result opens, posted after the message that shows it. */
  private pendingHighlight: { step: number; query: HighlightQuery } | null = null;

  /**
   * Where `link` points in `source` (core findLinkTarget). A rollout read by windows is bounded by
   * its step count; a link by call id alone cannot be looked up without reading every step, so it
   * goes to the rollout and says so.
   */
  private linkTarget(source: RolloutSource, link: Pick<RolloutLink, 'rolloutId' | 'stepIndex' | 'callId'>): ReturnType<typeof findLinkTarget> {
    if (!(source instanceof SteppedRolloutSource)) return findLinkTarget(source.file.rollouts, link);
    const r = source.file.rollouts[0];
    if (link.rolloutId !== null && link.rolloutId !== r.id) return null;
    if (typeof link.stepIndex === 'number' && Number.isInteger(link.stepIndex) && link.stepIndex >= 0 && link.stepIndex < source.stepped.count) return { rollout: 0, step: link.stepIndex };
    if (link.callId) void vscode.window.showInformationMessage(`Trajectory Inspector: ${byWindowsNotice('Finding the step of a tool call', source.stepped.count, `call ${link.callId} would be looked for in every step: the rollout is shown from its start`)}`);
    return { rollout: 0, step: null };
  }

  /** Shows the rollout and step a link points at in this file (now, or when the file has loaded). */
  showLinkTarget(link: Pick<RolloutLink, 'rolloutId' | 'stepIndex' | 'callId'>): void {
    if (!this.source) {
      this.pendingLink = link;
      return;
    }
    const t = this.linkTarget(this.source, link);
    if (t) this.showRollout(t.rollout, t.step);
    else void vscode.window.showWarningMessage(`Trajectory Inspector: ${path.basename(this.uri.fsPath)} holds no rollout ${link.rolloutId ?? ''}.`);
  }

  /** Shows another rollout of the file (now, or once the file is loaded), optionally revealing a step (and marking a search's matches in it). */
  showRollout(rolloutIndex: number, step: number | null, highlight: HighlightQuery | null = null): void {
    this.pendingHighlight = highlight && step !== null ? { step, query: highlight } : null;
    this.session.show(rolloutIndex, step);
    if (this.source && rolloutIndex < this.source.count) this.sendCurrent();
  }

  /** Reveals a step in the webview (Go to Step), showing the timeline if it is hidden. */
  revealStep(index: number): void {
    if (this.source && this.session.reveal(index)) return;
    // Not shown yet: the step goes with the rollout once the webview is ready.
    this.session.show(this.rolloutIndex, index);
    if (!this.panel.visible) this.panel.reveal(undefined, false);
  }

  /** Moves the selection (Next / Previous Step). */
  moveSelection(delta: number): void {
    if (this.session.isReady) {
      this.post({ type: 'moveSelection', delta });
      return;
    }
    const count = this.stepCount;
    if (count) this.revealStep(Math.max(0, Math.min(count - 1, (this.selectedStep ?? -1) + delta)));
  }

  /** Opens the raw file at a step's range; with no step, at the rollout's own place in the file. */
  async showInSource(rolloutIndex = this.rolloutIndex, stepIndex: number | null = this.selectedStep): Promise<void> {
    const r = this.source?.file.rollouts[rolloutIndex];
    if (!r) {
      await revealInSource(this.uri.fsPath, null, this.error?.issues[0]?.line ?? null);
      return;
    }
    const step = stepIndex !== null ? await this.stepAt(stepIndex, rolloutIndex) : null;
    if (step) await revealInSource(step.file ?? r.source.path, step.range, null);
    else await revealInSource(r.source.path, r.source.range, r.source.line);
  }

  /** Posts a message to the webview (replay state, scores); dropped when the webview is not ready. */
  postMessage(msg: HostMessage): void {
    this.post(msg);
  }

  /** Sends changed settings. */
  configChanged(): void {
    if (this.source) this.post({ type: 'config', config: this.config() });
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.castFeed.dispose();
    this.reloads.cancel();
    this.stopFollow();
    this.session.cancelLoads();
    this.source = null;
    this.labelState.dispose();
    for (const feature of this.owner.features) feature.onClosed?.(this);
    while (this.disposables.length) this.disposables.pop()?.dispose();
    this.owner.forget(this);
  }
}

