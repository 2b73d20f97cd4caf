/**
 * When a timeline reads its file again whole after it changed on disk (a format without an
 * incremental reader): soon after the first change, and never so often that a growing file keeps
 * the host busy. Nothing here imports `vscode`.
 */

/** Reloads after a file change wait this long for the writes to settle. */
const RELOAD_DEBOUNCE_MS = 300;
/**
 * A file read again whole when it changes is read at most once per this many times its last load
 * took, and at least every RELOAD_MAX_GAP_MS while it keeps changing: a file that takes 1 s to load
 * and is rewritten every second is read every 4 s, so a growing file never keeps the host busy more
 * than a fifth of the time.
 */
const RELOAD_LOAD_FACTOR = 4;
const RELOAD_MAX_GAP_MS = 30_000;

/** The reload timer of one timeline. */
export class ReloadThrottle {
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** How long the last whole load took, and when it ended (ms, Date.now()). */
  private lastLoadMs = 0;
  private lastLoadEnd = 0;

  /** @param reload reads the file again (called from the timer) */
  constructor(private readonly reload: () => void) {}

  /**
   * Reads the file again soon: RELOAD_DEBOUNCE_MS after the first change (later changes do not
   * push it back: a file written continuously is still read), and no sooner than
   * RELOAD_LOAD_FACTOR times the last load's duration after that load ended.
   */
  schedule(): void {
    if (this.timer !== undefined) return;
    const gap = Math.min(RELOAD_MAX_GAP_MS, RELOAD_LOAD_FACTOR * this.lastLoadMs);
    const wait = Math.max(RELOAD_DEBOUNCE_MS, this.lastLoadEnd + gap - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.reload();
    }, wait);
  }

  /** A load that started at `started` (Date.now()) ended now. */
  loaded(started: number): void {
    this.lastLoadEnd = Date.now();
    this.lastLoadMs = this.lastLoadEnd - started;
  }

  /** Drops a scheduled reload (a load starts now, or the timeline closed). */
  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
