/**
 * What the terminal player takes from the page: the xterm.js theme from VS Code's colour variables,
 * the monospace cell size, the font size bounds of fitting, and the player's icons.
 */
import type { ITheme } from '@xterm/xterm';
import { html } from 'lit';

/** Font size bounds (px) when fitting the recorded terminal into the panel. */
export const MIN_FONT = 7;
export const MAX_FONT = 15;
/** Row height / font size of xterm's DOM renderer with lineHeight 1 (measured for DejaVu Sans Mono). */
export const LINE_RATIO = 1.2;

const ANSI_KEYS: [keyof ITheme, string][] = [
  ['black', 'ansiBlack'],
  ['red', 'ansiRed'],
  ['green', 'ansiGreen'],
  ['yellow', 'ansiYellow'],
  ['blue', 'ansiBlue'],
  ['magenta', 'ansiMagenta'],
  ['cyan', 'ansiCyan'],
  ['white', 'ansiWhite'],
  ['brightBlack', 'ansiBrightBlack'],
  ['brightRed', 'ansiBrightRed'],
  ['brightGreen', 'ansiBrightGreen'],
  ['brightYellow', 'ansiBrightYellow'],
  ['brightBlue', 'ansiBrightBlue'],
  ['brightMagenta', 'ansiBrightMagenta'],
  ['brightCyan', 'ansiBrightCyan'],
  ['brightWhite', 'ansiBrightWhite'],
];

/** The terminal colours of the VS Code theme (the CSS variables a webview gets), as an xterm theme. */
export function vscodeTheme(el: Element): ITheme {
  const cs = getComputedStyle(el);
  const v = (name: string): string | undefined => cs.getPropertyValue(`--vscode-${name}`).trim() || undefined;
  const theme: ITheme = {
    background: v('terminal-background') ?? v('panel-background') ?? v('editor-background') ?? '#1e1e1e',
    foreground: v('terminal-foreground') ?? v('editor-foreground') ?? '#cccccc',
    cursor: v('terminalCursor-foreground') ?? v('editorCursor-foreground'),
    selectionBackground: v('terminal-selectionBackground') ?? v('editor-selectionBackground'),
    scrollbarSliderBackground: v('scrollbarSlider-background'),
    scrollbarSliderHoverBackground: v('scrollbarSlider-hoverBackground'),
    scrollbarSliderActiveBackground: v('scrollbarSlider-activeBackground'),
  };
  for (const [key, name] of ANSI_KEYS) {
    const c = v(`terminal-${name}`);
    if (c) (theme as Record<string, string>)[key] = c;
  }
  return theme;
}

let charRatio: number | null = null;
/** Cell width / font size of the monospace font (measured once on a canvas). */
export function monoCharRatio(fontFamily: string): number {
  if (charRatio === null) {
    const ctx = document.createElement('canvas').getContext('2d');
    if (ctx) {
      ctx.font = `100px ${fontFamily}`;
      charRatio = ctx.measureText('W'.repeat(10)).width / 1000 || 0.6;
    } else {
      charRatio = 0.6;
    }
  }
  return charRatio;
}

export const PLAY_ICON = html`<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M4 2.5v11l9-5.5z" fill="currentColor"></path></svg>`;
export const PAUSE_ICON = html`<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M4 2.5h3v11H4zM9 2.5h3v11H9z" fill="currentColor"></path></svg>`;
export const RESTART_ICON = html`<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M8 3a5 5 0 1 1-4.9 6h1.55A3.5 3.5 0 1 0 8 4.5V7L4.5 3.75 8 .5z" fill="currentColor"></path></svg>`;
