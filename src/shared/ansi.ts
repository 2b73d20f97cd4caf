/**
 * Terminal output → styled lines. Parses SGR escape sequences (colours, bold, …) into spans and
 * drops every other control sequence (cursor moves, OSC titles, erase-line). A bare carriage return
 * starts the line over, the way progress bars redraw themselves. Pure (no DOM), so it runs in any
 * test; the text of spans is rendered by Lit text bindings only, never as HTML.
 */

/** A colour: a palette index (0–15 the theme's ANSI colours, 16–255 the xterm cube/greys) or RGB. */
export type AnsiColor = { kind: 'index'; n: number } | { kind: 'rgb'; r: number; g: number; b: number };

export interface AnsiStyle {
  fg: AnsiColor | null;
  bg: AnsiColor | null;
  bold: boolean;
  dim: boolean;
  italic: boolean;
  underline: boolean;
  inverse: boolean;
  strike: boolean;
}

export interface AnsiSpan {
  text: string;
  /** null = default style (plain text). */
  style: AnsiStyle | null;
}

export type AnsiLine = AnsiSpan[];

/** The 16 theme colours by palette index, as CSS class suffixes (`ansi-red`, `ansi-bg-bright-blue`). */
export const ANSI_NAMES = [
  'black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white',
  'bright-black', 'bright-red', 'bright-green', 'bright-yellow', 'bright-blue', 'bright-magenta', 'bright-cyan', 'bright-white',
] as const;

function plain(): AnsiStyle {
  return { fg: null, bg: null, bold: false, dim: false, italic: false, underline: false, inverse: false, strike: false };
}

function isPlain(s: AnsiStyle): boolean {
  return !s.fg && !s.bg && !s.bold && !s.dim && !s.italic && !s.underline && !s.inverse && !s.strike;
}

function clampByte(n: number): number {
  return Math.max(0, Math.min(255, Number.isFinite(n) ? Math.trunc(n) : 0));
}

/**
 * Reads an extended colour (`38;5;n`, `38;2;r;g;b`, or the colon forms `38:5:n`, `38:2::r:g:b`)
 * starting at params[i] (the 38/48). Returns the colour and how many params it used.
 */
function extendedColor(params: string[], i: number): { color: AnsiColor | null; used: number } {
  const head = params[i];
  if (head.includes(':')) {
    const sub = head.split(':').map((x) => (x === '' ? NaN : Number(x)));
    if (sub[1] === 5 && sub.length >= 3) return { color: { kind: 'index', n: clampByte(sub[2]) }, used: 1 };
    if (sub[1] === 2) {
      // 38:2:<colourspace>:r:g:b (colourspace may be empty) or 38:2:r:g:b
      const rgb = sub.length >= 6 ? sub.slice(3, 6) : sub.slice(2, 5);
      return { color: { kind: 'rgb', r: clampByte(rgb[0]), g: clampByte(rgb[1]), b: clampByte(rgb[2]) }, used: 1 };
    }
    return { color: null, used: 1 };
  }
  const mode = Number(params[i + 1]);
  if (mode === 5) return { color: { kind: 'index', n: clampByte(Number(params[i + 2])) }, used: 3 };
  if (mode === 2) {
    return {
      color: { kind: 'rgb', r: clampByte(Number(params[i + 2])), g: clampByte(Number(params[i + 3])), b: clampByte(Number(params[i + 4])) },
      used: 5,
    };
  }
  return { color: null, used: 2 };
}

/** Applies one SGR parameter list to a style (mutates and returns it). */
export function applySgr(style: AnsiStyle, paramText: string): AnsiStyle {
  const params = paramText === '' ? ['0'] : paramText.split(';');
  for (let i = 0; i < params.length; i++) {
    const p = params[i];
    const code = Number(p.split(':')[0] || '0');
    if (code === 38 || code === 48) {
      const { color, used } = extendedColor(params, i);
      if (color) {
        if (code === 38) style.fg = color;
        else style.bg = color;
      }
      i += used - 1;
      continue;
    }
    if (code === 0) Object.assign(style, plain());
    else if (code === 1) style.bold = true;
    else if (code === 2) style.dim = true;
    else if (code === 3) style.italic = true;
    else if (code === 4) style.underline = true;
    else if (code === 7) style.inverse = true;
    else if (code === 9) style.strike = true;
    else if (code === 21 || code === 22) { style.bold = false; style.dim = false; }
    else if (code === 23) style.italic = false;
    else if (code === 24) style.underline = false;
    else if (code === 27) style.inverse = false;
    else if (code === 29) style.strike = false;
    else if (code >= 30 && code <= 37) style.fg = { kind: 'index', n: code - 30 };
    else if (code === 39) style.fg = null;
    else if (code >= 40 && code <= 47) style.bg = { kind: 'index', n: code - 40 };
    else if (code === 49) style.bg = null;
    else if (code >= 90 && code <= 97) style.fg = { kind: 'index', n: code - 90 + 8 };
    else if (code >= 100 && code <= 107) style.bg = { kind: 'index', n: code - 100 + 8 };
    // Anything else (blink, fonts, overline…) is ignored.
  }
  return style;
}

// CSI (ESC [ … final), OSC (ESC ] … BEL or ST, not past a newline), charset designations,
// other two-byte ESC sequences, newlines, CR,
// and the remaining C0 controls except TAB.
const TOKEN = /\x1b\[([0-?]*)[ -/]*([@-~])|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?|\x1b[()*+#%][ -~]?|\x1b[ -~]?|\r?\n|\r|[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]|\x9b[0-?]*[ -/]*[@-~]/g;

/**
 * Parses terminal output into lines of styled spans.
 * @param text output as recorded
 */
export function parseAnsi(text: string): AnsiLine[] {
  const lines: AnsiLine[] = [];
  let line: AnsiLine = [];
  let style = plain();
  let snapshot: AnsiStyle | null = null; // frozen copy of `style` shared by spans until it changes
  let pendingCr = false;

  const push = (s: string): void => {
    if (s === '') return;
    if (pendingCr) {
      line = [];
      pendingCr = false;
    }
    if (isPlain(style)) {
      const last = line[line.length - 1];
      if (last && last.style === null) last.text += s;
      else line.push({ text: s, style: null });
      return;
    }
    if (!snapshot) snapshot = { ...style };
    const last = line[line.length - 1];
    if (last && last.style === snapshot) last.text += s;
    else line.push({ text: s, style: snapshot });
  };

  let pos = 0;
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m; m = TOKEN.exec(text)) {
    if (m.index > pos) push(text.slice(pos, m.index));
    pos = m.index + m[0].length;
    const tok = m[0];
    if (tok === '\n' || tok === '\r\n') {
      lines.push(line);
      line = [];
      pendingCr = false;
    } else if (tok === '\r') {
      pendingCr = true;
    } else if (m[2] === 'm' && tok.startsWith('\x1b[') && !/[<=>?]/.test(m[1])) {
      style = applySgr({ ...style }, m[1]);
      snapshot = null;
    }
    // every other control sequence is dropped
  }
  if (pos < text.length) push(text.slice(pos));
  lines.push(line);
  return lines;
}

/** The xterm 256-colour palette entry 16–255 as RGB (0–15 come from the theme). */
export function xtermRgb(n: number): { r: number; g: number; b: number } {
  if (n >= 232) {
    const v = 8 + (n - 232) * 10;
    return { r: v, g: v, b: v };
  }
  const i = n - 16;
  const level = (x: number): number => (x === 0 ? 0 : 55 + x * 40);
  return { r: level(Math.floor(i / 36) % 6), g: level(Math.floor(i / 6) % 6), b: level(i % 6) };
}

/** CSS colour for a colour that has no theme class (palette 16–255 or RGB); null for 0–15. */
export function cssColor(c: AnsiColor): string | null {
  if (c.kind === 'rgb') return `rgb(${c.r}, ${c.g}, ${c.b})`;
  if (c.n < 16) return null;
  const { r, g, b } = xtermRgb(c.n);
  return `rgb(${r}, ${g}, ${b})`;
}

/** Class names for a style: theme colours, attributes. 256/RGB colours are set through CSSOM by the renderer. */
export function styleClasses(s: AnsiStyle): string {
  const cls: string[] = [];
  const fg = s.inverse ? s.bg : s.fg;
  const bg = s.inverse ? s.fg : s.bg;
  if (fg?.kind === 'index' && fg.n < 16) cls.push(`ansi-${ANSI_NAMES[fg.n]}`);
  if (bg?.kind === 'index' && bg.n < 16) cls.push(`ansi-bg-${ANSI_NAMES[bg.n]}`);
  if (s.inverse) {
    if (!fg) cls.push('ansi-inverse-fg');
    if (!bg) cls.push('ansi-inverse-bg');
  }
  if (s.bold) cls.push('ansi-bold');
  if (s.dim) cls.push('ansi-dim');
  if (s.italic) cls.push('ansi-italic');
  if (s.underline) cls.push('ansi-underline');
  if (s.strike) cls.push('ansi-strike');
  return cls.join(' ');
}

/** Removes escape sequences, keeping the text (for copying, searching, line counts). */
export function stripAnsi(text: string): string {
  return parseAnsi(text).map((l) => l.map((s) => s.text).join('')).join('\n');
}
