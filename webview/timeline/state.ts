/**
 * The timeline's state, apart from the DOM: what is shown (the view), the selection, the expanded
 * cards, labels, scores, replay, the recording (cast), the view config, the player settings and the
 * step store of a large rollout. `<ti-app>` holds one, changes it only through the functions of
 * update.ts and hostMessages.ts (each returns the `Effect`s the change asks for) and renders it.
 * Free of the DOM and Lit, so the changes are unit-tested under Node.
 */
import type { CurrentLabel, LabelValue, Rollout } from '../../src/shared/model';
import type { HighlightNotification, LabelsMessage, LoadErrorMessage, PersistedState, RolloutMessage, StepFileChip, StepFilesMessage, ViewConfig } from '../../src/shared/protocol';
import type { CastMessage, CastProgressMessage, CastWindowMessage } from '../../src/shared/castProtocol';
import type { ReplayStateMessage } from '../../src/shared/replayProtocol';
import type { ScoresMessage, StepScoreView } from '../../src/shared/scoresProtocol';
import { stepMarks, type StepMark } from '../cast';
import { stepGist } from '../format';
import { indexLabels, labelableSteps, type LabelIndex, type SentChange } from '../labels';
import type { StepStore } from '../stepStore';
import type { PlayerFit, PlayerMark } from '../components/player/types';
import type { StepReplay } from '../components/step-card/stepText';

/** What the page shows. */
export type View =
  | { kind: 'waiting' }
  | { kind: 'loading'; file: string }
  | { kind: 'rollout'; msg: RolloutMessage }
  | { kind: 'error'; msg: LoadErrorMessage };

/** The recording shown for the current rollout: asked for (`msg` null) or answered. */
export interface CastState {
  rolloutId: string;
  path: string;
  msg: CastMessage | null;
  /** How far the host has read a streamed recording (its duration so far, the note), once it says. */
  progress: CastProgressMessage | null;
}

/** Share of the window height the terminal may take until the user drags it. */
export const DEFAULT_PLAYER_HEIGHT = 0.5;

/** Where a revealed step lands in the window (`scrollIntoView`'s `block`; spelled out: no DOM types here). */
export type Block = 'start' | 'center' | 'end' | 'nearest';

/** A step to scroll into view once the list is rendered. */
export interface Reveal {
  index: number;
  block: Block;
}

export interface TimelineState {
  view: View;
  selected: number | null;
  /** A search's matches marked in the step it opened, until the selection moves or Escape. */
  highlight: Omit<HighlightNotification, 'type'> | null;
  expanded: Set<number>;
  cast: CastState | null;
  /** The labels of the rollout shown, as the host last sent them (null until they come). */
  labelsMsg: LabelsMessage | null;
  /** Step scores of the rollout shown; null until the host sends some. */
  scoresMsg: ScoresMessage | null;
  /** The files each step of the rollout shown read or changed; null until the host sends them. */
  stepFilesMsg: StepFilesMessage | null;
  /** Label changes sent to the host and not answered yet (shown at once). */
  sentChanges: SentChange[];
  /** Sequence number of the last label change (or undo / redo) sent. */
  labelSeq: number;
  /** The key overlay is open. */
  showKeys: boolean;
  /** Step whose note editor is open, or null. */
  editingNote: number | null;
  /** A short message in the label row (e.g. "every step is labelled"), cleared by the next key. */
  flash: string | null;
  /** Replay state of the rollout shown; null before the host sent one. */
  replay: ReplayStateMessage | null;
  /** Follow (live follow): the newest step is kept in view as the file grows. */
  follow: boolean;
  /** Steps appended since Follow went off (shown on the button). */
  unseen: number;
  config: ViewConfig;
  /** What an earlier instance of this webview saved, until the first rollout has used it. */
  restored: PersistedState | null;
  /** The step to scroll into view after the next render. */
  pendingReveal: Reveal | null;
  /** Scroll position to restore once the list is laid out (a re-created webview). */
  pendingScrollY: number | null;
  /** Step card to put back in place once the list is laid out (a re-created webview of a sliced rollout). */
  pendingAnchor: { index: number; top: number } | null;
  player: { collapsed: boolean; speed: number; height: number; fit: PlayerFit };
  /** Step the player's time last mapped to (selection follows the player only when this changes). */
  playerStep: number | null;
  /** Full steps of a sliced (large) rollout, asked for as their cards come into view. */
  readonly stepStore: StepStore;
}

/** A fresh state; `restored` is what `getState` gave back (ipc.loadState), if anything. */
export function createState(restored: PersistedState | null, stepStore: StepStore): TimelineState {
  return {
    view: { kind: 'waiting' },
    selected: null,
    highlight: null,
    expanded: new Set(),
    cast: null,
    labelsMsg: null,
    scoresMsg: null,
    stepFilesMsg: null,
    sentChanges: [],
    labelSeq: 0,
    showKeys: false,
    editingNote: null,
    flash: null,
    replay: null,
    follow: false,
    unseen: 0,
    config: { collapseOutputLines: 20 },
    restored,
    pendingReveal: null,
    pendingScrollY: null,
    pendingAnchor: null,
    player: {
      collapsed: restored?.playerCollapsed ?? false,
      speed: restored?.playerSpeed ?? 1,
      height: restored?.playerHeight ?? DEFAULT_PLAYER_HEIGHT,
      fit: restored?.playerFit ?? 'width',
    },
    playerStep: null,
    stepStore,
  };
}

/**
 * What a change of the state asks of the page beyond rendering it: a message to the host (the
 * page's actions.ts sends it), a scroll, the player, saving the UI state. Run in order, right
 * after the change (before the next render).
 */
export type Effect =
  /** The selection changed: tell the host (status bar, Show in Source). */
  | { kind: 'selected'; rolloutIndex: number; stepIndex: number }
  | { kind: 'loadCast'; rolloutIndex: number }
  /** An update was lost: ask for the whole rollout again. */
  | { kind: 'resend' }
  /** A label change of step `stepIndex` (null: the rollout's verdict), numbered `seq`. */
  | { kind: 'setLabel'; rolloutIndex: number; stepIndex: number | null; value?: LabelValue | null; note?: string | null; seq: number }
  | { kind: 'markFirstError'; rolloutIndex: number; stepIndex: number; seq: number }
  | { kind: 'undoRedo'; type: 'undoLabel' | 'redoLabel'; seq: number }
  | { kind: 'showInSource'; rolloutIndex: number; stepIndex: number }
  /** Save the UI state (`setState`). */
  | { kind: 'persist' }
  /** Keep the newest step in view (Follow). */
  | { kind: 'revealEnd' }
  /** Seek the player to step `index`'s time in the recording. */
  | { kind: 'seekPlayer'; index: number }
  | { kind: 'togglePlayer' }
  /** A window of the streamed recording for the player. */
  | { kind: 'castWindow'; msg: CastWindowMessage }
  /** Hold the selected (else the top) card in place while cards above it change height. */
  | { kind: 'keepInView' }
  /** Ask for the full steps of the cards rendered (a sliced rollout), now or after the next render. */
  | { kind: 'wantRange'; afterRender: boolean };

/** The rollout message shown, or null. */
export function rolloutMsg(s: TimelineState): RolloutMessage | null {
  return s.view.kind === 'rollout' ? s.view.msg : null;
}

/** Rollouts in the file of a rollout message. */
export function rolloutCount(m: RolloutMessage): number {
  return m.rolloutCount ?? m.summaries.length;
}

export const NO_LABELS: readonly CurrentLabel[] = [];

const labelIndexes = new WeakMap<SentChange[], { msg: LabelsMessage | null; idx: LabelIndex }>();

/** The user's labels and the others', with the changes in flight applied (memoised per message). */
export function labelIndexOf(s: TimelineState): LabelIndex {
  const c = labelIndexes.get(s.sentChanges);
  if (c && c.msg === s.labelsMsg) return c.idx;
  const idx = indexLabels(s.labelsMsg, s.sentChanges);
  labelIndexes.set(s.sentChanges, { msg: s.labelsMsg, idx });
  return idx;
}

const labelables = new WeakMap<Rollout, number[]>();

/** The steps a label is for (agent steps), computed once per rollout object. */
export function labelableOf(r: Rollout): number[] {
  let steps = labelables.get(r);
  if (!steps) labelables.set(r, (steps = labelableSteps(r.steps)));
  return steps;
}

const marksByRollout = new WeakMap<Rollout, { marks: StepMark[]; view: PlayerMark[] }>();

/** Step marks of a rollout's recording (for the step at a time) and as the player shows them. */
export function marksOf(r: Rollout): { marks: StepMark[]; view: PlayerMark[] } {
  let m = marksByRollout.get(r);
  if (!m) {
    const marks = stepMarks(r.steps);
    const view = marks.map((k) => {
      const s = r.steps[k.index];
      const gist = stepGist(s);
      return { index: k.index, time: k.time, label: `#${k.index + 1} ${s.role}${gist ? ` · ${gist}` : ''}`, ref: s.referenceLabel?.value ?? null };
    });
    marksByRollout.set(r, (m = { marks, view }));
  }
  return m;
}

/** Where a recording given to the player starts: the selected step's time, else 0. */
export function playerStartTime(s: TimelineState, r: Rollout): number {
  const t = s.selected !== null ? r.steps[s.selected]?.castTime : null;
  return typeof t === 'number' ? t : 0;
}

const scoreIndexes = new WeakMap<ScoresMessage, Map<number, StepScoreView>>();

/** The score of step `index` of the rollout shown, if the host sent one. */
export function scoreOf(s: TimelineState, index: number): StepScoreView | null {
  const sm = s.scoresMsg;
  if (!sm || sm.rolloutId !== rolloutMsg(s)?.rollout.id) return null;
  let byIndex = scoreIndexes.get(sm);
  if (!byIndex) scoreIndexes.set(sm, (byIndex = new Map(sm.steps.map((x) => [x.index, x]))));
  return byIndex.get(index) ?? null;
}

/** The replay state when it belongs to the rollout shown. */
export function replayFor(s: TimelineState, m: RolloutMessage): ReplayStateMessage | null {
  return s.replay && s.replay.rolloutId === m.rollout.id ? s.replay : null;
}

/** The replay buttons of step `index`'s card, or null when it has none. */
export function stepReplayOf(s: TimelineState, m: RolloutMessage, index: number): StepReplay | null {
  const r = replayFor(s, m);
  if (!r || !r.available) return null;
  const view = r.steps.find((v) => v.stepIndex === index) ?? null;
  const replayable = r.replayable.includes(index);
  if (!view && !replayable) return null;
  return { view, replayable, busy: r.phase === 'running' || r.phase === 'starting', rolloutIndex: m.rolloutIndex };
}

/** Where the page is scrolled, for `persistedState`. */
export interface ScrollPlace {
  scrollY: number;
  /** The card at the top of the window (a sliced rollout), if any. */
  top: { index: number; top: number } | null;
}

/** The UI state to save with `setState`: the selection, expansion, scroll place, Follow and the player settings. */
export function persistedState(s: TimelineState, place: ScrollPlace): PersistedState {
  const r = rolloutMsg(s);
  const st: PersistedState = {
    rolloutIndex: r?.rolloutIndex ?? 0,
    rolloutId: r?.rollout.id ?? null,
    selectedStep: s.selected,
    expanded: [...s.expanded].sort((a, b) => a - b),
  };
  if (r && place.scrollY > 0) st.scrollY = Math.round(place.scrollY);
  if (s.follow) st.follow = true;
  if (r?.sliced && st.scrollY !== undefined && place.top) {
    st.scrollStep = place.top.index;
    st.scrollStepTop = place.top.top;
  }
  // Player settings only when changed from the defaults.
  if (s.player.collapsed) st.playerCollapsed = true;
  if (s.player.speed !== 1) st.playerSpeed = s.player.speed;
  if (s.player.height !== DEFAULT_PLAYER_HEIGHT) st.playerHeight = s.player.height;
  if (s.player.fit !== 'width') st.playerFit = s.player.fit;
  return st;
}

const NO_FILES: readonly StepFileChip[] = [];

/** The file chips of step `index` of the rollout shown (none when the host's list is of another rollout). */
export function stepFilesOf(s: TimelineState, index: number): readonly StepFileChip[] {
  const m = s.stepFilesMsg;
  const cur = rolloutMsg(s);
  if (!m || !cur || cur.rollout.id !== m.rolloutId) return NO_FILES;
  return m.steps.find((x) => x.index === index)?.files ?? NO_FILES;
}
