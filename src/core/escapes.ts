/**
 * Clamping of absurd escape-sequence parameters before a terminal emulator sees them.
 *
 * A CSI sequence `ESC [ params intermediates final` (ECMA-48 §5.4; also the 8-bit CSI `0x9B`) may
 * carry numbers up to 2^31-1. Terminal emulators (xterm.js, @xterm/headless) do the work those
 * numbers ask for one unit at a time: `ESC[2147483647S` scrolls two billion lines, `ESC[2147483647b`
 * repeats a character two billion times. No screen has that many rows or columns, so a count past
 * the screen's size does nothing more than the screen's size would; clamping it keeps the
 * emulator's work per byte of input bounded (at most max(rows, cols, GENERIC_CAP) units a sequence).
 *
 * Counts clamped, by final byte (parameters of sequences with a private prefix `<=>?`, which are
 * mode numbers, are left alone):
 * - rows: `L` IL, `M` DL, `S` SU, `T` SD, `A` CUU, `B` CUD, `E` CNL, `F` CPL, `d` VPA, `e` VPR,
 *   `H`/`f` CUP (both parameters to the larger of rows/cols);
 * - cols: `@` ICH, `P` DCH, `X` ECH, `b` REP, `C` CUF, `D` CUB, `G` CHA, `` ` `` HPA, `a` HPR,
 *   `I` CHT, `Z` CBT, and `SP @` / `SP A` (scroll left / right);
 * - any other final byte: GENERIC_CAP (no standard parameter means more than that).
 *
 * Pure, no imports: used by the replay normaliser (core) and by the host before a recording goes to
 * the webview player.
 */

/**
 * Largest screen a terminal recording is played or rendered at (cells); the webview's
 * `MAX_TERM_COLS`/`MAX_TERM_ROWS` (src/shared/protocol.ts) are the same numbers (a unit test checks).
 */
export const MAX_SCREEN_COLS = 500;
export const MAX_SCREEN_ROWS = 200;

/** Upper bound of any other CSI parameter (SGR colours are ≤ 255; window sizes in cells ≤ this). */
export const GENERIC_CAP = 9999;

/** Screen size the counts are clamped to (cells). */
export interface ScreenBounds {
  rows: number;
  cols: number;
}

const ROW_FINALS = new Set(['L', 'M', 'S', 'T', 'A', 'B', 'E', 'F', 'd', 'e']);
const COL_FINALS = new Set(['@', 'P', 'X', 'b', 'C', 'D', 'G', '`', 'a', 'I', 'Z']);
const POS_FINALS = new Set(['H', 'f']);

// CSI: ESC [ or 0x9B, parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F, final byte 0x40–0x7E.
const CSI = /(\x1b\[|\x9b)([0-?]*)([ -/]*)([@-~])/g;
/** An incomplete CSI at the end of a chunk (held back by EscapeClamp until its final byte arrives). */
const CSI_TAIL = /(?:\x1b\[?|\x9b)[0-?]*[ -/]*$/;

function boundFor(final: string, inter: string, b: ScreenBounds): number {
  if (inter === ' ' && (final === '@' || final === 'A')) return Math.max(1, b.cols);
  if (inter !== '') return GENERIC_CAP;
  if (ROW_FINALS.has(final)) return Math.max(1, b.rows);
  if (COL_FINALS.has(final)) return Math.max(1, b.cols);
  if (POS_FINALS.has(final)) return Math.max(1, b.rows, b.cols);
  return GENERIC_CAP;
}

/** Result of clampEscapes: the text and how many parameters were lowered. */
export interface ClampResult {
  text: string;
  clamped: number;
}

/**
 * Lowers every CSI parameter of `text` that exceeds what the screen `bounds` allows (see the module
 * docs); everything else is kept byte for byte. Linear in the text.
 */
export function clampEscapes(text: string, bounds: ScreenBounds): ClampResult {
  if (!text.includes('\x1b') && !text.includes('\x9b')) return { text, clamped: 0 };
  let clamped = 0;
  const out = text.replace(CSI, (all: string, intro: string, params: string, inter: string, final: string) => {
    if (params === '' || /^[<=>?]/.test(params)) return all;
    const bound = boundFor(final, inter, bounds);
    let changed = false;
    const p = params.replace(/\d+/g, (d) => {
      // Compare by length first: a run of a million digits is not worth Number().
      if (d.length > 10 || Number(d) > bound) {
        changed = true;
        return String(bound);
      }
      return d;
    });
    if (!changed) return all;
    clamped++;
    return intro + p + inter + final;
  });
  return { text: out, clamped };
}

/**
 * The same clamping over a stream of chunks (recorded output events), where a sequence may be cut
 * between two chunks: an incomplete CSI at the end of a chunk is held back and written at the start
 * of the next (`flush` returns what is left at the end). A held-back tail longer than
 * MAX_HELD chars is no real sequence; it is released clamped as it is.
 */
export class EscapeClamp {
  static readonly MAX_HELD = 256;
  private held = '';
  /** Parameters lowered so far. */
  clamped = 0;

  /** `held`: an incomplete sequence carried over from an earlier stream position (`pending` of another clamp). */
  constructor(
    private bounds: ScreenBounds,
    held = '',
  ) {
    this.held = held;
  }

  /** The incomplete sequence held back now (to resume the stream elsewhere with the same state). */
  get pending(): string {
    return this.held;
  }

  /** New screen size (an asciicast resize event). */
  resize(bounds: ScreenBounds): void {
    this.bounds = bounds;
  }

  /** Returns the chunk clamped, less any incomplete sequence at its end (kept for the next chunk). */
  push(chunk: string): string {
    let text = this.held + chunk;
    this.held = '';
    const tail = CSI_TAIL.exec(text.length > EscapeClamp.MAX_HELD * 2 ? text.slice(-EscapeClamp.MAX_HELD * 2) : text);
    if (tail && tail[0].length <= EscapeClamp.MAX_HELD) {
      this.held = tail[0];
      text = text.slice(0, text.length - tail[0].length);
    }
    const r = clampEscapes(text, this.bounds);
    this.clamped += r.clamped;
    return r.text;
  }

  /** What is held back at the end of the stream, clamped as it is. */
  flush(): string {
    const rest = this.held.replace(/\d{5,}/g, (d) => (d.length > 10 || Number(d) > GENERIC_CAP ? String(GENERIC_CAP) : d));
    this.held = '';
    return rest;
  }
}
