/**
 * The seam between the timeline editor and replay: the timeline forwards `replay` messages and
 * re-sends the replay state after (re)loading through this hook, without importing the controller.
 */
import type { ReplayControlMessage } from '../../shared/protocol';
import type { TimelinePanel } from '../timelineEditor';

/** What the timeline calls. */
export interface ReplayHook {
  onMessage(panel: TimelinePanel, m: ReplayControlMessage): Promise<void>;
  /** The panel (re)sent its rollout: send the replay state too. */
  resend(panel: TimelinePanel): void;
}

let hook: ReplayHook | null = null;

/** Installs the replay controller (once, at activation). */
export function setReplayHook(h: ReplayHook | null): void {
  hook = h;
}

/** The installed hook, or null before activation / in tests. */
export function replayHook(): ReplayHook | null {
  return hook;
}
