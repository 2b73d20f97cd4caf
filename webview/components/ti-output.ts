/**
 * `<ti-output>`: terminal output with ANSI colours. Theme colours (palette 0–15) are classes mapped
 * to VS Code's terminal colour variables; 256-colour and RGB values are set through CSSOM
 * (`el.style`), never a `style` attribute, so the strict CSP holds. Text goes through Lit text
 * bindings only, so HTML in an output stays text.
 *
 * Long outputs are collapsed to their first and last lines with a "show all" bar in between.
 */
import { LitElement, css, html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { ref } from 'lit/directives/ref.js';
import { cssColor, parseAnsi, styleClasses, type AnsiLine, type AnsiSpan, type AnsiStyle } from '../../src/shared/ansi';
import { formatCount } from '../format';
import { markTemplate, MATCH_CSS } from '../highlight';
import { findMatches, rangesPerPiece, splitAtMatches, type HighlightQuery } from '../../src/shared/highlight';

/** Even "show all" stops here; the rest is one click away in the source file. */
const HARD_LINE_LIMIT = 5000;
/** Characters of one line shown while collapsed. */
const COLLAPSED_LINE_CHARS = 2000;

function applyColors(el: Element | undefined, s: AnsiStyle): void {
  if (!(el instanceof HTMLElement)) return;
  const fg = s.inverse ? s.bg : s.fg;
  const bg = s.inverse ? s.fg : s.bg;
  const fgCss = fg ? cssColor(fg) : null;
  const bgCss = bg ? cssColor(bg) : null;
  if (fgCss) el.style.color = fgCss;
  if (bgCss) el.style.backgroundColor = bgCss;
}

/** Marked matches of each span (offsets into the span's text), when a search's matches are shown. */
type SpanMarks = WeakMap<AnsiSpan, [number, number][]>;

function renderSpan(span: AnsiSpan, maxChars: number, marks?: SpanMarks): TemplateResult | string | (TemplateResult | string)[] {
  const cut = span.text.length > maxChars;
  const ranges = marks?.get(span);
  const plain = cut ? `${span.text.slice(0, maxChars)}…` : span.text;
  const text = ranges?.length
    ? splitAtMatches(plain, ranges.filter(([a]) => a < maxChars).map(([a, b]): [number, number] => [a, Math.min(b, maxChars)])).map((p) => (p.mark ? markTemplate(p.text) : p.text))
    : plain;
  if (!span.style) return text;
  const s = span.style;
  const needsCssom = (s.fg && cssColor(s.fg) !== null) || (s.bg && cssColor(s.bg) !== null);
  return needsCssom
    ? html`<span class=${styleClasses(s)} ${ref((el) => applyColors(el, s))}>${text}</span>`
    : html`<span class=${styleClasses(s)}>${text}</span>`;
}

function renderLine(line: AnsiLine, maxChars: number, marks?: SpanMarks): unknown[] {
  let budget = maxChars;
  const out: unknown[] = [];
  for (const span of line) {
    if (budget <= 0) break;
    out.push(renderSpan(span, budget, marks));
    budget -= span.text.length;
  }
  out.push('\n');
  return out;
}

@customElement('ti-output')
export class TiOutput extends LitElement {
  static override styles = [MATCH_CSS, css`
    :host {
      display: block;
    }
    pre {
      margin: 0;
      padding: 6px 8px;
      font-family: var(--vscode-editor-font-family, monospace);
      font-size: var(--vscode-editor-font-size, 12px);
      line-height: 1.45;
      white-space: pre-wrap;
      overflow-wrap: anywhere;
      color: var(--vscode-terminal-foreground, var(--vscode-editor-foreground));
      background: var(--vscode-terminal-background, var(--vscode-textCodeBlock-background, transparent));
      border-radius: 3px;
      tab-size: 8;
    }
    .empty {
      font-style: italic;
      opacity: 0.7;
    }
    .elided {
      display: flex;
      align-items: center;
      gap: 8px;
      margin: 2px 0;
      padding: 2px 8px;
      font-family: var(--vscode-font-family, sans-serif);
      font-size: 11px;
      color: var(--vscode-descriptionForeground);
      background: var(--vscode-editorWidget-background, rgba(128, 128, 128, 0.1));
      border-radius: 3px;
    }
    .elided button,
    .more button {
      font: inherit;
      color: var(--vscode-textLink-foreground);
      background: none;
      border: none;
      padding: 0;
      cursor: pointer;
    }
    .elided button:hover,
    .more button:hover {
      text-decoration: underline;
    }
    .more {
      font-family: var(--vscode-font-family, sans-serif);
      font-size: 11px;
      color: var(--vscode-descriptionForeground);
      padding: 2px 8px;
    }
    .ansi-black { color: var(--vscode-terminal-ansiBlack, #000000); }
    .ansi-red { color: var(--vscode-terminal-ansiRed, #cd3131); }
    .ansi-green { color: var(--vscode-terminal-ansiGreen, #0dbc79); }
    .ansi-yellow { color: var(--vscode-terminal-ansiYellow, #e5e510); }
    .ansi-blue { color: var(--vscode-terminal-ansiBlue, #2472c8); }
    .ansi-magenta { color: var(--vscode-terminal-ansiMagenta, #bc3fbc); }
    .ansi-cyan { color: var(--vscode-terminal-ansiCyan, #11a8cd); }
    .ansi-white { color: var(--vscode-terminal-ansiWhite, #e5e5e5); }
    .ansi-bright-black { color: var(--vscode-terminal-ansiBrightBlack, #666666); }
    .ansi-bright-red { color: var(--vscode-terminal-ansiBrightRed, #f14c4c); }
    .ansi-bright-green { color: var(--vscode-terminal-ansiBrightGreen, #23d18b); }
    .ansi-bright-yellow { color: var(--vscode-terminal-ansiBrightYellow, #f5f543); }
    .ansi-bright-blue { color: var(--vscode-terminal-ansiBrightBlue, #3b8eea); }
    .ansi-bright-magenta { color: var(--vscode-terminal-ansiBrightMagenta, #d670d6); }
    .ansi-bright-cyan { color: var(--vscode-terminal-ansiBrightCyan, #29b8db); }
    .ansi-bright-white { color: var(--vscode-terminal-ansiBrightWhite, #e5e5e5); }
    .ansi-bg-black { background-color: var(--vscode-terminal-ansiBlack, #000000); }
    .ansi-bg-red { background-color: var(--vscode-terminal-ansiRed, #cd3131); }
    .ansi-bg-green { background-color: var(--vscode-terminal-ansiGreen, #0dbc79); }
    .ansi-bg-yellow { background-color: var(--vscode-terminal-ansiYellow, #e5e510); }
    .ansi-bg-blue { background-color: var(--vscode-terminal-ansiBlue, #2472c8); }
    .ansi-bg-magenta { background-color: var(--vscode-terminal-ansiMagenta, #bc3fbc); }
    .ansi-bg-cyan { background-color: var(--vscode-terminal-ansiCyan, #11a8cd); }
    .ansi-bg-white { background-color: var(--vscode-terminal-ansiWhite, #e5e5e5); }
    .ansi-bg-bright-black { background-color: var(--vscode-terminal-ansiBrightBlack, #666666); }
    .ansi-bg-bright-red { background-color: var(--vscode-terminal-ansiBrightRed, #f14c4c); }
    .ansi-bg-bright-green { background-color: var(--vscode-terminal-ansiBrightGreen, #23d18b); }
    .ansi-bg-bright-yellow { background-color: var(--vscode-terminal-ansiBrightYellow, #f5f543); }
    .ansi-bg-bright-blue { background-color: var(--vscode-terminal-ansiBrightBlue, #3b8eea); }
    .ansi-bg-bright-magenta { background-color: var(--vscode-terminal-ansiBrightMagenta, #d670d6); }
    .ansi-bg-bright-cyan { background-color: var(--vscode-terminal-ansiBrightCyan, #29b8db); }
    .ansi-bg-bright-white { background-color: var(--vscode-terminal-ansiBrightWhite, #e5e5e5); }
    .ansi-inverse-fg { color: var(--vscode-terminal-background, var(--vscode-editor-background)); }
    .ansi-inverse-bg { background-color: var(--vscode-terminal-foreground, var(--vscode-editor-foreground)); }
    .ansi-bold { font-weight: bold; }
    .ansi-dim { opacity: 0.6; }
    .ansi-italic { font-style: italic; }
    .ansi-underline { text-decoration: underline; }
    .ansi-strike { text-decoration: line-through; }
  `];

  /** The output text as recorded. */
  @property({ attribute: false }) text = '';
  /** Lines shown before the rest is folded away; 0 shows everything. */
  @property({ type: Number }) maxLines = 20;
  /** A search's query whose matches are marked, in the text as shown (ANSI escapes removed, across colour changes); null: none. */
  @property({ attribute: false }) highlight: HighlightQuery | null = null;

  @state() private showAll = false;
  private lines: AnsiLine[] = [];
  private marks: SpanMarks | undefined;

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('text')) {
      // Drop one trailing newline so "foo\n" is one line, not two.
      const t = this.text.endsWith('\n') ? this.text.slice(0, -1) : this.text;
      this.lines = t === '' ? [] : parseAnsi(t);
      this.showAll = false;
    }
    if (changed.has('text') || changed.has('highlight')) this.marks = this.findMarks();
  }

  /** The matches of `highlight` in the visible text, span by span (a line break between lines). */
  private findMarks(): SpanMarks | undefined {
    if (!this.highlight || !this.lines.length) return undefined;
    const spans = this.lines.flatMap((l) => [...l, null]);
    const visible = spans.map((sp) => (sp ? sp.text : '\n')).join('');
    const ranges = findMatches(visible, this.highlight);
    if (!ranges.length) return undefined;
    const per = rangesPerPiece(spans.map((sp) => (sp ? sp.text.length : 1)), ranges);
    const marks: SpanMarks = new WeakMap();
    spans.forEach((sp, i) => sp && per[i].length && marks.set(sp, per[i]));
    return marks;
  }

  /** Number of lines of the output (after ANSI processing). */
  get lineCount(): number {
    return this.lines.length;
  }

  private expand(e: Event): void {
    e.stopPropagation();
    this.showAll = true;
  }

  private collapse(e: Event): void {
    e.stopPropagation();
    this.showAll = false;
  }

  override render(): TemplateResult {
    const lines = this.lines;
    if (lines.length === 0) return html`<pre class="empty">(no output)</pre>`;
    const limit = this.maxLines;
    const collapsed = !this.showAll && limit > 0 && lines.length > limit + 2;
    if (collapsed) {
      const head = Math.ceil(limit / 2);
      const tail = limit - head;
      const hidden = lines.length - head - tail;
      return html`<pre class="output">${lines.slice(0, head).map((l) => renderLine(l, COLLAPSED_LINE_CHARS, this.marks))}</pre>
        <div class="elided">
          <span>⋯ ${formatCount(hidden)} more ${hidden === 1 ? 'line' : 'lines'}</span>
          <button class="show-all" @click=${this.expand}>Show all ${formatCount(lines.length)} lines</button>
        </div>
        ${tail > 0 ? html`<pre class="output">${lines.slice(lines.length - tail).map((l) => renderLine(l, COLLAPSED_LINE_CHARS, this.marks))}</pre>` : nothing}`;
    }
    const shown = lines.length > HARD_LINE_LIMIT ? lines.slice(0, HARD_LINE_LIMIT) : lines;
    return html`<pre class="output">${shown.map((l) => renderLine(l, Number.MAX_SAFE_INTEGER, this.marks))}</pre>
      ${lines.length > HARD_LINE_LIMIT
        ? html`<div class="more">${formatCount(lines.length - HARD_LINE_LIMIT)} more lines not shown — use Show in Source to read them all.</div>`
        : nothing}
      ${this.showAll && limit > 0 && lines.length > limit + 2
        ? html`<div class="more"><button @click=${this.collapse}>Show less</button></div>`
        : nothing}`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'ti-output': TiOutput;
  }
}
