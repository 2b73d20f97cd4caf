/**
 * The terminal recording a timeline panel plays: opens it when the webview asks (`loadCast`, one
 * at a time: a new one stops the reading of the one before), answers the player's `castWindow`
 * requests from it, and posts the reading's `castProgress`. No `vscode` import.
 *
 * The first frame goes first: once a rollout with another recording is posted (`expect`), the
 * panel holds its step-slice answers (`gate`: megabytes of a cast's output as step text) until the
 * recording's first window is posted, or GATE_MS at most, so the player's message is not queued
 * behind them on the way to the webview.
 */
import type { Rollout } from '../../core/model';
import type { CastWindowMessage, CastWindowRequest } from '../../shared/castProtocol';
import type { HostMessage } from '../../shared/protocol';
import { openCastStream } from '../castFile';
import type { CastRecording } from '../castStream';
import { castError } from '../castView';

let streams = 0;

/** How long step-slice answers wait at most for the recording's first window (ms). */
export const GATE_MS = 1500;

/** The recording of one panel (see the module docs). */
export class CastFeed {
  private current: { id: string; rolloutId: string; path: string; recording: CastRecording | null } | null = null;
  private gateOpen: (() => void) | null = null;
  private gatePromise: Promise<void> = Promise.resolve();

  constructor(private readonly post: (m: HostMessage) => void) {}

  /**
   * `rollout` was posted to the webview: when its recording is not the one open, the webview will ask
   * for it, and `gate` waits for that answer from now on.
   */
  expect(rollout: Rollout): void {
    const rec = rollout.recording;
    if (!rec || (this.current && this.current.rolloutId === rollout.id && this.current.path === rec.path)) return;
    this.openGate();
    let timer: NodeJS.Timeout | undefined;
    this.gatePromise = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, GATE_MS);
      this.gateOpen = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Resolves once the recording expected has been posted (or GATE_MS after `expect`); at once when none is. */
  gate(): Promise<void> {
    return this.gatePromise;
  }

  private openGate(): void {
    this.gateOpen?.();
    this.gateOpen = null;
  }

  /** Opens and posts the recording of `rollout` (rollout `rolloutIndex` of the file), or why it has none. */
  async load(rolloutIndex: number, rollout: Rollout): Promise<void> {
    this.current?.recording?.dispose();
    this.current = null;
    const rec = rollout.recording;
    if (!rec) {
      this.post(castError(rolloutIndex, rollout.id, '', 'This rollout has no terminal recording.'));
      this.openGate();
      return;
    }
    const id = `cast-${++streams}`;
    const mine = { id, rolloutId: rollout.id, path: rec.path, recording: null as CastRecording | null };
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
    this.openGate();
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
    this.openGate();
  }
}
