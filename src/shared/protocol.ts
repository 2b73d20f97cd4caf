/**
 * Messages between the timeline webview and the extension host. Both sides import this module;
 * it imports neither `vscode` nor the DOM (only types from the core model, which are erased). The
 * messages of terminal recordings, replay and step scores, with their validators, are in
 * castProtocol.ts, replayProtocol.ts, branchProtocol.ts and scoresProtocol.ts.
 *
 * Flow: the webview posts `ready` once its script runs (again after every re-creation, since the
 * panel does not retain its context when hidden); only then does the host post the file
 * (`rollout` or `loadError`). A rollout with a terminal recording is then asked for it (`loadCast`
 * → `cast`), so a large recording never delays the timeline. The rollout's labels follow it
 * (`labels`), and again after every change; the webview asks for changes (`setLabel`,
 * `markFirstError`, `undoLabel`, `redoLabel`) and shows what the host answers. A large rollout comes
 * as step heads (`rollout.sliced`); the webview asks for the full steps it shows (`loadSteps` → `steps`).
 * A file that grows (a session still being written) is followed (`rollout.live`): the host posts
 * `rolloutUpdate` with the steps that are new or changed, and `live` when only its state changes.
 *
 * The webview owns the selection: it tells the host every step the user selects (`stepSelected`),
 * and the host asks it to select one (`revealStep`, or `revealStep` of a `rollout` message).
 *
 * Names: a message that carries data is named by what it carries (`rollout`, `labels`, `steps`); a
 * request is an imperative verb (`revealStep`, `moveSelection`, `runLabelAction`, `toggleFollow`
 * host → webview; `loadSteps`, `setLabel`, `showInSource` … webview → host); an event the
 * webview reports is in the past tense (`stepSelected`, `rolloutSelected`; `ready`).
 * Every message carries a `type` discriminator. Each side validates what it receives with the
 * guards below and ignores anything else.
 */
import type { CurrentLabel, LabelValue } from '../core/labels/api';
import type { FormatId, Rollout, Step } from '../core/model';
import type { HighlightQuery } from './highlight';
import { isBranchControlMessage, type BranchControlMessage } from './branchProtocol';
import { isCastMessage, isCastProgressMessage, isCastWindowMessage, isCastWindowRequest, type CastMessage, type CastProgressMessage, type CastWindowMessage, type CastWindowRequest } from './castProtocol';
import { isIndex, isObj, isPosOrNull } from './guards';
import { isReplayControlMessage, isReplayStateMessage, type ReplayControlMessage, type ReplayStateMessage } from './replayProtocol';
import { isScoresMessage, type ScoresMessage } from './scoresProtocol';

/** One line of a rollout picker: enough to choose a rollout without sending all of them. */
export interface RolloutSummary {
  /** Position of the rollout in the file. */
  index: number;
  id: string;
  taskId: string | null;
  steps: number;
  reward: number | null;
  resolved: boolean | null;
  /** Exit status as recorded (core `Outcome.status`: SWE-agent `submitted`, …), or null/absent (a lazily indexed dump row until it is read); shown through `outcomeText` (src/shared/outcome.ts). */
  status?: string | null;
  /** 1-based line of the rollout in a JSONL file, when known. */
  line: number | null;
}

/** The rollout picker lists every rollout of a file up to this many; beyond, the ones around the current (a dump of thousands). */
export const PICKER_MAX = 1000;
/** Rollouts either side of the current one the picker lists for a file of more than PICKER_MAX. */
export const PICKER_AROUND = 250;

/**
 * Positions of the rollouts the picker offers for a file of `count` rollouts showing `current`:
 * all (`[0, 1, …]`) up to PICKER_MAX, else the first, those within PICKER_AROUND of `current`
 * and the last, ascending.
 */
export function pickerPositions(count: number, current: number): number[] {
  if (count <= PICKER_MAX) return Array.from({ length: count }, (_, i) => i);
  const from = Math.max(0, current - PICKER_AROUND);
  const to = Math.min(count, current + PICKER_AROUND + 1);
  const out: number[] = [];
  if (from > 0) out.push(0);
  for (let i = from; i < to; i++) out.push(i);
  if (to < count) out.push(count - 1);
  return out;
}

/** Settings the webview renders with. */
export interface ViewConfig {
  /** Observations longer than this many lines are collapsed until "show all" (0 = never). */
  collapseOutputLines: number;
}

/** A located problem in the file, as the core reports it plus its one-line text (`formatIssue`). */
export interface IssueView {
  file: string;
  line: number | null;
  column: number | null;
  pointer: string | null;
  expected: string;
  found: string;
  /** `file:line:col at /pointer: expected X, found Y`, formatted by the host with core's formatIssue. */
  formatted: string;
}

/** UI intent the webview persists with `setState` and hands back in `ready`. */
export interface PersistedState {
  rolloutIndex: number;
  /** Rollout id the step selection belongs to (selection is dropped when it does not match). */
  rolloutId: string | null;
  selectedStep: number | null;
  expanded: number[];
  /** Terminal player: terminal hidden (controls only). Absent = shown. */
  playerCollapsed?: boolean;
  /** Terminal player: playback speed (one of PLAYER_SPEEDS). Absent = 1. */
  playerSpeed?: number;
  /** Terminal player: share of the window height the terminal may take (0.15–0.85). Absent = default. */
  playerHeight?: number;
  /** Terminal player: `width` fits the width and scrolls, `screen` shows the whole terminal. Absent = width. */
  playerFit?: 'screen' | 'width';
  /** Timeline scroll position (CSS px from the top) of the rollout `rolloutId`. Absent = reveal the selected step. */
  scrollY?: number;
  /**
   * A sliced rollout is restored by the step at the top of the view instead, since its
   * cards change height as their content arrives: that step's index and its card's top (CSS px from
   * the viewport's top). Absent = use `scrollY`.
   */
  scrollStep?: number;
  scrollStepTop?: number;
  /** Follow (live follow) was on for the rollout `rolloutId`: the newest step is kept in view. Absent = off. */
  follow?: boolean;
}

/** Playback speeds the terminal player offers. */
export const PLAYER_SPEEDS = [0.5, 1, 2, 4, 8] as const;

// ---------------------------------------------------------------- host → webview

/** The file loaded: the summaries of all its rollouts and one rollout in full. */
export interface RolloutMessage {
  type: 'rollout';
  file: {
    path: string;
    format: FormatId;
    /** The format's human name (its loader's `label`, core formats/registry.ts `formatLabel`), as the header shows it. */
    formatLabel: string;
    schemaVersion: string | null;
    /** What the file goes by (Harbor trial folder, task id or file name), as in the Rollouts view. */
    label: string;
  };
  /**
   * The rollouts the picker offers: all of them, or for a file of more than PICKER_MAX rollouts only
   * the first, the last and those around the one shown (`pickerWindow`), so a dump of 100,000
   * rollouts does not send 100,000 summaries with every rollout shown.
   */
  summaries: RolloutSummary[];
  /** Rollouts in the file; absent: `summaries.length` (the summaries are all there). */
  rolloutCount?: number;
  rolloutIndex: number;
  rollout: Rollout;
  /** Step the webview selects and scrolls to after rendering (from Go to Step, the tree, a search hit, a link); null keeps the webview's own. */
  revealStep: number | null;
  config: ViewConfig;
  /**
   * Set when the rollout is large: `rollout.steps` are then step HEADS (the Step shape,
   * long texts cut to a preview) and the webview asks for the full steps it shows (`loadSteps` →
   * `steps`). Absent: the steps are whole.
   */
  sliced?: SlicedInfo;
  /**
   * Located issues of the file that loaded anyway (warnings: a missing linked file, a record shown
   * raw; errors: rows or lines left out), at most FILE_ISSUES_MAX; `fileIssueCount` the total. Absent: none.
   */
  fileIssues?: (IssueView & { severity: 'error' | 'warning' })[];
  fileIssueCount?: number;
  /** How the timeline keeps up with the file as it changes (live follow); absent: it does not (not a file on disk). */
  live?: LiveInfo;
}

/**
 * How a timeline keeps up with its file (live follow; docs/live-follow.md).
 * - `mode`: `stream` = read from the last offset as the file grows (its format has an incremental
 *   reader, `FormatLoader.stream`); `reload` = read again from the start after it changed, at most
 *   every few seconds (other formats).
 * - `state`: `reading` = a large file opened progressively is still being read (`bytes` of `size`);
 *   `live` = up to date and watched; `deleted` = the file is gone (what was read stays shown).
 */
export interface LiveInfo {
  mode: 'stream' | 'reload';
  state: 'reading' | 'live' | 'deleted';
  /** Bytes of the file read / its size at the last read. */
  bytes: number;
  size: number;
}

/**
 * The rollout shown grew or its last steps changed (live follow): steps before `from` are
 * unchanged, the rollout's steps are now those plus `steps` (heads when the rollout is sliced), and
 * its other fields are `rollout`'s. Sent instead of a new `rollout` message so that nothing is
 * rendered again but what changed (selection, expansion, scroll and labels stay).
 */
export interface RolloutUpdateMessage {
  type: 'rolloutUpdate';
  rolloutIndex: number;
  /** Rollout the update belongs to (one for another rollout is dropped). */
  rolloutId: string;
  from: number;
  steps: Step[];
  /** The rollout's fields but its steps, as they are now (outcome, metadata, task). */
  rollout: Omit<Rollout, 'steps'>;
  /** The picker's summaries as they are now (step counts, new rollouts). */
  summaries: RolloutSummary[];
  rolloutCount?: number;
  /**
   * Set when the rollout is sliced (now or from before): the rollout's sizes and the cuts of the
   * steps from `from` on (steps before `from` keep theirs). A rollout that grew past the slicing size
   * while followed is sliced from this update on; its earlier steps came whole.
   */
  sliced?: Omit<SlicedInfo, 'initial'>;
  live: LiveInfo;
}

/** The state of following the file changed (read to its end, deleted) without a change of steps. */
export interface LiveMessage {
  type: 'live';
  live: LiveInfo;
}

/** The Toggle Follow command: turn Follow on or off (`on` absent: the other way). */
export interface ToggleFollowNotification {
  type: 'toggleFollow';
  on?: boolean;
}

/** At most this many of a file's issues go with a rollout message. */
export const FILE_ISSUES_MAX = 50;

/** A text of a step head cut to its preview: which one, and how long the whole text is. */
export interface CutField {
  /** `message`, `reasoning`, `actions.<i>.command`, `actions.<i>.arguments` (as JSON text) or `observations.<i>.output`. */
  field: string;
  /** Length of the whole text (UTF-16 code units). */
  chars: number;
  /** Lines of the whole text (a final newline ends the last line, it does not start one). */
  lines: number;
}

/** What a sliced `rollout` message left out (src/core/stepHeads.ts builds it). */
export interface SlicedInfo {
  /** Size the whole rollout would have had in the message (UTF-16 code units of its JSON, estimated). */
  fullChars: number;
  /** Size of the rollout as sent (heads; same estimate). */
  headChars: number;
  /** The steps whose head left text out, ascending by index, with what was cut; steps not listed are whole. */
  cuts: { index: number; fields: CutField[] }[];
  /**
   * Full steps sent with the heads, so the first cards show their content without a round trip:
   * steps of the aligned chunk starting at `from` (the chunk of the step to select, else the first),
   * the step to select and its neighbours while they fit a size cap (stepHeads.ts `initialSteps`),
   * ascending by index. Absent: none.
   */
  initial?: { from: number; steps: Step[] };
  /**
   * Set when the rollout has so many steps that even their heads are not sent (src/shared/pagedSteps.ts):
   * `rollout.steps` is then EMPTY on the wire and `cuts` lists nothing; every step below
   * `paged.count` is loaded like a cut step (`loadSteps`), and what the views read of every step
   * (role, reference label, recording time, row height, the header's totals) comes in this compact
   * column. The webview expands it into placeholder steps (`expandPaged`). Absent: heads are sent.
   */
  paged?: PagedSteps;
}

/**
 * The compact per-step column of a paged rollout (SlicedInfo.paged): strings of one character per
 * step, and the sparse fields only for the steps that have them. Built by pagedSteps.ts `pagedColumn`.
 */
export interface PagedSteps {
  /** Steps in the rollout. */
  count: number;
  /** One character per step: `String.fromCharCode(65 + 2 × role + copied)`, role 0 agent, 1 user, 2 system, 3 environment; copied 1 for `copiedContext`. */
  kinds: string;
  /** One character per step: the full card body's estimated height (cardHeight.ts, collapsed) in units of HEIGHT_UNIT px, as `charCode - 48`, at most 0xffff - 48. */
  heights: string;
  /** `[index, castTime]` of the steps with a recording time (seconds), ascending by index. */
  castTimes: [number, number][];
  /** `[index, label]` of the steps with a reference label, ascending by index. */
  refs: [number, NonNullable<Step['referenceLabel']>][];
  /** What the header shows of all steps (pagedSteps.ts `stepTotals`). */
  totals: StepTotals;
  /** The earliest step time (ms since the epoch), the origin of the cards' relative times; null: no step has one. */
  startMs: number | null;
}

/** Sums over a rollout's steps as the timeline header shows them (pagedSteps.ts `stepTotals`). */
export interface StepTotals {
  prompt: number;
  completion: number;
  cost: number;
  hasTokens: boolean;
  hasCost: boolean;
  /** Wall-clock seconds from the first to the last step time, else the sum of the step durations, else null. */
  durationSec: number | null;
}

/**
 * Answer to `loadSteps`: the full steps `from`, `from + 1`, … of the rollout shown (fewer than asked
 * when they would have made the answer too large: the webview asks again for the rest).
 */
export interface StepsMessage {
  type: 'steps';
  rolloutIndex: number;
  /** Rollout the steps belong to (a late answer for another rollout is dropped). */
  rolloutId: string;
  from: number;
  steps: Step[];
  /** `seq` of the request this answers. */
  seq: number;
}

/** The file could not be read: located issues (RolloutLoadError), formats tried (UnknownFormatError) or a bare message. */
export interface LoadErrorMessage {
  type: 'loadError';
  file: string;
  /** One-line title, e.g. "Invalid ATIF rollout" or "No rollout format matches this file". */
  title: string;
  issues: IssueView[];
  declined: { format: string; reason: string }[];
  /** Full error text (always set; the only content for unexpected errors). */
  message: string;
}

/** Select a step and scroll it into view (Go to Step, a step opened from the tree, search or a link). */
export interface RevealStepNotification {
  type: 'revealStep';
  index: number;
  /** Scroll the step into view (default true). */
  reveal?: boolean;
}

/**
 * Mark a search's matches in step `index` of rollout `rolloutIndex` (sent after the message that
 * shows and selects the step, when a search result opened it): the step is expanded and each match
 * marked until the selection moves or Escape.
 */
export interface HighlightNotification {
  type: 'highlight';
  rolloutIndex: number;
  index: number;
  query: HighlightQuery;
}

/** Move the selection by `delta` steps (Next/Previous Step commands). */
export interface MoveSelectionNotification {
  type: 'moveSelection';
  delta: number;
}

/** The file is being (re)loaded. */
export interface LoadingNotification {
  type: 'loading';
  file: string;
}

/** Settings changed. */
export interface ConfigNotification {
  type: 'config';
  config: ViewConfig;
}

/**
 * The labels of the rollout shown, from the label store: sent after the rollout, after
 * every change this window makes, and after another window appended to the journal. Also the answer
 * to `setLabel` / `markFirstError` / undo / redo (a write that failed comes back with `error` set
 * and the labels as they are on disk plus the unsaved ones, see `unsaved`).
 */
export interface LabelsMessage {
  type: 'labels';
  rolloutIndex: number;
  /** Rollout the labels belong to (a late answer for another rollout is dropped). */
  rolloutId: string;
  /** The name this window labels as (setting `trajectoryInspector.labels.annotator`). */
  annotator: string;
  /** Current labels of this rollout, every annotator's: steps, and the verdict (`stepIndex` null). */
  labels: CurrentLabel[];
  /** Label changes of this window that could not be written yet (kept in memory, retried on the next change). */
  unsaved: LabelChangeView[];
  /** Absolute path of the journal file. */
  journal: string;
  /** Why the last write failed; null when the journal is in step with what is shown. */
  error: string | null;
  /** Problems met reading the journal (a torn last line, malformed lines), located. */
  warnings: string[];
  /** `seq` of the last label request of the webview this answers (all before it are handled too); null when none. */
  seq: number | null;
}

/** One label change waiting to be written (`LabelChange` of the store). */
export interface LabelChangeView {
  stepIndex: number | null;
  value?: LabelValue | null;
  firstError?: boolean;
  note?: string | null;
}

/** What a labelling command asks the timeline to do (the same as the key in the webview). */
export type LabelAction = 'good' | 'neutral' | 'bad' | 'clear' | 'firstError' | 'note' | 'commitAndNext' | 'showKeys' | 'verdict';

export const LABEL_ACTIONS: readonly LabelAction[] = ['good', 'neutral', 'bad', 'clear', 'firstError', 'note', 'commitAndNext', 'showKeys', 'verdict'];

/** A labelling command ran (palette, user keybinding): act on the selected step as its key would. */
export interface RunRunLabelActionNotification {
  type: 'runLabelAction';
  action: LabelAction;
}

/** One file a step read or changed, as its card's chip shows it. */
export interface StepFileChip {
  /** Workspace-relative path when the file is in this workspace, else the path as recorded. */
  label: string;
  /** The path as the agent recorded it (the chip's tooltip). */
  recorded: string;
  kind: 'read' | 'edit';
  /** The file lies in an open workspace folder (after `trajectoryInspector.files.pathMap`): the chip opens it. */
  local: boolean;
  /** The record says the edit failed or was rejected (it changed nothing). */
  failed: boolean;
}

/**
 * The files each step of the rollout shown read or changed (core/files/stepFiles.ts), for the
 * cards' file chips; steps touching no file are left out. Sent after the rollout, again when it changes.
 */
export interface StepFilesMessage {
  type: 'stepFiles';
  rolloutId: string;
  steps: { index: number; files: StepFileChip[] }[];
}

export type HostMessage =
  | StepFilesMessage
  | RolloutUpdateMessage
  | LiveMessage
  | ToggleFollowNotification
  | StepsMessage
  | ReplayStateMessage
  | ScoresMessage
  | LabelsMessage
  | RunRunLabelActionNotification
  | CastMessage
  | CastWindowMessage
  | CastProgressMessage
  | RolloutMessage
  | LoadErrorMessage
  | RevealStepNotification
  | HighlightNotification
  | MoveSelectionNotification
  | LoadingNotification
  | ConfigNotification;

// ---------------------------------------------------------------- webview → host

/** The webview script is running; `state` is what it had persisted (null on first open). */
export interface ReadyMessage {
  type: 'ready';
  state: PersistedState | null;
}

/** The user (or a `revealStep`) selected a step: the host keeps the last one for its commands. */
export interface StepSelectedMessage {
  type: 'stepSelected';
  rolloutIndex: number;
  stepIndex: number;
}

/** The user picked another rollout of the file. */
export interface RolloutSelectedMessage {
  type: 'rolloutSelected';
  rolloutIndex: number;
}

/** Open the raw file at the step's range. */
export interface ShowInSourceMessage {
  type: 'showInSource';
  rolloutIndex: number;
  stepIndex: number;
}

/**
 * Open a link of the rollout shown (`Rollout.links` when `stepIndex` is null, else that step's
 * `Step.links`): `link` is its position in the list. The host looks the target up in the rollout it
 * holds (the webview never names a path), opens it in the timeline and selects the linked rollout / step.
 */
export interface OpenLinkMessage {
  type: 'openLink';
  rolloutIndex: number;
  stepIndex: number | null;
  link: number;
}

/**
 * Open a hyperlink of a terminal recording (an OSC 8 link the player shows): the host hands it to
 * `vscode.env.openExternal`, which asks the user first for domains they have not trusted. Only
 * `http:`, `https:` and `mailto:` URLs of at most MAX_OPEN_URL characters are accepted.
 */
export interface OpenUrlMessage {
  type: 'openUrl';
  url: string;
}

/** Longest URL an `openUrl` message may carry. */
export const MAX_OPEN_URL = 4096;

/** True for a URL the host may open for an `openUrl` message (see OpenUrlMessage). */
export function isOpenableUrl(url: string): boolean {
  if (url.length > MAX_OPEN_URL || !/^(?:https?:\/\/|mailto:)/i.test(url)) return false;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'mailto:';
  } catch {
    return false;
  }
}

/** Open a file at a 1-based line/column (links in the load-error view). */
export interface OpenLocationMessage {
  type: 'openLocation';
  file: string;
  line: number | null;
  column: number | null;
}

/** Load the file again (button in the load-error view). */
export interface ReloadMessage {
  type: 'reload';
}

/** Send the rollout shown again whole (the webview's copy lost step with a `rolloutUpdate`). */
export interface ResendMessage {
  type: 'resend';
}

/** Ask for the terminal recording of a rollout that has one (`Rollout.recording`); answered by `cast`. */
export interface LoadCastMessage {
  type: 'loadCast';
  rolloutIndex: number;
}

/**
 * Set the user's label of a step (`stepIndex` null: the rollout verdict). Fields left out are kept;
 * `value` null clears the value, `note` null clears the note. Answered by `labels`.
 */
export interface SetLabelMessage {
  type: 'setLabel';
  rolloutIndex: number;
  stepIndex: number | null;
  value?: LabelValue | null;
  note?: string | null;
  /** Request number (increasing), echoed in the `labels` answer. */
  seq?: number;
}

/** Mark a step as the first error (the store propagates −1 to later agent steps). Answered by `labels`. */
export interface MarkFirstErrorMessage {
  type: 'markFirstError';
  rolloutIndex: number;
  stepIndex: number;
  seq?: number;
}

/** Undo / redo this window's last label change. Answered by `labels`. */
export interface UndoLabelMessage {
  type: 'undoLabel' | 'redoLabel';
  seq?: number;
}

/** Most steps one `loadSteps` may ask for. */
export const MAX_SLICE_STEPS = 200;

/** Ask for the full steps `from` … `to - 1` (at most MAX_SLICE_STEPS) of a sliced rollout. Answered by `steps`. */
export interface LoadStepsMessage {
  type: 'loadSteps';
  rolloutIndex: number;
  rolloutId: string;
  from: number;
  /** Exclusive. */
  to: number;
  /** Request number (increasing), echoed in the answer. */
  seq: number;
}

/** Open file chip `file` (its position in the step's chips of the last `stepFiles`) of step `stepIndex`. */
export interface OpenStepFileMessage {
  type: 'openStepFile';
  rolloutIndex: number;
  stepIndex: number;
  file: number;
}

export type WebviewMessage =
  | OpenStepFileMessage
  | OpenUrlMessage
  | LoadStepsMessage
  | ReplayControlMessage
  | BranchControlMessage
  | SetLabelMessage
  | MarkFirstErrorMessage
  | UndoLabelMessage
  | LoadCastMessage
  | CastWindowRequest
  | ReadyMessage
  | StepSelectedMessage
  | RolloutSelectedMessage
  | ShowInSourceMessage
  | OpenLocationMessage
  | OpenLinkMessage
  | ResendMessage
  | ReloadMessage;

// ---------------------------------------------------------------- guards

function isLabelValueOrNull(v: unknown): v is LabelValue | null {
  return v === null || v === 1 || v === 0 || v === -1;
}

/** A note the webview may send: at most this many characters. */
export const MAX_NOTE_CHARS = 10_000;

/** Validates persisted state (it comes back from storage, so it is checked like any input). */
export function isPersistedState(v: unknown): v is PersistedState {
  return (
    isObj(v) &&
    isIndex(v.rolloutIndex) &&
    (v.rolloutId === null || typeof v.rolloutId === 'string') &&
    (v.selectedStep === null || isIndex(v.selectedStep)) &&
    Array.isArray(v.expanded) &&
    v.expanded.every(isIndex) &&
    (v.playerCollapsed === undefined || typeof v.playerCollapsed === 'boolean') &&
    (v.playerSpeed === undefined || (PLAYER_SPEEDS as readonly unknown[]).includes(v.playerSpeed)) &&
    (v.playerHeight === undefined || (typeof v.playerHeight === 'number' && v.playerHeight >= 0.15 && v.playerHeight <= 0.85)) &&
    (v.playerFit === undefined || v.playerFit === 'screen' || v.playerFit === 'width') &&
    (v.scrollY === undefined || (typeof v.scrollY === 'number' && Number.isFinite(v.scrollY) && v.scrollY >= 0)) &&
    (v.scrollStep === undefined || isIndex(v.scrollStep)) &&
    (v.scrollStepTop === undefined || (typeof v.scrollStepTop === 'number' && Number.isFinite(v.scrollStepTop))) &&
    (v.follow === undefined || typeof v.follow === 'boolean')
  );
}

/** Type guard for messages the host accepts from the webview. Anything else is ignored. */
export function isWebviewMessage(v: unknown): v is WebviewMessage {
  if (!isObj(v) || typeof v.type !== 'string') return false;
  switch (v.type) {
    case 'ready':
      return v.state === null || v.state === undefined || isPersistedState(v.state);
    case 'stepSelected':
    case 'showInSource':
      return isIndex(v.rolloutIndex) && isIndex(v.stepIndex);
    case 'rolloutSelected':
    case 'loadCast':
      return isIndex(v.rolloutIndex);
    case 'castWindow':
      return isCastWindowRequest(v);
    case 'openLink':
      return isIndex(v.rolloutIndex) && (v.stepIndex === null || isIndex(v.stepIndex)) && isIndex(v.link);
    case 'openStepFile':
      return isIndex(v.rolloutIndex) && isIndex(v.stepIndex) && isIndex(v.file);
    case 'openUrl':
      return typeof v.url === 'string' && isOpenableUrl(v.url);
    case 'openLocation':
      return typeof v.file === 'string' && v.file.length > 0 && isPosOrNull(v.line) && isPosOrNull(v.column);
    case 'reload':
    case 'resend':
      return true;
    case 'undoLabel':
    case 'redoLabel':
      return v.seq === undefined || isIndex(v.seq);
    case 'setLabel':
      return (
        (v.seq === undefined || isIndex(v.seq)) &&
        isIndex(v.rolloutIndex) &&
        (v.stepIndex === null || isIndex(v.stepIndex)) &&
        (v.value === undefined || isLabelValueOrNull(v.value)) &&
        (v.note === undefined || v.note === null || (typeof v.note === 'string' && v.note.length <= MAX_NOTE_CHARS)) &&
        (v.value !== undefined || v.note !== undefined)
      );
    case 'markFirstError':
      return isIndex(v.rolloutIndex) && isIndex(v.stepIndex) && (v.seq === undefined || isIndex(v.seq));
    case 'loadSteps':
      return (
        isIndex(v.rolloutIndex) &&
        typeof v.rolloutId === 'string' &&
        isIndex(v.from) &&
        isIndex(v.to) &&
        v.to > v.from &&
        v.to - v.from <= MAX_SLICE_STEPS &&
        isIndex(v.seq)
      );
    case 'replay':
      return isReplayControlMessage(v);
    case 'branch':
      return isBranchControlMessage(v);
    default:
      return false;
  }
}

function isCurrentLabel(v: unknown): v is CurrentLabel {
  return (
    isObj(v) &&
    typeof v.rolloutId === 'string' &&
    (v.stepIndex === null || isIndex(v.stepIndex)) &&
    isLabelValueOrNull(v.value) &&
    typeof v.firstError === 'boolean' &&
    (v.note === null || typeof v.note === 'string') &&
    typeof v.annotator === 'string' &&
    typeof v.time === 'string' &&
    (v.origin === 'manual' || v.origin === 'propagated') &&
    typeof v.stale === 'boolean'
  );
}

/**
 * Type guard for messages the webview accepts from the host. Checks the envelope and the fields the
 * webview indexes by; the rollout itself was validated by the core loader (zod model) on the host.
 */
export function isHostMessage(v: unknown): v is HostMessage {
  if (!isObj(v) || typeof v.type !== 'string') return false;
  switch (v.type) {
    case 'rollout':
      return (
        isObj(v.file) &&
        Array.isArray(v.summaries) &&
        (v.rolloutCount === undefined || isIndex(v.rolloutCount)) &&
        isIndex(v.rolloutIndex) &&
        isObj(v.rollout) &&
        Array.isArray((v.rollout as Record<string, unknown>).steps) &&
        (v.revealStep === null || isIndex(v.revealStep)) &&
        isObj(v.config) &&
        (v.sliced === undefined || isSlicedInfo(v.sliced)) &&
        (v.live === undefined || isLiveInfo(v.live))
      );
    case 'rolloutUpdate':
      return (
        isIndex(v.rolloutIndex) &&
        typeof v.rolloutId === 'string' &&
        isIndex(v.from) &&
        Array.isArray(v.steps) &&
        v.steps.every((s, k) => isObj(s) && s.index === (v.from as number) + k && Array.isArray(s.actions) && Array.isArray(s.observations) && typeof s.message === 'string') &&
        isObj(v.rollout) &&
        (v.rollout as Record<string, unknown>).id === v.rolloutId &&
        Array.isArray(v.summaries) &&
        (v.rolloutCount === undefined || isIndex(v.rolloutCount)) &&
        (v.sliced === undefined || isSlicedInfo(v.sliced)) &&
        isLiveInfo(v.live)
      );
    case 'live':
      return isLiveInfo(v.live);
    case 'toggleFollow':
      return v.on === undefined || typeof v.on === 'boolean';
    case 'loadError':
      return typeof v.file === 'string' && typeof v.message === 'string' && Array.isArray(v.issues) && Array.isArray(v.declined);
    case 'steps':
      return (
        isIndex(v.rolloutIndex) &&
        typeof v.rolloutId === 'string' &&
        isIndex(v.from) &&
        isIndex(v.seq) &&
        Array.isArray(v.steps) &&
        v.steps.length <= MAX_SLICE_STEPS &&
        v.steps.every((s, k) => isObj(s) && s.index === (v.from as number) + k && Array.isArray(s.actions) && Array.isArray(s.observations) && typeof s.message === 'string')
      );
    case 'revealStep':
      return isIndex(v.index);
    case 'highlight':
      return isIndex(v.rolloutIndex) && isIndex(v.index) && isObj(v.query) && typeof v.query.pattern === 'string' && v.query.pattern !== '' && typeof v.query.regex === 'boolean' && typeof v.query.caseSensitive === 'boolean';
    case 'moveSelection':
      return typeof v.delta === 'number' && Number.isInteger(v.delta);
    case 'loading':
      return typeof v.file === 'string';
    case 'config':
      return isObj(v.config) && typeof (v.config as Record<string, unknown>).collapseOutputLines === 'number';
    case 'labels':
      return (
        isIndex(v.rolloutIndex) &&
        typeof v.rolloutId === 'string' &&
        typeof v.annotator === 'string' &&
        Array.isArray(v.labels) &&
        v.labels.every(isCurrentLabel) &&
        Array.isArray(v.unsaved) &&
        v.unsaved.every((c) => isObj(c) && (c.stepIndex === null || isIndex(c.stepIndex))) &&
        typeof v.journal === 'string' &&
        (v.error === null || typeof v.error === 'string') &&
        Array.isArray(v.warnings) &&
        v.warnings.every((w) => typeof w === 'string') &&
        (v.seq === null || isIndex(v.seq))
      );
    case 'runLabelAction':
      return (LABEL_ACTIONS as readonly unknown[]).includes(v.action);
    case 'replayState':
      return isReplayStateMessage(v);
    case 'scores':
      return isScoresMessage(v);
    case 'stepFiles':
      return (
        typeof v.rolloutId === 'string' &&
        Array.isArray(v.steps) &&
        v.steps.every(
          (st) =>
            isObj(st) &&
            isIndex(st.index) &&
            Array.isArray(st.files) &&
            st.files.every((f) => isObj(f) && typeof f.label === 'string' && typeof f.recorded === 'string' && (f.kind === 'read' || f.kind === 'edit') && typeof f.local === 'boolean' && typeof f.failed === 'boolean'),
        )
      );
    case 'cast':
      return isCastMessage(v);
    case 'castWindow':
      return isCastWindowMessage(v);
    case 'castProgress':
      return isCastProgressMessage(v);
    default:
      return false;
  }
}

function isLiveInfo(v: unknown): v is LiveInfo {
  return (
    isObj(v) &&
    (v.mode === 'stream' || v.mode === 'reload') &&
    (v.state === 'reading' || v.state === 'live' || v.state === 'deleted') &&
    isIndex(v.bytes) &&
    isIndex(v.size)
  );
}

function isSlicedInfo(v: unknown): v is SlicedInfo {
  return (
    isObj(v) &&
    isIndex(v.fullChars) &&
    isIndex(v.headChars) &&
    Array.isArray(v.cuts) &&
    v.cuts.every(
      (c) =>
        isObj(c) &&
        isIndex(c.index) &&
        Array.isArray(c.fields) &&
        c.fields.every((f) => isObj(f) && typeof f.field === 'string' && isIndex(f.chars) && isIndex(f.lines)),
    ) &&
    (v.initial === undefined || (isObj(v.initial) && isIndex(v.initial.from) && Array.isArray(v.initial.steps) && v.initial.steps.every((s) => isObj(s) && isIndex(s.index))))
  );
}
