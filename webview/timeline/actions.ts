/**
 * Everything the timeline webview posts to the host (src/shared/protocol.ts `WebviewMessage`), one
 * function per message, and `runPostEffect`, which turns the posting effects of the state
 * (state.ts `Effect`) into messages. The components and the state post through here only.
 */
import type { PersistedState, LoadStepsMessage, WebviewMessage } from '../../src/shared/protocol';
import type { CastWindowRequest } from '../../src/shared/castProtocol';
import type { ReplayAction } from '../../src/shared/replayProtocol';
import type { BranchAction } from '../../src/shared/branchProtocol';
import { post } from '../ipc';
import type { Effect } from './state';

/** The script runs: `state` is what an earlier instance of this webview saved (the host answers with the rollout). */
export function ready(state: PersistedState | null): void {
  post({ type: 'ready', state });
}

/** The user selected step `stepIndex` (the host keeps it for its commands and the status bar). */
export function stepSelected(rolloutIndex: number, stepIndex: number): void {
  post({ type: 'stepSelected', rolloutIndex, stepIndex });
}

/** The user picked another rollout of the file. */
export function selectRollout(rolloutIndex: number): void {
  post({ type: 'rolloutSelected', rolloutIndex });
}

export function showInSource(rolloutIndex: number, stepIndex: number): void {
  post({ type: 'showInSource', rolloutIndex, stepIndex });
}

/** Opens link `link` of the rollout (`stepIndex` null) or of one step. */
export function openLink(rolloutIndex: number, stepIndex: number | null, link: number): void {
  post({ type: 'openLink', rolloutIndex, stepIndex, link });
}

/** Opens file chip `file` of step `stepIndex` (the host opens the workspace file, or says why not). */
export function openStepFile(rolloutIndex: number, stepIndex: number, file: number): void {
  post({ type: 'openStepFile', rolloutIndex, stepIndex, file });
}

/** Opens `file` at a line and column (1-based; null: the file's start). */
export function openLocation(file: string, line: number | null, column: number | null): void {
  post({ type: 'openLocation', file, line, column });
}

/** Opens an http(s) link of the recording outside VS Code (the host asks the user first). */
export function openUrl(url: string): void {
  post({ type: 'openUrl', url });
}

/** Asks for a window of a streamed recording (the player's; answered by `castWindow`). */
export function castWindow(msg: CastWindowRequest): void {
  post(msg);
}

/** Reads the file again (the load error's Reload). */
export function reload(): void {
  post({ type: 'reload' });
}

/** A replay control: `stepIndex` for the actions of one step (run to here, show diff). */
export function replay(action: ReplayAction, rolloutIndex: number, stepIndex?: number): void {
  post({ type: 'replay', action, rolloutIndex, ...(stepIndex !== undefined ? { stepIndex } : {}) });
}

/** A branch control: Branch from here (step `stepIndex`) or Compare with parent (the rollout shown). */
export function branch(action: BranchAction, rolloutIndex: number, stepIndex?: number): void {
  post({ type: 'branch', action, rolloutIndex, ...(stepIndex !== undefined ? { stepIndex } : {}) });
}

/** Asks for full steps of a sliced rollout (the step store's port). */
export function stepSlice(msg: LoadStepsMessage): void {
  post(msg);
}

/** Posts the message a posting effect stands for; returns false for the effects that post nothing. */
export function runPostEffect(e: Effect): boolean {
  let msg: WebviewMessage;
  switch (e.kind) {
    case 'selected':
      stepSelected(e.rolloutIndex, e.stepIndex);
      return true;
    case 'showInSource':
      showInSource(e.rolloutIndex, e.stepIndex);
      return true;
    case 'loadCast':
      msg = { type: 'loadCast', rolloutIndex: e.rolloutIndex };
      break;
    case 'resend':
      msg = { type: 'resend' };
      break;
    case 'setLabel': {
      const { kind: _kind, ...change } = e;
      msg = { type: 'setLabel', ...change };
      break;
    }
    case 'markFirstError':
      msg = { type: 'markFirstError', rolloutIndex: e.rolloutIndex, stepIndex: e.stepIndex, seq: e.seq };
      break;
    case 'undoRedo':
      msg = { type: e.type, seq: e.seq };
      break;
    default:
      return false;
  }
  post(msg);
  return true;
}
