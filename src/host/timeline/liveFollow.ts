/**
 * Live follow of one timeline (docs/live-follow.md): a JSONL file whose format has an incremental
 * reader, opened through core `JsonlFollower`, is read on in slices on the host's thread
 * (FollowLoop) until it is caught up, then watched and read from its last offset as it grows. The
 * rollouts each read changed are gathered and handed to the timeline at once when caught up, else
 * at most every PROGRESS_POST_MS; what the follower has read is published to the followed-files
 * registry (LiveFiles, liveFiles.ts) for the Rollouts view. Nothing here posts to a webview.
 */
import { FollowLoop, watchFile, type FileWatch, type FollowResult, type JsonlFollower } from '../../core/follow';
import type { LiveInfo } from '../../shared/protocol';
import type { LiveFiles } from '../liveFiles';

/** While a large file is read progressively, new steps go to the webview at most this often (ms). */
const PROGRESS_POST_MS = 150;
/** Bytes read per slice while catching up with a large file (one slice's parse holds the host's thread). */
const FOLLOW_SLICE_BYTES = 512 * 1024;

/** What a LiveFollow tells its timeline. */
export interface LiveFollowListener {
  /** Rollouts changed (index in the file → first step that changed), gathered since the last call; `live` is how the file is followed now. */
  changed(changes: ReadonlyMap<number, number>, live: LiveInfo): void;
  /** Nothing changed but how the file is followed (caught up, deleted): `live` is the new state. */
  stateChanged(live: LiveInfo): void;
  /** The file was truncated or replaced (`reason`): the timeline should read it again from the start. */
  reset(reason: string): void;
}

/** How `follower` is followed, as the webview shows it. */
export function liveInfoOf(follower: JsonlFollower): LiveInfo {
  return { mode: 'stream', state: follower.isDeleted ? 'deleted' : follower.caughtUp ? 'live' : 'reading', bytes: follower.bytesRead, size: follower.fileSize };
}

/** Following one file for one timeline, from `start` until `close`. */
export class LiveFollow {
  private readonly loop: FollowLoop;
  private readonly watch: FileWatch;
  /** Rollouts changed since the last hand-over (index → first changed step), and the timer that hands them over. */
  private pending = new Map<number, number>();
  private postTimer: ReturnType<typeof setTimeout> | undefined;
  private lastState: LiveInfo['state'] | null;
  private closed = false;

  /**
   * Starts following `file` with `follower` (opened already, its first part read) on behalf of
   * `owner` (the timeline, as the followed-files registry `liveFiles` knows it); reads on at once
   * when the follower has not caught up.
   */
  constructor(
    readonly follower: JsonlFollower,
    private readonly file: string,
    private readonly liveFiles: LiveFiles,
    private readonly owner: object,
    private readonly listener: LiveFollowListener,
  ) {
    this.lastState = liveInfoOf(follower).state;
    liveFiles.set(file, owner, follower.loaded);
    this.loop = new FollowLoop(follower, (r) => this.onRead(r), { sliceBytes: FOLLOW_SLICE_BYTES });
    this.watch = watchFile(file, () => this.loop.poke());
    if (!follower.caughtUp) this.loop.poke();
  }

  /** How the file is followed now. */
  get info(): LiveInfo {
    return liveInfoOf(this.follower);
  }

  /** The file changed (VS Code's watcher): read on. */
  poke(): void {
    this.loop.poke();
  }

  /** Tells the followed-files registry what the follower has read now (after the timeline took a change). */
  publish(): void {
    if (!this.closed) this.liveFiles.set(this.file, this.owner, this.follower.loaded);
  }

  /** One read of the file: changes are gathered and handed over (at once when caught up, else every PROGRESS_POST_MS). */
  private onRead(r: FollowResult): void {
    if (this.closed) return;
    switch (r.kind) {
      case 'update':
        for (const c of r.changes) this.pending.set(c.index, Math.min(this.pending.get(c.index) ?? Infinity, c.changedFrom));
        break;
      case 'reset':
        this.listener.reset(r.reason);
        return;
      case 'same':
      case 'deleted':
        break;
    }
    const live = this.info;
    const stateChanged = live.state !== this.lastState;
    this.lastState = live.state;
    if (!this.pending.size) {
      if (stateChanged) this.listener.stateChanged(live);
      return;
    }
    if (live.state !== 'reading') this.flush();
    else this.postTimer ??= setTimeout(() => this.flush(), PROGRESS_POST_MS);
  }

  private flush(): void {
    clearTimeout(this.postTimer);
    this.postTimer = undefined;
    if (this.closed) return;
    const changes = this.pending;
    this.pending = new Map();
    this.listener.changed(changes, this.info);
  }

  /** Stops following: no read, watch or hand-over after this; the registry forgets this timeline's copy. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.loop.close();
    this.watch.close();
    this.liveFiles.release(this.file, this.owner);
    clearTimeout(this.postTimer);
    this.postTimer = undefined;
    this.pending.clear();
  }
}
