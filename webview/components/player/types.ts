/**
 * The terminal player's inputs and events (`<ti-player>`), apart from the element, so the
 * timeline state can use them without loading xterm.js or Lit.
 */
/** A step's mark on the seek bar. */
export interface PlayerMark {
  index: number;
  time: number;
  /** Tooltip: step number and what it did. */
  label: string;
  /** Reference label of the step (+1 / 0 / −1), to colour its mark; null when none. */
  ref: 1 | 0 | -1 | null;
}

/** `player-time`: the clock moved by playback or by the user (never by `seek()`). */
export type PlayerTimeEvent = CustomEvent<{ time: number; cause: 'play' | 'scrub' }>;
/** `player-prefs`: speed, collapsed or height changed by the user (the timeline persists them). */
export type PlayerPrefsEvent = CustomEvent<{ speed: number; collapsed: boolean; heightShare: number; fitMode: PlayerFit }>;

/**
 * How the recorded terminal is sized: `width` (the default) fits the font to the width only and
 * scrolls the terminal within the height share, following the cursor (readable text for the tall
 * 160×40 tmux sessions of Terminal-Bench); `screen` shows all of it at once (font fitted to the
 * width and the height share).
 */
export type PlayerFit = 'screen' | 'width';

/** Bounds of the share of the window height the terminal may take (the user drags between them). */
export const MIN_HEIGHT_SHARE = 0.15;
export const MAX_HEIGHT_SHARE = 0.85;
