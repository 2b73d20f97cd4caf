/**
 * `<ti-step-card>`: one step of a rollout. The timeline sets the `step-card` / `selected` /
 * `expanded` classes and `data-index` on this element; the card renders the step's header
 * (number, role, time, duration, tokens), message, reasoning, and each action with its output.
 *
 * Collapsed (the default), long messages are clamped, reasoning is folded and long outputs show
 * their first and last lines; expanded (`o` / Space, or Enter on an unlabelled step) shows everything.
 *
 * Labels: the reference label that came with the data is an outlined "REF" tag; the user's own
 * label a filled "YOU" tag (hatched when it was propagated from a first error), other annotators'
 * labels small dashed tags with their name; the user's note sits under the head, and a thin bar on
 * the card's right edge has the colour of the user's label (the list's heat marks).
 */
import { LitElement, html, nothing, type TemplateResult } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { CurrentLabel } from '../../src/shared/model';
import type { Action, FileEdit, Observation, RolloutLink, Step } from '../../src/shared/model';
import { MAX_NOTE_CHARS, type StepFileChip } from '../../src/shared/protocol';
import { type ScoresMessage, type StepScoreView } from '../../src/shared/scoresProtocol';
import { formatScore, heatBucket, scoreTitle, scoreWord } from '../scores';
import { labelTitle, valueText, type StepLabel } from '../labels';
import {
  clampText,
  clockTime,
  formatArguments,
  formatCost,
  formatCount,
  formatDuration,
  formatElapsed,
  pairActions,
  parseTime,
  refLabelText,
  type ActionPair,
} from '../format';
import { formatClock } from '../cast';
import type { CutField } from '../../src/shared/protocol';
import { describeCut, estimateBodyHeight } from '../stepStore';
import { ref } from 'lit/directives/ref.js';
import { stepGist } from '../format';
import { foldActionBlocks } from '../foldCommand';
import { argFields, type ArgField } from '../argFields';
import './ti-output';
import { firstMark, marked, MATCH_CSS } from '../highlight';
import type { HighlightQuery } from '../../src/shared/highlight';
import { stepCardStyles } from './step-card/styles';
import { ARG_CHARS, ARG_LINES, EDIT_LINES, EVENT_TITLE, KIND_LABEL, MESSAGE_CHARS, MESSAGE_LINES, editLines, editSummary, linkText, type StepReplay } from './step-card/stepText';

@customElement('ti-step-card')
export class TiStepCard extends LitElement {
  static override styles = [stepCardStyles, MATCH_CSS].flat();

  @property({ attribute: false }) step!: Step;
  /** Expanded: full message, open reasoning, full outputs. */
  @property({ type: Boolean }) expanded = false;
  /** Output lines shown while collapsed. */
  @property({ type: Number }) collapseLines = 20;
  /** Timestamp (ms) of the rollout's first step, for "+elapsed"; null when unknown. */
  @property({ attribute: false }) startTime: number | null = null;
  /** The user's label of this step, or null. */
  @property({ attribute: false }) label: StepLabel | null = null;
  /** Other annotators' labels of this step. */
  @property({ attribute: false }) otherLabels: readonly CurrentLabel[] = [];
  /** For a propagated label: the first error it comes from (0-based), when known. */
  @property({ attribute: false }) propagatedFrom: number | null = null;
  /** Show the note editor (the `n` key). */
  @property({ type: Boolean }) editingNote = false;
  /** Replay verdict and controls of this step; null when replay has nothing for it. */
  @property({ attribute: false }) replay: StepReplay | null = null;
  /** The step's score from the scorer, its range and scorer; null when not scored. */
  @property({ attribute: false }) score: StepScoreView | null = null;
  @property({ attribute: false }) scoreRange: [number, number] | null = null;
  @property({ attribute: false }) scorer: ScoresMessage['scorer'] = null;
  /** Set while `step` is only the head of a sliced rollout's step (its texts cut): what was cut. The card says it is loading. */
  @property({ attribute: false }) cutFields: readonly CutField[] | null = null;
  /** A step of a paged rollout that came without a head: its full body's estimated height (CSS px, collapsed), the place the loading card holds; null: estimated from the head. */
  @property({ attribute: false }) bodyHeight: number | null = null;
  /** The files the step read or changed (chips; a workspace file's chip opens it). */
  @property({ attribute: false }) files: readonly StepFileChip[] = [];
  /** A search's query whose matches the card marks (the step a search result opened); null: none. */
  @property({ attribute: false }) highlight: HighlightQuery | null = null;
  /** The query whose first match was scrolled into view (once per query). */
  private scrolledFor: HighlightQuery | null = null;

  private noteDone(note?: string | null): void {
    this.dispatchEvent(new CustomEvent('note-done', { detail: { index: this.step.index, note }, bubbles: true, composed: true }));
  }

  private readonly onNoteKey = (e: KeyboardEvent): void => {
    if (e.key === 'Enter' && !e.isComposing) {
      e.preventDefault();
      e.stopPropagation();
      const text = (e.target as HTMLInputElement).value.trim();
      this.noteDone(text === '' ? null : text);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      this.noteDone(undefined);
    }
  };

  /** Focus left the editor (a click elsewhere, the window lost focus): keep what was typed. */
  private readonly onNoteBlur = (e: FocusEvent): void => {
    if (!this.editingNote) return;
    const text = (e.target as HTMLInputElement).value.trim();
    const before = this.label?.note ?? '';
    this.noteDone(text === before ? undefined : text === '' ? null : text);
  };

  protected override updated(changed: Map<string, unknown>): void {
    if (this.highlight && this.scrolledFor !== this.highlight && !this.cutFields) void this.revealFirstMark(this.highlight);
    if (changed.has('editingNote') && this.editingNote) {
      const input = this.renderRoot.querySelector<HTMLInputElement>('.note-input');
      if (input) {
        input.focus();
        input.select();
      }
    }
  }

  /**
   * Scrolls the first marked match into view once the outputs have rendered their marks, and keeps
   * it there for a few frames: the timeline scrolls the card itself into view meanwhile (again once
   * its parts have laid out), which would leave a match low in a tall card out of view.
   */
  private async revealFirstMark(q: HighlightQuery): Promise<void> {
    await Promise.all([...this.renderRoot.querySelectorAll('ti-output')].map((o) => o.updateComplete));
    const frame = (): Promise<unknown> => new Promise((r) => requestAnimationFrame(r));
    await frame();
    if (this.highlight !== q || this.scrolledFor === q) return;
    if (!firstMark(this.renderRoot)) return;
    this.scrolledFor = q;
    for (let i = 0; i < 10 && this.highlight === q; i++) {
      const m = firstMark(this.renderRoot);
      if (!m) return;
      const b = m.getBoundingClientRect();
      if (b.top < 0 || b.bottom > window.innerHeight) m.scrollIntoView({ block: 'center', inline: 'nearest' });
      await frame();
    }
  }

  private emit(name: 'toggle-expand' | 'show-source', e: Event): void {
    e.stopPropagation();
    this.dispatchEvent(new CustomEvent(name, { detail: { index: this.step.index }, bubbles: true, composed: true }));
  }

  private renderHead(s: Step): TemplateResult {
    const t = parseTime(s.timestamp);
    const parts: TemplateResult[] = [];
    if (s.timestamp) {
      const rel = t !== null && this.startTime !== null && t > this.startTime ? ` ${formatElapsed(t - this.startTime)}` : '';
      parts.push(html`<span class="meta time" title=${s.timestamp}>${clockTime(s.timestamp)}${rel}</span>`);
    }
    if (s.durationSec !== null) parts.push(html`<span class="meta duration" title="how long the step took">took ${formatDuration(s.durationSec)}</span>`);
    if (s.tokens && (s.tokens.prompt !== null || s.tokens.completion !== null)) {
      const tk = s.tokens;
      const title = `prompt ${tk.prompt ?? '?'} · completion ${tk.completion ?? '?'}${tk.cached !== null ? ` · cached ${tk.cached}` : ''} tokens`;
      parts.push(
        html`<span class="meta tokens" title=${title}>${tk.prompt !== null ? formatCount(tk.prompt) : '?'} → ${tk.completion !== null ? formatCount(tk.completion) : '?'} tok</span>`,
      );
    }
    if (s.costUsd !== null) parts.push(html`<span class="meta cost">${formatCost(s.costUsd)}</span>`);
    if (s.copiedContext) parts.push(html`<span class="meta copied" title="copied from an earlier context">copied context</span>`);
    if (s.event) parts.push(html`<span class="event ${s.event.kind}" title=${EVENT_TITLE[s.event.kind]}>${s.event.label}</span>`);
    if (typeof s.castTime === 'number') {
      parts.push(html`<span class="meta cast-time" title="where this step starts in the terminal recording">▶ ${formatClock(s.castTime)}</span>`);
    }
    const sid = s.sourceId !== null && String(s.sourceId) !== String(s.index + 1) ? `source id ${String(s.sourceId)}` : '';
    return html`<div class="head">
      <span class="idx" title=${sid || `step index ${s.index}`}>#${s.index + 1}</span>
      <span class="role">${s.role}</span>
      ${this.renderScore()} ${this.renderRefLabel(s)} ${this.renderUserLabel()} ${this.otherLabels.map((l) => this.renderOtherLabel(l))}
      ${parts}
      <span class="spacer"></span>
      ${this.replay
        ? html`<ti-replay-status .view=${this.replay.view} .rolloutIndex=${this.replay.rolloutIndex} .stepIndex=${s.index} .replayable=${this.replay.replayable} .busy=${this.replay.busy}></ti-replay-status>`
        : nothing}
      ${s.range ? html`<button class="source" title="Show this step in the raw file" @click=${(e: Event) => this.emit('show-source', e)}>source</button>` : nothing}
      <button class="toggle" title="Expand / collapse (o or Space; Enter on an unlabelled step)" @click=${(e: Event) => this.emit('toggle-expand', e)}>${this.expanded ? 'less' : 'more'}</button>
    </div>`;
  }

  /** The step label that came with the data (AgentProcessBench, ProcessBench, PRM800K, TRL). */
  private renderRefLabel(s: Step): TemplateResult | typeof nothing {
    const l = s.referenceLabel;
    if (!l) return nothing;
    const t = refLabelText(l.value);
    const title = `Reference label ${t.sign} (${t.word})${l.firstError ? ', the first error of the rollout' : ''}\nsource: ${l.source}`;
    return html`<span class="ref-label ${t.word}" title=${title} data-value=${String(l.value)}
        ><span class="ref-tag">ref</span><span class="ref-value">${t.sign} ${t.word}</span></span
      >${l.firstError ? html`<span class="first-error" title=${title}>first error</span>` : nothing}`;
  }

  /** The user's own label: filled "YOU" tag, hatched when propagated, with stale / unsaved marks. */
  private renderUserLabel(): TemplateResult | typeof nothing {
    const l = this.label;
    if (!l || l.value === null) return nothing;
    const t = valueText(l.value);
    const title = labelTitle(l, this.propagatedFrom, true);
    const cls = ['user-label', t.word, l.origin === 'propagated' ? 'propagated' : '', l.pending ?? ''].join(' ');
    const from = l.origin === 'propagated' ? (this.propagatedFrom !== null ? ` ← #${this.propagatedFrom + 1}` : ' (propagated)') : '';
    return html`<span class=${cls} title=${title} data-value=${String(l.value)} data-origin=${l.origin}
        ><span class="you">you</span><span class="value">${t.sign} ${t.word}${from}</span>${l.firstError
          ? html`<span class="fe">⚑ first error</span>`
          : nothing}</span
      >${l.stale ? html`<span class="stale" title="The step changed since it was labelled (its content hash differs)">stale</span>` : nothing}${l.pending ===
      'unsaved'
        ? html`<span class="unsaved-tag" title=${title}>unsaved</span>`
        : nothing}`;
  }

  private renderOtherLabel(l: CurrentLabel): TemplateResult | typeof nothing {
    if (l.value === null) return nothing;
    const t = valueText(l.value);
    const title = labelTitle({ ...l, pending: null }, null, false);
    return html`<span class="other-label ${t.word}" title=${title} data-annotator=${l.annotator}>${l.annotator} ${t.sign}${l.firstError ? ' ⚑' : ''}</span>`;
  }

  private renderNote(): TemplateResult | typeof nothing {
    const l = this.label;
    if (this.editingNote) {
      return html`<div class="note-editor">
        <input
          class="note-input"
          type="text"
          maxlength=${MAX_NOTE_CHARS}
          aria-label="Note for this step"
          placeholder="Note for step #${this.step.index + 1}"
          .value=${l?.note ?? ''}
          @keydown=${this.onNoteKey}
          @blur=${this.onNoteBlur}
        /><span><kbd>Enter</kbd> save · <kbd>Esc</kbd> cancel</span>
      </div>`;
    }
    const others = this.otherLabels.filter((o) => o.note);
    if (!l?.note && !others.length) return nothing;
    return html`${l?.note
      ? html`<div class="label-note mine ${l.value !== null ? valueText(l.value).word : ''}" title=${labelTitle(l, this.propagatedFrom, true)}>✎ ${l.note}</div>`
      : nothing}${others.map(
      (o) => html`<div class="label-note other ${o.value !== null ? valueText(o.value).word : ''}">✎ ${o.note} <span class="who">— ${o.annotator}</span></div>`,
    )}`;
  }

  private renderMessage(text: string): TemplateResult | typeof nothing {
    if (!text.trim()) return nothing;
    if (this.expanded) return html`<div class="message">${marked(text, this.highlight)}</div>`;
    const c = clampText(text, MESSAGE_LINES, MESSAGE_CHARS);
    return html`<div class="message">${c.text}${c.cut
      ? html`… <button class="clamp-more" @click=${(e: Event) => this.emit('toggle-expand', e)}>show more</button>`
      : nothing}</div>`;
  }

  /** Links of the step (the subagent it started): a button each, or why the target is missing. */
  private renderLinks(links: readonly RolloutLink[]): TemplateResult | typeof nothing {
    if (!links.length) return nothing;
    return html`<div class="links">
      ${links.map((l, i) =>
        l.missing
          ? html`<span class="missing" title=${l.missing}>${linkText(l)} (${l.missing})</span>`
          : html`<button class="link" data-relation=${l.relation} title=${l.path ?? 'in this file'} @click=${(e: Event) => this.openLink(e, i)}>${linkText(l)}</button>`,
      )}
    </div>`;
  }

  private renderFiles(): TemplateResult | typeof nothing {
    if (!this.files.length) return nothing;
    return html`<div class="files" aria-label="Files this step touched">
      ${this.files.map((f, i) => {
        const what = f.kind === 'edit' ? (f.failed ? 'edit failed: changed nothing' : 'changed') : 'read';
        const title = `${f.recorded} (${what})${f.local ? '' : ' — not in this workspace (map it in trajectoryInspector.files.pathMap)'}`;
        return html`<button class="file-chip ${f.kind}${f.failed ? ' failed' : ''}${f.local ? '' : ' elsewhere'}" data-kind=${f.kind} title=${title} @click=${(e: Event) => this.openFile(e, i)}>${f.kind === 'edit' ? '✎' : '○'} ${f.label}</button>`;
      })}
    </div>`;
  }

  private openFile(e: Event, file: number): void {
    e.stopPropagation();
    this.dispatchEvent(new CustomEvent('open-file', { detail: { index: this.step.index, file }, bubbles: true, composed: true }));
  }

  private openLink(e: Event, link: number): void {
    e.stopPropagation();
    this.dispatchEvent(new CustomEvent('open-link', { detail: { index: this.step.index, link }, bubbles: true, composed: true }));
  }

  /** A recorded file change: a line diff of each replacement, the written content, or the patch text. */
  private renderEdit(e: FileEdit): TemplateResult {
    const lines = editLines(e);
    const max = this.expanded ? Infinity : EDIT_LINES;
    const shown = lines.slice(0, max);
    return html`${e.op === 'other' ? html`<div class="edit-note">${e.reason}</div>` : nothing}${shown.length
        ? html`<pre class="edit">${shown.map((l) => html`<span class=${l.cls}>${marked(l.text, this.highlight)}</span>`)}${lines.length > shown.length
            ? html`<span class="hunk">… ${lines.length - shown.length} more lines</span>`
            : nothing}</pre>`
        : nothing}`;
  }

  private renderAction(a: Action): TemplateResult {
    if (a.edit && a.edit.op !== 'other') {
      return html`<div class="action-head">
          <span class="kind kind-${a.kind}">${KIND_LABEL[a.kind]}</span>
          ${a.tool ? html`<span class="tool">${a.tool}</span>` : nothing}
          ${a.edit.path ?? a.path ? html`<span class="path">${a.edit.path ?? a.path}</span>` : nothing}
          <span class="edit-note">${editSummary(a.edit)}</span>
        </div>
        ${this.renderEdit(a.edit)}`;
    }
    const fields = a.command === null ? argFields(a.arguments) : null;
    const args = a.command === null && !fields ? formatArguments(a.arguments) : '';
    const argText = this.expanded ? args : clampText(args, ARG_LINES, ARG_CHARS).text;
    return html`<div class="action-head">
        <span class="kind kind-${a.kind}">${KIND_LABEL[a.kind]}</span>
        ${a.tool ? html`<span class="tool">${a.tool}</span>` : nothing}
        ${a.path ? html`<span class="path">${a.path}</span>` : nothing}
      </div>
      ${a.command !== null
        ? html`<pre class="action-command ${a.kind}">${marked(a.command, this.highlight)}</pre>`
        : fields
          ? this.renderArgFields(fields)
          : args
            ? html`<pre class="args">${marked(argText, this.highlight)}${argText.length < args.length ? '\n…' : ''}</pre>`
            : nothing}`;
  }

  /** A tool call's arguments, one named field each; a multi-line or long value as a text block (clamped until the step is expanded). */
  private renderArgFields(fields: readonly ArgField[]): TemplateResult {
    return html`<dl class="arg-fields">
      ${fields.map((f) => {
        const shown = this.expanded || !f.block ? { text: f.value, cut: false } : clampText(f.value, ARG_LINES, ARG_CHARS);
        return html`<div class="arg-field ${f.block ? 'block' : 'inline'}" data-arg=${f.name}>
          <dt>${f.name}</dt>
          <dd>${f.block ? html`<pre class="arg-block">${marked(shown.text, this.highlight)}${shown.cut ? '\n…' : ''}</pre>` : html`<span class="arg-value">${marked(f.value, this.highlight)}</span>`}</dd>
        </div>`;
      })}
    </dl>`;
  }

  private renderObservation(o: Observation): TemplateResult {
    return html`<div class="obs">
      <div class="obs-head">
        <span>output</span>
        ${o.exitCode !== null
          ? o.exitCodeFrom === 'text'
            ? html`<span class="badge exit-code ${o.exitCode === 0 ? 'ok' : 'fail'} from-text" title="exit code read from the output text (the format has no exit code field)">exit ${o.exitCode} <span class="exit-from">(from text)</span></span>`
            : html`<span class="badge exit-code ${o.exitCode === 0 ? 'ok' : 'fail'}" title="exit code">exit ${o.exitCode}</span>`
          : nothing}
        ${o.isError && (o.exitCode === null || o.exitCode === 0) ? html`<span class="badge tool-error" title="the tool reported an error">error</span>` : nothing}
        ${o.interrupted ? html`<span class="badge interrupted" title="the call was interrupted before it finished">interrupted</span>` : nothing}
        ${o.truncated ? html`<span class="badge truncated" title="the source says this output was cut">truncated</span>` : nothing}
      </div>
      <ti-output .text=${o.output} .maxLines=${this.expanded ? 0 : this.collapseLines} .highlight=${this.highlight}></ti-output>
    </div>`;
  }

  private renderPair(p: ActionPair): TemplateResult {
    return html`<div class="action">
      ${p.action ? this.renderAction(p.action) : nothing} ${p.observations.map((o) => this.renderObservation(o))}
    </div>`;
  }

  /** The step-score tag: "score 0.12" on the value's heat colour (a scorer's opinion, not the outcome reward). */
  private renderScore(): TemplateResult | typeof nothing {
    const sc = this.score;
    const range = this.scoreRange;
    if (!sc || !range) return nothing;
    return html`<span class="score-tag heat-${heatBucket(sc.value, range)} ${scoreWord(sc.value, range)}" title=${scoreTitle(sc, range, this.scorer)} data-score=${String(sc.value)}
      ><span class="score-key">score</span> ${formatScore(sc.value, range)}${sc.label ? html` <span class="score-label">${sc.label}</span>` : nothing}</span
    >`;
  }

  override render(): TemplateResult {
    const s = this.step;
    if (!s) return html``;
    const pairs = pairActions(s);
    // Some formats derive the reasoning from the message (SWE-agent's THOUGHT): show it once.
    const reasoning = s.reasoning && s.reasoning.trim() && !s.message.includes(s.reasoning.trim()) ? s.reasoning : null;
    const links = s.links ?? [];
    const empty = !s.message.trim() && !reasoning && pairs.length === 0 && !links.length && !s.event;
    const l = this.label;
    const lab = l && l.value !== null ? `lab-${valueText(l.value).word} ${valueText(l.value).word}${l.origin === 'propagated' ? ' lab-propagated' : ''}` : '';
    const heat = this.score && this.scoreRange ? `scored heat-${heatBucket(this.score.value, this.scoreRange)}` : '';
    if (this.cutFields) {
      const gist = stepGist(s);
      return html`<div class="card role-${s.role} ${lab} ${heat}">
        ${this.renderHead(s)} ${this.renderNote()}
        <div class="body" ${ref((el) => el instanceof HTMLElement && (el.style.minHeight = `${this.bodyHeight ?? estimateBodyHeight(s, this.cutFields ?? [], this.expanded, this.collapseLines)}px`))}><div class="slice-loading" role="status">${gist ? html`<span class="gist">${gist}</span> · ` : nothing}loading the full step${this.cutFields.length ? ` (${describeCut(this.cutFields)})` : ''}…</div></div>
      </div>`;
    }
    return html`<div class="card role-${s.role} ${lab} ${heat} ${s.event ? `event-card event-${s.event.kind}` : ''}">
      ${this.renderHead(s)} ${this.renderNote()}
      <div class="body">
        ${this.renderMessage(foldActionBlocks(s.message, s.actions).text)}
        ${reasoning
          ? html`<details class="reasoning" ?open=${this.expanded}>
              <summary>Reasoning</summary>
              <div>${marked(reasoning, this.highlight)}</div>
            </details>`
          : nothing}
        ${pairs.map((p) => this.renderPair(p))} ${this.renderLinks(links)} ${this.renderFiles()}
        ${empty ? html`<div class="empty-step">(empty step)</div>` : nothing}
      </div>
    </div>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'ti-step-card': TiStepCard;
  }
}
