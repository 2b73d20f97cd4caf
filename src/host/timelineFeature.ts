/**
 * How the timeline reaches the features beside it (step scores, replay): each is handed to
 * TimelineEditorProvider in a list when it is built, and hears of every timeline through these
 * calls. A feature sees a timeline as a TimelineView, never the panel class, so no feature module
 * imports timeline/timelinePanel.ts for it.
 */
import type * as vscode from 'vscode';
import type { LoadedFile } from '../core/load';
import type { Rollout } from '../core/model';
import type { HostMessage, WebviewMessage } from '../shared/protocol';

/** What a feature sees of one open timeline. */
export interface TimelineView {
  readonly uri: vscode.Uri;
  /** Rollout shown (index in the file). */
  readonly rolloutIndex: number;
  /** The rollout shown, or null before the file is loaded (of a large dump: a placeholder until read). */
  readonly rollout: Rollout | null;
  /** The file as loaded (of a large dump: the rollouts read and placeholders for the rest), or null. */
  readonly loadedFile: LoadedFile | null;
  readonly isDisposed: boolean;
  /** Posts a message to the webview; dropped while the webview is not ready. */
  postMessage(msg: HostMessage): void;
}

/** The timelines as a feature's commands find them. */
export interface TimelineLookup {
  /** The timeline the commands act on: the focused one, else the one used last; null when none is open. */
  readonly activePanel: TimelineView | null;
}

/** A feature of the timeline; every call is optional. */
export interface TimelineFeature {
  /** The timeline posted its rollout to the webview (shown, shown again after it was hidden, or another rollout of the file). */
  onShown?(view: TimelineView): void;
  /** A message of the webview the timeline leaves to its features (`replay`, `branch`, `openStepFile`). */
  onMessage?(view: TimelineView, m: WebviewMessage): Promise<void> | void;
  /** A followed file's rollouts changed: by rollout id, the first step that changed. */
  rolloutsChanged?(view: TimelineView, rollouts: Rollout[], changedFrom: ReadonlyMap<string, number>): void;
  /** The timeline closed. */
  onClosed?(view: TimelineView): void;
}
