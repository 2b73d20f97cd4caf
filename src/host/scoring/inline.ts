/**
 * Step scores on the raw rollout file in the text editor: at the first line of each scored step's
 * range (core `Step.range`) a gutter mark and an end-of-line "score 0.12 · bad" in the value's
 * colour, an overview-ruler mark, a hover with the scorer's explanation and its name/model, and a
 * CodeLens "score 0.12 (label)" + "label" (opens the step in the timeline). Rollout text is never
 * interpreted: the hover's Markdown escapes the explanation and is not trusted.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Rollout, Step } from '../../core/model';
import type { StepScore } from '../../core/scoring/protocol';
import type { RolloutScoreState, ScoringService } from './service';

/** Internal commands the CodeLenses run (not in the palette). */
export const OPEN_STEP_COMMAND = 'trajectoryInspector.scores.openStep';
export const EXPLAIN_COMMAND = 'trajectoryInspector.scores.explain';

const BUCKETS = 10;
/** Red → yellow → green, one per bucket (gutter squares, ruler marks, end-of-line text). */
const COLOURS = ['#e5484d', '#e8623f', '#eb7d31', '#ee9824', '#f0b216', '#d9bb1c', '#b1bd36', '#88bf50', '#5fc16a', '#3cb371'];

function bucket(value: number, range: [number, number]): number {
  const t = Math.max(0, Math.min(1, (value - range[0]) / (range[1] - range[0])));
  return Math.min(BUCKETS - 1, Math.floor(t * BUCKETS));
}

function word(value: number, range: [number, number]): string {
  const t = (value - range[0]) / (range[1] - range[0]);
  return t < 0.4 ? 'low' : t < 0.6 ? 'mid' : 'high';
}

const fmt = (v: number): string => v.toFixed(2);

/** One scored step placed in a document. */
export interface PlacedScore {
  rolloutIndex: number;
  rollout: Rollout;
  step: Step;
  score: StepScore & { value: number };
  state: RolloutScoreState;
  range: vscode.Range;
}

/** The scored steps of `doc` whose range lies in this file, in document order. */
export function placedScores(service: ScoringService, doc: vscode.TextDocument): PlacedScore[] {
  const file = path.resolve(doc.uri.fsPath);
  const out: PlacedScore[] = [];
  const length = doc.getText().length;
  for (const known of service.knownFiles()) {
    const e = service.entry(known);
    if (!e) continue;
    e.rollouts.forEach((r, rolloutIndex) => {
      const st = e.scores.get(r.id);
      if (!st || !st.scorer) return;
      for (const step of r.steps) {
        const sc = st.steps.get(step.index);
        if (!sc || sc.value === null || !step.range) continue;
        if (path.resolve(step.file ?? r.source.path) !== file) continue;
        if (step.range.end > length) continue;
        out.push({ rolloutIndex, rollout: r, step, score: sc as StepScore & { value: number }, state: st, range: new vscode.Range(doc.positionAt(step.range.start), doc.positionAt(step.range.end)) });
      }
    });
  }
  return out.sort((a, b) => a.range.start.compareTo(b.range.start));
}

function hoverText(p: PlacedScore): vscode.MarkdownString {
  const sc = p.state.scorer!;
  const md = new vscode.MarkdownString(undefined, false);
  md.isTrusted = false;
  md.supportHtml = false;
  md.appendMarkdown(`**Step score ${fmt(p.score.value)}**`);
  md.appendText(` in [${sc.scoreRange[0]}, ${sc.scoreRange[1]}]${p.score.label ? ` — ${p.score.label}` : ''}`);
  md.appendMarkdown('\n\n');
  md.appendText(`step #${p.step.index + 1} (${p.step.role}) of rollout ${p.rollout.id}`);
  if (p.score.explanation) {
    md.appendMarkdown('\n\n');
    md.appendText(p.score.explanation);
  }
  md.appendMarkdown('\n\n');
  md.appendText(`scorer ${sc.name} ${sc.version}${sc.model ? ` · model ${sc.model}` : ''}${p.state.cached ? ' · cached' : ''}`);
  md.appendMarkdown('\n\n_A scorer’s opinion of this step, not the rollout’s outcome reward._');
  return md;
}

/** Decorations, hover and CodeLens over the raw files the scoring service knows. */
export class InlineScores implements vscode.Disposable, vscode.HoverProvider, vscode.CodeLensProvider {
  private readonly types: vscode.TextEditorDecorationType[];
  private readonly lensChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.lensChanged.event;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly service: ScoringService) {
    this.types = COLOURS.map((c) =>
      vscode.window.createTextEditorDecorationType({
        gutterIconPath: vscode.Uri.parse(`data:image/svg+xml;utf8,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><rect x="5" y="2" width="6" height="12" rx="1.5" fill="${c}"/></svg>`)}`),
        gutterIconSize: 'contain',
        overviewRulerColor: c,
        overviewRulerLane: vscode.OverviewRulerLane.Right,
        after: { color: c, margin: '0 0 0 2em', fontStyle: 'italic' },
        rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
      }),
    );
    const selector: vscode.DocumentSelector = { scheme: 'file' };
    this.disposables.push(
      ...this.types,
      this.lensChanged,
      vscode.languages.registerHoverProvider(selector, this),
      vscode.languages.registerCodeLensProvider(selector, this),
      vscode.window.onDidChangeVisibleTextEditors(() => this.refresh()),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (vscode.window.visibleTextEditors.some((ed) => ed.document === e.document)) this.refresh();
      }),
      service.onDidChangeScores(() => this.refresh()),
    );
    this.refresh();
  }

  private get enabled(): boolean {
    return this.service.settings.inline;
  }

  /** Redraws the decorations of every visible editor and asks for CodeLenses again. */
  refresh(): void {
    for (const ed of vscode.window.visibleTextEditors) {
      const per: vscode.DecorationOptions[][] = this.types.map(() => []);
      if (this.enabled && ed.document.uri.scheme === 'file' && !ed.document.isDirty) {
        for (const p of placedScores(this.service, ed.document)) {
          const line = ed.document.lineAt(p.range.start.line);
          const range = sc(p);
          per[bucket(p.score.value, range)].push({
            range: new vscode.Range(line.range.end, line.range.end),
            hoverMessage: undefined,
            renderOptions: { after: { contentText: `score ${fmt(p.score.value)} · ${p.score.label ?? word(p.score.value, range)}` } },
          });
        }
      }
      this.types.forEach((t, i) => ed.setDecorations(t, per[i]));
    }
    this.lensChanged.fire();
  }

  provideHover(doc: vscode.TextDocument, pos: vscode.Position): vscode.Hover | undefined {
    if (!this.enabled || doc.isDirty) return undefined;
    // The innermost scored step around the position (or the step whose first line it is on).
    const hits = placedScores(this.service, doc).filter((p) => p.range.contains(pos) || p.range.start.line === pos.line);
    if (!hits.length) return undefined;
    const span = (h: PlacedScore): number => doc.offsetAt(h.range.end) - doc.offsetAt(h.range.start);
    hits.sort((a, b) => span(a) - span(b));
    const p = hits.find((h) => h.range.start.line === pos.line) ?? hits[0];
    return new vscode.Hover(hoverText(p), new vscode.Range(p.range.start.line, 0, p.range.start.line, doc.lineAt(p.range.start.line).text.length));
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    if (!this.enabled || doc.isDirty) return [];
    const lenses: vscode.CodeLens[] = [];
    const seenLines = new Set<number>();
    for (const p of placedScores(this.service, doc)) {
      const line = p.range.start.line;
      if (seenLines.has(line)) continue;
      seenLines.add(line);
      const at = new vscode.Range(line, 0, line, 0);
      const range = sc(p);
      const sco = p.state.scorer!;
      const explain = `Step #${p.step.index + 1}: score ${fmt(p.score.value)}${p.score.label ? ` (${p.score.label})` : ''} from ${sco.name} ${sco.version}${sco.model ? ` · ${sco.model}` : ''}${p.score.explanation ? ` — ${p.score.explanation}` : ''}`;
      lenses.push(
        new vscode.CodeLens(at, {
          title: `score ${fmt(p.score.value)}${p.score.label ? ` (${p.score.label})` : ` (${word(p.score.value, range)})`}`,
          tooltip: p.score.explanation ?? `${sco.name} ${sco.version}`,
          command: EXPLAIN_COMMAND,
          arguments: [explain],
        }),
        new vscode.CodeLens(at, {
          title: 'label',
          tooltip: 'Open this step in the timeline to label it',
          command: OPEN_STEP_COMMAND,
          arguments: [p.rollout.source.path, p.rolloutIndex, p.step.index],
        }),
      );
    }
    return lenses;
  }

  dispose(): void {
    for (const ed of vscode.window.visibleTextEditors) this.types.forEach((t) => ed.setDecorations(t, []));
    while (this.disposables.length) this.disposables.pop()?.dispose();
  }
}

function sc(p: PlacedScore): [number, number] {
  return p.state.scorer!.scoreRange;
}
