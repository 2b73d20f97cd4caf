/**
 * The terminal recording a timeline panel plays: opens it when the webview asks (`loadCast`, one
 * at a time: a new one stops the reading of the one before), answers the player's `castWindow`
 * requests from it, and posts the reading's `castProgress`. No `vscode` import.
 */
import type { Rollout } from '../../core/model';
import type { CastWindowMessage, CastWindowRequest } from '../../shared/castProtocol';
import type { HostMessage } from '../../shared/protocol';
import { openCastStream } from '../castFile';
import type { CastRecording } from '../castStream';
import { castError } from '../castView';

let streams = 0;

/** The recording of one panel (see the module docs). */
export class CastFeed {
  private current: { id: string; recording: CastRecording | null } | null = null;

  constructor(private readonly post: (m: HostMessage) => void) {}

  /** Opens and posts the recording of `rollout` (rollout `rolloutIndex` of the file), or why it has none. */
  async load(rolloutIndex: number, rollout: Rollout): Promise<void> {
    this.dispose();
    const rec = rollout.recording;
    if (!rec) {
      this.post(castError(rolloutIndex, rollout.id, '', 'This rollout has no terminal recording.'));
      return;
    }
    const id = `cast-${++streams}`;
    const mine = { id, recording: null as CastRecording | null };
    this.current = mine;
    const handle = await openCastStream(rolloutIndex, rollout.id, rec.path, id, (m) => {
      if (this.current === mine) this.post(m);
    });
    if (this.current !== mine) {
      handle.recording?.dispose();
      return;
    }
    mine.recording = handle.recording;
    this.post(handle.message);
    handle.started();
  }

  /** Answers a window request of the player (dropped when it is for a recording no longer shown). */
  async answer(m: CastWindowRequest): Promise<void> {
    const cur = this.current;
    if (!cur?.recording || cur.id !== m.stream) return;
    const w = m.time !== null ? await cur.recording.seek(m.time) : await cur.recording.window(m.from ?? 0);
    if (this.current !== cur) return;
    const msg: CastWindowMessage = { type: 'castWindow', stream: m.stream, seq: m.seq, time: m.time, from: w.from, startTime: w.startTime, base: w.base, events: w.events, next: w.next };
    this.post(msg);
  }

  /** Stops reading the recording shown. */
  dispose(): void {
    this.current?.recording?.dispose();
    this.current = null;
  }
}
