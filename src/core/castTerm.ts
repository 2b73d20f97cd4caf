/**
 * A headless terminal (@xterm/headless, the emulator of the webview's xterm.js without a screen)
 * that a recording's output is written to while the host indexes it, and whose screen is taken as a
 * snapshot: an escape-sequence text that, written to a freshly reset terminal of the same size,
 * draws the same screen (every cell's character, colours and attributes, the active buffer, the
 * cursor position). The player starts from the snapshot nearest before a seek instead of replaying
 * the recording from its start.
 *
 * Not kept by a snapshot: scrollback, the scroll region, tab stops, charsets, the pen's current
 * colours and modes other than the alternate screen; output after a snapshot that relies on them
 * draws as it would in a terminal started at that point (the screen itself is right).
 */
import { Terminal } from '@xterm/headless';

type Cell = NonNullable<ReturnType<NonNullable<ReturnType<Terminal['buffer']['active']['getLine']>>['getCell']>>;

/** SGR parameters of a cell's colours and attributes (after a reset). */
function sgrOf(c: Cell): string {
  const p: (number | string)[] = [];
  if (c.isBold()) p.push(1);
  if (c.isDim()) p.push(2);
  if (c.isItalic()) p.push(3);
  if (c.isUnderline()) p.push(4);
  if (c.isBlink()) p.push(5);
  if (c.isInverse()) p.push(7);
  if (c.isInvisible()) p.push(8);
  if (c.isStrikethrough()) p.push(9);
  if (c.isOverline()) p.push(53);
  if (c.isFgRGB()) {
    const v = c.getFgColor();
    p.push(`38;2;${(v >> 16) & 255};${(v >> 8) & 255};${v & 255}`);
  } else if (c.isFgPalette()) p.push(`38;5;${c.getFgColor()}`);
  if (c.isBgRGB()) {
    const v = c.getBgColor();
    p.push(`48;2;${(v >> 16) & 255};${(v >> 8) & 255};${v & 255}`);
  } else if (c.isBgPalette()) p.push(`48;5;${c.getBgColor()}`);
  return p.join(';');
}

/** The screen of `term`'s active buffer as escape text (see the module docs). */
export function serializeScreen(term: Terminal): string {
  const buf = term.buffer.active;
  const out: string[] = [];
  if (buf.type === 'alternate') out.push('\x1b[?1049h');
  const cell = buf.getNullCell();
  for (let y = 0; y < term.rows; y++) {
    const line = buf.getLine(buf.baseY + y);
    if (!line) continue;
    // Trailing default blank cells are what a reset screen has already.
    let end = term.cols;
    while (end > 0) {
      const c = line.getCell(end - 1, cell);
      if (!c || (c.getChars() !== '' && c.getChars() !== ' ') || !c.isAttributeDefault()) break;
      end--;
    }
    if (end === 0) continue;
    out.push(`\x1b[${y + 1};1H`);
    let sgr = '';
    for (let x = 0; x < end; x++) {
      const c = line.getCell(x, cell);
      if (!c || c.getWidth() === 0) continue;
      const s = sgrOf(c);
      if (s !== sgr) {
        out.push(s ? `\x1b[0;${s}m` : '\x1b[0m');
        sgr = s;
      }
      out.push(c.getChars() || ' ');
    }
    if (sgr) out.push('\x1b[0m');
  }
  out.push(`\x1b[${buf.cursorY + 1};${Math.min(buf.cursorX, term.cols - 1) + 1}H`);
  return out.join('');
}

/** A headless terminal fed a recording's (clamped) output, whose screen can be snapshot. */
export class SnapshotTerminal {
  private readonly term: Terminal;

  constructor(cols: number, rows: number) {
    this.term = new Terminal({ cols, rows, scrollback: 0, allowProposedApi: true });
  }

  get cols(): number {
    return this.term.cols;
  }

  get rows(): number {
    return this.term.rows;
  }

  /** Writes output; resolves once it is parsed. */
  write(data: string): Promise<void> {
    return new Promise((resolve) => this.term.write(data, resolve));
  }

  resize(cols: number, rows: number): void {
    if (cols !== this.term.cols || rows !== this.term.rows) this.term.resize(cols, rows);
  }

  /** The screen now (call after the writes before it resolved). */
  snapshot(): string {
    return serializeScreen(this.term);
  }

  dispose(): void {
    this.term.dispose();
  }
}
