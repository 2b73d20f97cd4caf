/**
 * A rollout as one self-contained HTML file (*Export Rollout as HTML…*, `export-rollout --as html`):
 * a static render of the timeline — the header with task, agent, model, outcome and a strip of the
 * steps' scores and labels, then one card per step with its role, tokens, time, cost, score and
 * label, the message, the reasoning folded, each action (command in a block, tool name and
 * arguments), and each output with its ANSI colours (src/shared/ansi.ts), long ones folded.
 *
 * Safe to open anywhere: every text of the rollout is escaped (never markup), there is no script at
 * all, and a Content-Security-Policy meta tag allows nothing but the page's one inline stylesheet
 * (by its hash): no network, no script, no frame, no form. 256-colour and RGB ANSI colours take the
 * nearest of the 16 theme colours (an inline `style` attribute would need `'unsafe-inline'`).
 * Pure (no DOM, no Node API): the stylesheet's SHA-256 comes from the caller (`sha256Base64`,
 * core/export/sha256.ts), as this module is also type-checked for the webview.
 */
import { ANSI_NAMES, parseAnsi, styleClasses, xtermRgb, type AnsiColor, type AnsiStyle } from './ansi';
import type { Rollout, Step } from './model';

/** What the page shows beside the rollout. */
export interface HtmlExportOptions {
  /** SHA-256 (base64) of a text: the page's CSP allows its stylesheet by this hash (core/export/sha256.ts). */
  sha256: (text: string) => string;
  /** Steps to export: 0-based, `to` exclusive (default: all). */
  from?: number;
  to?: number;
  /** Per-step score (0–1) by step index. */
  scores?: ReadonlyMap<number, number>;
  /** Per-step label (+1 / 0 / −1) by step index. */
  labels?: ReadonlyMap<number, 1 | 0 | -1>;
  /** Outputs longer than this many lines are folded (default 20). */
  foldLines?: number;
  /** Longest text kept of one message / output (characters; default 50,000). */
  maxChars?: number;
  /** The file's name as the reader should see it. */
  sourceName?: string;
  /** A line for the page's foot (what was redacted). */
  footer?: string;
}

/** Text as HTML text or attribute value. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#39;'));
}

// The 16 theme colours (VS Code's dark terminal defaults).
const PALETTE: [number, number, number][] = [
  [0, 0, 0], [205, 49, 49], [13, 188, 121], [229, 229, 16], [36, 114, 200], [188, 63, 188], [17, 168, 205], [229, 229, 229],
  [102, 102, 102], [241, 76, 76], [35, 209, 139], [245, 245, 67], [59, 142, 234], [214, 112, 214], [41, 184, 219], [255, 255, 255],
];
const HEX = PALETTE.map(([r, g, b]) => `#${[r, g, b].map((x) => x.toString(16).padStart(2, '0')).join('')}`);

/** The nearest theme colour (0–15) of any ANSI colour. */
function nearest(c: AnsiColor): AnsiColor {
  if (c.kind === 'index' && c.n < 16) return c;
  const { r, g, b } = c.kind === 'rgb' ? c : xtermRgb(c.n);
  let best = 0;
  let bestD = Infinity;
  PALETTE.forEach(([pr, pg, pb], i) => {
    const d = (pr - r) ** 2 + (pg - g) ** 2 + (pb - b) ** 2;
    if (d < bestD) [best, bestD] = [i, d];
  });
  return { kind: 'index', n: best };
}

const CSS = [
  'body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;background:#1e1e1e;color:#d4d4d4}',
  'header,main,footer{max-width:1100px;margin:0 auto;padding:12px 20px}',
  'h1{font-size:20px;margin:8px 0}dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:8px 0}dt{color:#9d9d9d}dd{margin:0}',
  '.strip{display:flex;gap:1px;margin:10px 0;height:12px}.strip a{flex:1;min-width:2px;background:#3c3c3c}',
  '.good{background:#2e7d32!important}.bad{background:#c62828!important}.mid{background:#b08b00!important}',
  'article{border:1px solid #3c3c3c;border-left:4px solid #3c3c3c;border-radius:4px;margin:10px 0;padding:8px 12px;background:#252526}',
  'article.agent{border-left-color:#3794ff}article.user{border-left-color:#89d185}article.system{border-left-color:#9d9d9d}article.environment{border-left-color:#cca700}',
  'article:target{outline:2px solid #3794ff}',
  'h2{font-size:13px;margin:0 0 6px;display:flex;gap:10px;flex-wrap:wrap;align-items:baseline}h2 a{color:#d4d4d4;text-decoration:none;font-weight:700}',
  '.role{text-transform:uppercase;color:#3794ff;font-weight:600}.meta{color:#9d9d9d}',
  '.chip{border-radius:3px;padding:0 5px;color:#fff}',
  '.msg{white-space:pre-wrap;overflow-wrap:anywhere}',
  'pre{background:#1e1e1e;border:1px solid #3c3c3c;border-radius:3px;padding:6px 8px;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere;font:12.5px/1.4 ui-monospace,Menlo,Consolas,monospace;margin:6px 0}',
  '.what{color:#9d9d9d;font-size:12px;margin-top:6px}summary{cursor:pointer;color:#9d9d9d;font-size:12px}',
  'footer{color:#9d9d9d;font-size:12px}',
  ...ANSI_NAMES.map((n, i) => `.ansi-${n}{color:${HEX[i]}}.ansi-bg-${n}{background:${HEX[i]}}`),
  '.ansi-bold{font-weight:700}.ansi-dim{opacity:.7}.ansi-italic{font-style:italic}.ansi-underline{text-decoration:underline}.ansi-strike{text-decoration:line-through}',
  '.ansi-inverse-fg{color:#1e1e1e}.ansi-inverse-bg{background:#d4d4d4}',
].join('\n');

/** Terminal output as escaped HTML spans with the ANSI colours as classes. */
export function ansiHtml(text: string): string {
  return parseAnsi(text)
    .map((line) =>
      line
        .map((span) => {
          if (!span.style) return escapeHtml(span.text);
          const s: AnsiStyle = { ...span.style, fg: span.style.fg && nearest(span.style.fg), bg: span.style.bg && nearest(span.style.bg) };
          const cls = styleClasses(s);
          return cls ? `<span class="${escapeHtml(cls)}">${escapeHtml(span.text)}</span>` : escapeHtml(span.text);
        })
        .join(''),
    )
    .join('\n');
}

const cut = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max)}\n… (${s.length - max} more characters not exported)` : s);
const scoreClass = (v: number): string => (v >= 0.67 ? 'good' : v < 0.34 ? 'bad' : 'mid');
const labelClass = (v: 1 | 0 | -1): string => (v > 0 ? 'good' : v < 0 ? 'bad' : 'mid');
const labelText = (v: 1 | 0 | -1): string => (v > 0 ? '+1 good' : v < 0 ? '−1 bad' : '0 neutral');

function stepHtml(step: Step, o: Required<Pick<HtmlExportOptions, 'foldLines' | 'maxChars'>> & HtmlExportOptions): string {
  const id = `step-${step.index + 1}`;
  const meta: string[] = [];
  const t = step.tokens;
  if (t && (t.prompt !== null || t.completion !== null)) meta.push(`${t.prompt ?? '?'} → ${t.completion ?? '?'} tok`);
  if (step.durationSec !== null) meta.push(`${step.durationSec < 10 ? step.durationSec.toFixed(1) : Math.round(step.durationSec)} s`);
  if (step.costUsd !== null) meta.push(`$${step.costUsd.toFixed(4)}`);
  const score = o.scores?.get(step.index);
  const label = o.labels?.get(step.index);
  const parts: string[] = [
    `<h2><a href="#${id}">#${step.index + 1}</a><span class="role">${escapeHtml(step.role)}</span>`
      + (step.event ? `<span class="meta">${escapeHtml(step.event.label)}</span>` : '')
      + (score !== undefined ? `<span class="chip ${scoreClass(score)}">score ${score.toFixed(2)}</span>` : '')
      + (label !== undefined ? `<span class="chip ${labelClass(label)}">label ${labelText(label)}</span>` : '')
      + (meta.length ? `<span class="meta">${escapeHtml(meta.join(' · '))}</span>` : '')
      + '</h2>',
  ];
  if (step.message.trim()) parts.push(`<div class="msg">${escapeHtml(cut(step.message.trim(), o.maxChars))}</div>`);
  if (step.reasoning?.trim()) parts.push(`<details><summary>Reasoning</summary><div class="msg">${escapeHtml(cut(step.reasoning.trim(), o.maxChars))}</div></details>`);
  for (const a of step.actions) {
    if (a.command !== null && (a.kind === 'shell' || a.kind === 'keystrokes')) {
      parts.push(`<div class="what">${a.kind === 'shell' ? 'command' : 'keys'}${a.tool ? ` · ${escapeHtml(a.tool)}` : ''}</div><pre>${ansiHtml(cut(a.command, o.maxChars))}</pre>`);
    } else {
      const args = a.arguments === undefined ? '' : typeof a.arguments === 'string' ? a.arguments : JSON.stringify(a.arguments, null, 2);
      const what = a.kind === 'file_edit' ? `edit${a.path ? ` ${a.path}` : ''}` : a.kind === 'finish' ? 'finish' : 'tool';
      parts.push(`<div class="what">${escapeHtml(what)} · ${escapeHtml(a.tool ?? a.kind)}</div>${args ? `<pre>${escapeHtml(cut(args, o.maxChars))}</pre>` : ''}`);
    }
  }
  for (const obs of step.observations) {
    if (!obs.output.trim()) continue;
    const text = cut(obs.output, o.maxChars);
    const tags = [obs.exitCode !== null ? `exit ${obs.exitCode}` : null, obs.isError ? 'error' : null, obs.truncated ? 'cut by the source' : null].filter(Boolean).join(', ');
    const lines = text.split('\n').length;
    const title = `output${tags ? ` (${tags})` : ''}`;
    const pre = `<pre>${ansiHtml(text)}</pre>`;
    parts.push(lines > o.foldLines ? `<details><summary>${escapeHtml(title)}, ${lines} lines</summary>${pre}</details>` : `<div class="what">${escapeHtml(title)}</div>${pre}`);
  }
  return `<article class="${escapeHtml(step.role)}" id="${id}">${parts.join('\n')}</article>`;
}

/** The page's Content-Security-Policy: nothing but its own stylesheet (`sha256`: as HtmlExportOptions). */
export function exportCsp(sha256: (text: string) => string, css: string = CSS): string {
  const hash = sha256(css);
  return `default-src 'none'; style-src 'sha256-${hash}'; img-src 'none'; script-src 'none'; base-uri 'none'; form-action 'none'`;
}

/** The self-contained HTML page of `rollout` (see the module docs). */
export function rolloutHtml(rollout: Rollout, options: HtmlExportOptions): string {
  const o = { foldLines: 20, maxChars: 50_000, ...options };
  const n = rollout.steps.length;
  const from = Math.max(0, Math.min(n, o.from ?? 0));
  const to = Math.max(from, Math.min(n, o.to ?? n));
  const steps = rollout.steps.slice(from, to);
  const title = rollout.task.id ?? o.sourceName ?? rollout.id;
  const out = rollout.outcome;
  const rows: [string, string | null][] = [
    ['rollout', rollout.id],
    ['agent', [rollout.agent.name, rollout.agent.version].filter(Boolean).join(' ') || null],
    ['model', rollout.agent.model],
    ['outcome', [out.reward !== null ? `reward ${out.reward}` : null, out.resolved === null ? null : out.resolved ? 'resolved' : 'not resolved', out.status].filter(Boolean).join(', ') || null],
    ['source', `${o.sourceName ?? rollout.source.path} (${rollout.format})`],
    ['steps', from === 0 && to === n ? String(n) : `#${from + 1}–#${to} of ${n}`],
  ];
  const strip = steps
    .map((s) => {
      const v = o.scores?.get(s.index);
      const l = o.labels?.get(s.index);
      const cls = l !== undefined ? labelClass(l) : v !== undefined ? scoreClass(v) : '';
      const tip = [`#${s.index + 1}`, v !== undefined ? `score ${v.toFixed(2)}` : null, l !== undefined ? `label ${labelText(l)}` : null].filter(Boolean).join(' · ');
      return `<a href="#step-${s.index + 1}" title="${escapeHtml(tip)}"${cls ? ` class="${cls}"` : ''}></a>`;
    })
    .join('');
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(exportCsp(o.sha256))}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta name="generator" content="Trajectory Inspector">`,
    `<title>${escapeHtml(title)}</title>`,
    `<style>${CSS}</style>`,
    '</head><body>',
    `<header><h1>${escapeHtml(title)}</h1><dl>${rows.filter(([, v]) => v).map(([k, v]) => `<dt>${k}</dt><dd>${escapeHtml(v!)}</dd>`).join('')}</dl>`,
    rollout.task.instruction?.trim() ? `<details><summary>Task</summary><div class="msg">${escapeHtml(cut(rollout.task.instruction.trim(), o.maxChars))}</div></details>` : '',
    `<nav class="strip" aria-label="steps">${strip}</nav></header>`,
    `<main>${steps.map((s) => stepHtml(s, o)).join('\n')}</main>`,
    `<footer>Exported by Trajectory Inspector${o.footer ? ` · ${escapeHtml(o.footer)}` : ''}</footer>`,
    '</body></html>',
    '',
  ].join('\n');
}
