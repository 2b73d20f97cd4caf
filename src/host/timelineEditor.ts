/**
 * The timeline custom editor (`trajectoryInspector.timeline`): registers the editor, makes a
 * TimelinePanel (timeline/timelinePanel.ts) for each file opened in it, and keeps track of the open
 * panels for the commands (the active one, reusing a file's open panel, opening a link's target).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RolloutLink } from '../core/model';
import type { HighlightQuery } from '../shared/highlight';
import type { LabelService } from './labels';
import type { LiveFiles } from './liveFiles';
import type { RolloutFiles } from './rolloutFiles';
import { TimelinePanel, type TimelinePanelOwner } from './timeline/timelinePanel';
import type { TimelineFeature } from './timelineFeature';

/** The custom editor's view type (package.json `customEditors`; `vscode.openWith` opens a file in it). */
export const TIMELINE_VIEW_TYPE = 'trajectoryInspector.timeline';
/** Context key: true while at least one timeline is open (enables the step commands). */
const HAS_TIMELINE_KEY = 'trajectoryInspector.hasTimeline';

/** The document of a timeline: only its URI (the panel reads the file itself). */
class TimelineDocument implements vscode.CustomDocument {
  constructor(readonly uri: vscode.Uri) {}
  dispose(): void {}
}

/** What the timeline editor is built with beside the extension's URI, log and labels. */
export interface TimelineOptions {
  /** How the timelines read their files: the load workers and the dump indexes of the extension. */
  files: RolloutFiles;
  /** The features every timeline tells what it shows (step scores, replay), in this order. */
  features: readonly TimelineFeature[];
  /** The followed-files registry the timelines publish what they follow to (the Rollouts view reads it). */
  liveFiles: LiveFiles;
}

/** Registers the custom editor and tracks open timelines for the commands. */
export class TimelineEditorProvider implements vscode.CustomReadonlyEditorProvider<TimelineDocument>, vscode.Disposable, TimelinePanelOwner {
  private readonly panels = new Set<TimelinePanel>();
  private active: TimelinePanel | null = null;
  /** Rollout to show when a file's editor opens (multi-rollout files opened from the tree). */
  private readonly pendingRollout = new Map<string, { rollout: number; step: number | null; highlight?: HighlightQuery | null }>();
  /** Link targets to select when a file's editor opens (a link followed from another timeline). */
  private readonly pendingLinks = new Map<string, RolloutLink>();
  private readonly disposables: vscode.Disposable[] = [];
  readonly files: RolloutFiles;
  readonly features: readonly TimelineFeature[];
  readonly liveFiles: LiveFiles;

  constructor(
    private readonly extensionUri: vscode.Uri,
    readonly output: vscode.LogOutputChannel,
    readonly labels: LabelService,
    options: TimelineOptions,
  ) {
    this.files = options.files;
    this.features = [...options.features];
    this.liveFiles = options.liveFiles;
    this.disposables.push(
      vscode.window.registerCustomEditorProvider(TIMELINE_VIEW_TYPE, this, {
        supportsMultipleEditorsPerDocument: true,
        webviewOptions: { retainContextWhenHidden: false, enableFindWidget: true },
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('trajectoryInspector.timeline')) this.panels.forEach((p) => p.configChanged());
      }),
    );
  }

  openCustomDocument(uri: vscode.Uri): TimelineDocument {
    return new TimelineDocument(uri);
  }

  resolveCustomEditor(document: TimelineDocument, panel: vscode.WebviewPanel): void {
    const pending = this.pendingRollout.get(document.uri.toString()) ?? null;
    this.pendingRollout.delete(document.uri.toString());
    const p = new TimelinePanel(document.uri, panel, this.extensionUri, this, pending?.rollout ?? null);
    // The webview's own saved state does not override the rollout and step asked for.
    if (pending) p.showRollout(pending.rollout, pending.step, pending.highlight ?? null);
    const link = this.pendingLinks.get(document.uri.toString());
    if (link) {
      this.pendingLinks.delete(document.uri.toString());
      p.showLinkTarget(link);
    }
    this.panels.add(p);
    this.setActive(p);
    void vscode.commands.executeCommand('setContext', HAS_TIMELINE_KEY, true);
  }

  setActive(p: TimelinePanel): void {
    this.active = p;
  }

  forget(p: TimelinePanel): void {
    this.panels.delete(p);
    if (this.active === p) this.active = [...this.panels].find((x) => x.panel.active) ?? [...this.panels].pop() ?? null;
    if (this.panels.size === 0) void vscode.commands.executeCommand('setContext', HAS_TIMELINE_KEY, false);
  }

  /** The timeline the step commands act on: the focused one, else the one used last. */
  get activePanel(): TimelinePanel | null {
    for (const p of this.panels) if (p.panel.active) return p;
    return this.active && !this.active.isDisposed ? this.active : null;
  }

  /**
   * Opens `uri` in the timeline showing rollout `rollout` (and selecting `step`), in `column` when
   * given (compare and search open beside themselves). Reuses an open timeline of the file when there is one.
   * `highlight`: the search whose matches the step marks (a search result opened it).
   */
  async openRollout(uri: vscode.Uri, rollout: number, step: number | null = null, column?: vscode.ViewColumn, highlight: HighlightQuery | null = null): Promise<void> {
    const open = [...this.panels].find((p) => p.uri.toString() === uri.toString());
    if (open) {
      open.panel.reveal();
      open.showRollout(rollout, step, highlight);
      return;
    }
    this.pendingRollout.set(uri.toString(), { rollout, step, highlight });
    try {
      await vscode.commands.executeCommand('vscode.openWith', uri, TIMELINE_VIEW_TYPE, ...(column !== undefined ? [column] : []));
    } finally {
      // If the editor did not open (or resolved already), do not leak the request to a later open.
      setTimeout(() => this.pendingRollout.delete(uri.toString()), 10_000);
    }
  }

  /**
   * Opens a link's target: in `here` when the link points into that panel's own file, else in the
   * timeline of its file (an open one, or a new one beside), selecting the linked rollout and step.
   */
  async openLink(link: RolloutLink, here: TimelinePanel | null): Promise<void> {
    if (here) {
      here.showLinkTarget(link);
      return;
    }
    const uri = vscode.Uri.file(path.resolve(link.path ?? ''));
    const open = [...this.panels].find((p) => p.uri.toString() === uri.toString());
    if (open) {
      open.panel.reveal();
      open.showLinkTarget(link);
      return;
    }
    this.pendingLinks.set(uri.toString(), link);
    try {
      await vscode.commands.executeCommand('vscode.openWith', uri, TIMELINE_VIEW_TYPE, vscode.ViewColumn.Beside);
    } finally {
      setTimeout(() => this.pendingLinks.delete(uri.toString()), 10_000);
    }
  }

  /** Reloads every open timeline. */
  reloadAll(): void {
    this.panels.forEach((p) => void p.load());
  }

  dispose(): void {
    this.panels.forEach((p) => p.dispose());
    while (this.disposables.length) this.disposables.pop()?.dispose();
  }
}
