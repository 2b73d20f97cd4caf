/**
 * Replay in the timeline: the webview's replay bar posts `replay` (an action on the rollout shown)
 * and the host answers every change with `replayState` (src/host/replay/controller.ts).
 */
import { isIndex, isObj } from './guards';

/** Replay verdict of one rollout step (the worst of its commands): see core/replay/compare. */
export type ReplayStepStatus = 'pending' | 'running' | 'same' | 'differs' | 'not-replayable';

/** One rollout step's replay result as the timeline shows it. */
export interface ReplayStepView {
  stepIndex: number;
  status: ReplayStepStatus;
  /** One line: "exit code 0 → 127", "output differs (line 3)", why not replayable. */
  summary: string;
  /** Ran after the first divergence: the container's state may no longer be the recording's. */
  stateMayDiffer: boolean;
  /** A diff can be shown (recorded vs replayed output exists). */
  hasDiff: boolean;
}

/** Replay controls' state for the rollout shown; sent after every change. */
export interface ReplayStateMessage {
  type: 'replayState';
  rolloutIndex: number;
  rolloutId: string;
  /** False in an untrusted workspace or when the rollout has nothing to replay; `reason` says why. */
  available: boolean;
  reason: string | null;
  phase: 'idle' | 'starting' | 'ready' | 'running' | 'done' | 'error';
  image: string | null;
  mode: 'exec' | 'shell' | 'tmux' | null;
  /** Rollout step the next command belongs to; null when none is left or not started. */
  next: number | null;
  /** Rollout steps with a command that can be replayed ("Run to here" targets). */
  replayable: number[];
  steps: ReplayStepView[];
  /** Rollout step of the first divergence, or null. */
  firstDivergence: number | null;
  /** Last error or note for the bar; null when none. */
  message: string | null;
  /** Step back is possible (a snapshot exists before the last run step). */
  canStepBack: boolean;
}

/** What a replay control asks for. `runTo` and `showDiff` need `stepIndex`. */
export type ReplayAction = 'start' | 'step' | 'continue' | 'runTo' | 'stepBack' | 'stop' | 'restart' | 'showDiff' | 'close';

export const REPLAY_ACTIONS: readonly ReplayAction[] = ['start', 'step', 'continue', 'runTo', 'stepBack', 'stop', 'restart', 'showDiff', 'close'];

/** A replay control in the timeline was used. Answered by `replayState`. */
export interface ReplayControlMessage {
  type: 'replay';
  action: ReplayAction;
  rolloutIndex: number;
  stepIndex?: number;
}

const REPLAY_PHASES: readonly unknown[] = ['idle', 'starting', 'ready', 'running', 'done', 'error'];
const REPLAY_STEP_STATUSES: readonly unknown[] = ['pending', 'running', 'same', 'differs', 'not-replayable'];

function isReplayStepView(v: unknown): v is ReplayStepView {
  return isObj(v) && isIndex(v.stepIndex) && REPLAY_STEP_STATUSES.includes(v.status) && typeof v.summary === 'string' && typeof v.stateMayDiffer === 'boolean' && typeof v.hasDiff === 'boolean';
}

/** Validates a `replayState` message (the webview's side). */
export function isReplayStateMessage(v: Record<string, unknown>): boolean {
  return (
    isIndex(v.rolloutIndex) &&
    typeof v.rolloutId === 'string' &&
    typeof v.available === 'boolean' &&
    (v.reason === null || typeof v.reason === 'string') &&
    REPLAY_PHASES.includes(v.phase) &&
    (v.image === null || typeof v.image === 'string') &&
    (v.mode === null || v.mode === 'exec' || v.mode === 'shell' || v.mode === 'tmux') &&
    (v.next === null || isIndex(v.next)) &&
    Array.isArray(v.replayable) &&
    v.replayable.every(isIndex) &&
    Array.isArray(v.steps) &&
    v.steps.every(isReplayStepView) &&
    (v.firstDivergence === null || isIndex(v.firstDivergence)) &&
    (v.message === null || typeof v.message === 'string') &&
    typeof v.canStepBack === 'boolean'
  );
}

/** Validates a `replay` message (the host's side). */
export function isReplayControlMessage(v: Record<string, unknown>): boolean {
  return (
    (REPLAY_ACTIONS as readonly unknown[]).includes(v.action) &&
    isIndex(v.rolloutIndex) &&
    (v.stepIndex === undefined || isIndex(v.stepIndex)) &&
    ((v.action !== 'runTo' && v.action !== 'showDiff') || isIndex(v.stepIndex))
  );
}
