/**
 * `<ti-compare>`: the compare page (two rollouts with their steps aligned) and the group page (every
 * rollout of one GRPO group against the best). Renders only what the host sends (src/shared/
 * compareProtocol.ts), as Lit text bindings: rollout text is never parsed as HTML.
 *
 * Compare: a header per side (file, task, model, reward, outcome), counts of same / changed / only
 * left / only right rows, the first divergence with a jump (and, for a branch compared with its
 * parent, the row where it forked, which the view opens at), then one row per aligned pair: each side's
 * step (number, role, command, exit codes, output, labels, score) and, for a changed pair, inline
 * diffs of the command, output and message. "Only differences" folds runs of same rows. Keys:
 * n / p next / previous difference, d first divergence. Clicking a step number opens that side's
 * rollout in the timeline at that step.
 */
import { LitElement, css, html, nothing, type TemplateResult } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import {
  type CompareHostMessage,
  type CompareLabelView,
  type CompareMessage,
  type CompareRowView,
  type CompareSideView,
  type CompareStepView,
  type CompareWebviewMessage,
  type DiffSegment,
  type GroupMessage,
  type TextDiffView,
} from '../../src/shared/compareProtocol';
import { onCompareMessage, postCompare } from '../ipc';

const post = (m: CompareWebviewMessage): void => postCompare(m);

const STATUS_TEXT: Record<CompareRowView['status'], string> = { same: 'same', changed: 'changed', 'only-left': 'only left', 'only-right': 'only right' };

function reward(x: number | null): string {
  if (x === null) return '—';
  return Number.isInteger(x) ? x.toFixed(1) : String(Math.round(x * 1000) / 1000);
}
function outcome(resolved: boolean | null): string {
  return resolved === true ? 'resolved' : resolved === false ? 'failed' : 'outcome unknown';
}
function labelText(l: CompareLabelView): string {
  const v = l.value === 1 ? '+1' : l.value === -1 ? '−1' : '0';
  return `${l.source} ${v}${l.firstError ? ' first error' : ''}`;
}

@customElement('ti-compare')
export class TiCompare extends LitElement {
  @state() private view: CompareHostMessage | null = null;
  @state() private onlyDiffs = false;
  @state() private current = -1;

  static override styles = css`
    :host { display: block; padding: 8px 12px 40px; font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); }
    h1 { font-size: 1.15em; margin: 4px 0 8px; font-weight: 600; }
    .sides { display: grid; grid-template-columns: 1fr 1fr; gap: 8px; margin-bottom: 8px; }
    .side { border: 1px solid var(--vscode-panel-border, #8884); border-radius: 4px; padding: 6px 8px; }
    .side .name { font-weight: 600; word-break: break-all; }
    .muted { color: var(--vscode-descriptionForeground); }
    .bar { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 6px 0 10px; }
    .chip { border-radius: 10px; padding: 1px 8px; border: 1px solid var(--vscode-panel-border, #8884); white-space: nowrap; }
    .chip.same { opacity: 0.8; }
    .chip.changed, .row.changed > .status { border-color: var(--vscode-editorWarning-foreground, #cca700); }
    .chip.only-left, .row.only-left > .status { border-color: var(--vscode-gitDecoration-deletedResourceForeground, #c74e39); }
    .chip.only-right, .row.only-right > .status { border-color: var(--vscode-gitDecoration-addedResourceForeground, #81b88b); }
    button { font: inherit; color: var(--vscode-button-secondaryForeground, inherit); background: var(--vscode-button-secondaryBackground, #8882); border: 1px solid transparent; border-radius: 3px; padding: 1px 8px; cursor: pointer; }
    button:hover { background: var(--vscode-button-secondaryHoverBackground, #8884); }
    button:focus-visible { outline: 1px solid var(--vscode-focusBorder); }
    button.link { background: none; padding: 0; color: var(--vscode-textLink-foreground); text-decoration: underline; }
    .rows { display: flex; flex-direction: column; gap: 4px; }
    .row { display: grid; grid-template-columns: 1fr 76px 1fr; gap: 6px; border-radius: 4px; padding: 4px; }
    .row.current { outline: 1px solid var(--vscode-focusBorder); }
    .row.divergence { box-shadow: inset 3px 0 0 var(--vscode-editorWarning-foreground, #cca700); }
    .row.fork { box-shadow: inset 3px 0 0 var(--vscode-gitDecoration-addedResourceForeground, #81b88b); }
    .status { align-self: start; text-align: center; border: 1px solid var(--vscode-panel-border, #8884); border-radius: 10px; font-size: 0.85em; padding: 1px 2px; }
    .cell { min-width: 0; border: 1px solid var(--vscode-panel-border, #8884); border-radius: 4px; padding: 4px 6px; }
    .cell.empty { border-style: dashed; opacity: 0.5; }
    .head { display: flex; gap: 6px; align-items: baseline; flex-wrap: wrap; }
    .role { font-size: 0.85em; text-transform: uppercase; }
    pre { margin: 4px 0 0; white-space: pre-wrap; word-break: break-word; font-family: var(--vscode-editor-font-family, monospace); font-size: var(--vscode-editor-font-size, 12px); max-height: 16em; overflow: auto; background: var(--vscode-textCodeBlock-background, #8881); padding: 3px 5px; border-radius: 3px; }
    .diff { grid-column: 1 / -1; border-left: 3px solid var(--vscode-editorWarning-foreground, #cca700); padding-left: 6px; }
    .diff .what { font-size: 0.85em; }
    del { background: var(--vscode-diffEditor-removedTextBackground, #c74e3944); text-decoration: line-through; }
    ins { background: var(--vscode-diffEditor-insertedTextBackground, #81b88b44); text-decoration: none; }
    .labels { display: inline-flex; gap: 4px; flex-wrap: wrap; }
    .label.bad { color: var(--vscode-errorForeground); }
    .label.good { color: var(--vscode-testing-iconPassed, #73c991); }
    .fold { text-align: center; }
    table { border-collapse: collapse; width: 100%; }
    th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid var(--vscode-panel-border, #8884); }
    tr.best td { font-weight: 600; }
    .error { color: var(--vscode-errorForeground); white-space: pre-wrap; }
  `;

  override connectedCallback(): void {
    super.connectedCallback();
    this.unlisten = onCompareMessage(this.onMessage);
    window.addEventListener('keydown', this.onKey);
    post({ type: 'ready' });
  }

  override disconnectedCallback(): void {
    this.unlisten?.();
    this.unlisten = null;
    window.removeEventListener('keydown', this.onKey);
    super.disconnectedCallback();
  }

  private unlisten: (() => void) | null = null;

  private readonly onMessage = (m: CompareHostMessage): void => {
    this.view = m;
    this.current = -1;
    // A branch compared with its parent opens at the fork.
    if (m.type === 'compare' && m.fork) this.showRow(m.fork.row);
  };

  private readonly onKey = (e: KeyboardEvent): void => {
    if (this.view?.type !== 'compare' || e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target as HTMLElement | null;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA')) return;
    if (e.key === 'n') this.moveDiff(1);
    else if (e.key === 'p') this.moveDiff(-1);
    else if (e.key === 'd') this.jumpToDivergence();
    else return;
    e.preventDefault();
  };

  private diffRows(): number[] {
    const v = this.view;
    if (v?.type !== 'compare') return [];
    return v.rows.map((r, i) => (r.status === 'same' ? -1 : i)).filter((i) => i >= 0);
  }

  private moveDiff(delta: number): void {
    const rows = this.diffRows();
    if (!rows.length) return;
    const next = delta > 0 ? (rows.find((r) => r > this.current) ?? rows[rows.length - 1]) : ([...rows].reverse().find((r) => r < this.current) ?? rows[0]);
    this.showRow(next);
  }

  private jumpToDivergence(): void {
    const v = this.view;
    if (v?.type === 'compare' && v.firstDivergence) this.showRow(v.firstDivergence.row);
  }

  private showRow(row: number): void {
    this.current = row;
    void this.updateComplete.then(() => {
      const el = this.renderRoot.querySelector<HTMLElement>(`[data-row="${row}"]`);
      el?.scrollIntoView({ block: 'center' });
      el?.focus({ preventScroll: true });
    });
  }

  override render(): TemplateResult {
    const v = this.view;
    if (!v) return html`<p class="muted">Loading…</p>`;
    if (v.type === 'compareError') return html`<h1>Cannot compare</h1><p class="error" role="alert">${v.message}</p>`;
    if (v.type === 'group') return this.renderGroup(v);
    return this.renderCompare(v);
  }

  // ------------------------------------------------------------------ compare

  private renderSide(s: CompareSideView, which: string): TemplateResult {
    return html`<div class="side" data-side=${which}>
      <div class="name">${s.fileLabel}${s.rolloutIndex > 0 || s.fileLabel !== s.taskId ? html` <span class="muted">#${s.rolloutIndex + 1}</span>` : nothing}</div>
      <div class="muted">${s.taskId ?? s.rolloutId}</div>
      <div>${[s.agent, s.model].filter(Boolean).join(' · ') || html`<span class="muted">agent unknown</span>`}</div>
      <div>${s.steps} steps · reward ${reward(s.reward)} · ${outcome(s.resolved)} · <span class="muted">${s.formatLabel}</span></div>
    </div>`;
  }

  private renderCompare(v: CompareMessage): TemplateResult {
    const d = v.firstDivergence;
    const rows: TemplateResult[] = [];
    let foldStart = -1;
    const flushFold = (end: number): void => {
      if (foldStart < 0) return;
      const n = end - foldStart;
      rows.push(html`<div class="fold muted">… ${n} same ${n === 1 ? 'step' : 'steps'} …</div>`);
      foldStart = -1;
    };
    v.rows.forEach((r, i) => {
      if (this.onlyDiffs && r.status === 'same') {
        if (foldStart < 0) foldStart = i;
        return;
      }
      flushFold(i);
      rows.push(this.renderRow(r, i, d?.row === i));
    });
    flushFold(v.rows.length);
    return html`
      <h1>Compare rollouts</h1>
      <div class="sides">${this.renderSide(v.left, 'left')}${this.renderSide(v.right, 'right')}</div>
      <div class="bar" role="status">
        ${(['same', 'changed', 'only-left', 'only-right'] as const).map((k) => html`<span class="chip ${k}" data-count=${k}>${v.counts[k]} ${STATUS_TEXT[k]}</span>`)}
        <span class="first-divergence">${d
          ? html`First divergence: row ${d.row + 1} (${STATUS_TEXT[d.status]}; left step ${d.left !== null ? d.left + 1 : '—'}, right step ${d.right !== null ? d.right + 1 : '—'})
              <button class="jump" title="Show the first divergence (d)" @click=${() => this.jumpToDivergence()}>Jump</button>`
          : html`The two rollouts are the same step by step.`}</span>
        ${v.fork
          ? html`<span class="fork">Branched at row ${v.fork.row + 1} (parent step ${v.fork.left !== null ? v.fork.left + 1 : '—'}, branch step ${v.fork.right !== null ? v.fork.right + 1 : '—'})
              <button class="jump-fork" title="Show the branch's first new step" @click=${() => this.showRow(v.fork!.row)}>Jump</button></span>`
          : nothing}
        ${v.firstActionDivergence && v.firstActionDivergence.row !== d?.row
          ? html`<span class="muted">actions first differ at row ${v.firstActionDivergence.row + 1}</span>`
          : nothing}
        <label><input type="checkbox" .checked=${this.onlyDiffs} @change=${(e: Event) => (this.onlyDiffs = (e.target as HTMLInputElement).checked)} /> Only differences</label>
        <button title="Previous difference (p)" @click=${() => this.moveDiff(-1)}>↑ Prev</button>
        <button title="Next difference (n)" @click=${() => this.moveDiff(1)}>↓ Next</button>
      </div>
      <div class="rows" role="list">${rows}</div>
    `;
  }

  private renderRow(r: CompareRowView, i: number, divergence: boolean): TemplateResult {
    const fork = this.view?.type === 'compare' && this.view.fork?.row === i;
    const cls = `row ${r.status}${i === this.current ? ' current' : ''}${divergence ? ' divergence' : ''}${fork ? ' fork' : ''}`;
    return html`<div class=${cls} role="listitem" tabindex="-1" data-row=${i} data-status=${r.status}>
      ${this.renderCell(r.left, 'left')}
      <div class="status" title=${r.differs.length ? `differs in: ${r.differs.join(', ')}` : ''}>${STATUS_TEXT[r.status]}</div>
      ${this.renderCell(r.right, 'right')}
      ${r.status === 'changed' && r.diffs ? this.renderDiffs(r) : nothing}
    </div>`;
  }

  private renderCell(s: CompareStepView | null, side: 'left' | 'right'): TemplateResult {
    if (!s) return html`<div class="cell empty" aria-label="no step on the ${side}"></div>`;
    const codes = s.exitCodes.filter((c) => c !== null);
    return html`<div class="cell" data-side=${side} data-step=${s.index}>
      <div class="head">
        <button class="link open-step" title="Open step ${s.index + 1} of the ${side} rollout in the timeline" @click=${() => post({ type: 'openStep', side, stepIndex: s.index })}>#${s.index + 1}</button>
        <span class="role muted">${s.role}</span>
        ${codes.length ? html`<span class="muted">exit ${codes.join(', ')}</span>` : nothing}
        ${s.score ? html`<span class="chip" title="${s.score.scorer}${s.score.label ? `: ${s.score.label}` : ''}">score ${reward(s.score.value)}</span>` : nothing}
        <span class="labels">${s.labels.map((l) => html`<span class="chip label ${l.value === -1 ? 'bad' : l.value === 1 ? 'good' : ''}">${labelText(l)}</span>`)}</span>
      </div>
      ${s.command ? html`<pre class="command">${s.command}</pre>` : s.gist ? html`<div class="muted gist">${s.gist}</div>` : nothing}
      ${s.output ? html`<pre class="output">${s.output}</pre>` : nothing}
      ${s.cut ? html`<div class="muted">(shortened; open the step for all of it)</div>` : nothing}
    </div>`;
  }

  private renderDiffs(r: CompareRowView): TemplateResult {
    const parts: [string, TextDiffView | undefined][] = [
      ['command', r.diffs?.command],
      ['output', r.diffs?.output],
      ['message', r.diffs?.message],
    ];
    return html`<div class="diff">
      ${parts.map(([what, d]) =>
        d
          ? html`<div class="what muted">${what}${d.segments ? '' : ' (too long to diff inline)'}</div>${d.segments ? html`<pre class="inline-diff" data-field=${what}>${d.segments.map(segment)}</pre>` : nothing}`
          : nothing,
      )}
      ${r.differs.includes('reasoning') && !r.diffs?.message ? html`<div class="what muted">reasoning differs</div>` : nothing}
    </div>`;
  }

  // ------------------------------------------------------------------ group

  private renderGroup(g: GroupMessage): TemplateResult {
    return html`
      <h1>${g.title}</h1>
      <div class="muted">${[g.source, g.taskId, `${g.members.length} rollouts`, `mean reward ${reward(g.meanReward)}`].filter(Boolean).join(' · ')}</div>
      <table>
        <thead><tr><th>Rollout</th><th>Reward</th><th>Outcome</th><th>Steps</th><th>First differs from the best</th><th>Same / changed / only here / only best</th><th>Bad steps</th><th></th></tr></thead>
        <tbody>
          ${g.members.map(
            (m) => html`<tr class=${m.best ? 'best' : ''} data-member=${m.member}>
              <td><button class="link" title=${m.file} @click=${() => post({ type: 'openMember', member: m.member, stepIndex: null })}>${m.label}</button>${m.best ? html` <span class="chip">best</span>` : nothing}</td>
              <td>${reward(m.reward)}</td>
              <td>${outcome(m.resolved)}</td>
              <td>${m.steps}</td>
              <td>${m.best
                ? html`<span class="muted">—</span>`
                : m.divergesAt !== null
                  ? html`<button class="link" @click=${() => post({ type: 'openMember', member: m.member, stepIndex: m.divergesAt })}>step ${m.divergesAt + 1}</button>
                      <span class="muted">(best: step ${m.bestAt !== null ? m.bestAt + 1 : '—'})</span>${m.firstAction ? html`<div class="first-action"><code>${m.firstAction}</code></div>` : nothing}`
                  : html`<span class="muted">${m.bestAt !== null ? `ends at best's step ${m.bestAt + 1}` : 'same actions'}</span>`}</td>
              <td>${m.same} / ${m.changed} / ${m.onlyHere} / ${m.onlyBest}</td>
              <td>${m.badSteps || ''}</td>
              <td>${m.best ? nothing : html`<button @click=${() => post({ type: 'compareMember', member: m.member })}>Compare with best</button>`}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    `;
  }
}

function segment(s: DiffSegment): TemplateResult | string {
  if (s.kind === 'del') return html`<del>${s.text}</del>`;
  if (s.kind === 'add') return html`<ins>${s.text}</ins>`;
  return s.text;
}

declare global {
  interface HTMLElementTagNameMap {
    'ti-compare': TiCompare;
  }
}
