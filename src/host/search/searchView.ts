/**
 * The "Search Rollouts" view: runs core `searchRollouts` over every rollout file the
 * Rollouts view found, with VS Code's own ripgrep (src/host/search/ripgrep.ts), and shows the
 * results as they stream in, as a tree of rollout → step. Clicking a step opens the rollout in the
 * timeline at that step. A notification shows progress and cancels; a new search cancels the one
 * running. The query is typed on one line (core/search/queryText.ts) or passed as the command's
 * argument (a query string, or a `SearchQuery`-shaped object, for keybindings and tests).
 *
 * Workspace trust: the search only reads files (rg is VS Code's own binary, run with `--no-config`),
 * so it runs in untrusted workspaces too.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { describeQuery, parseSearchText } from '../../core/search/queryText';
import { notifyError } from '../notify';
import type { RolloutFiles } from '../rolloutFiles';
import { SearchError, searchRollouts, type FileHits, type RolloutHits, type SearchQuery, type SearchSummary, type StepHit } from '../../core/search/workspaceSearch';
import { fileLabel } from '../fileLabel';
import type { RolloutsView } from '../rolloutsView';
import type { TimelineEditorProvider } from '../timelineEditor';
import { findRipgrep } from './ripgrep';

export const SEARCH_VIEW_ID = 'trajectoryInspector.search';
export const OPEN_SEARCH_RESULT_COMMAND = 'trajectoryInspector.openSearchResult';
/** Context key: true while a search runs (shows the view's Cancel button). */
const SEARCHING_KEY = 'trajectoryInspector.searching';
const LAST_QUERY_STATE = 'trajectoryInspector.search.last';

type SearchNode =
  | { kind: 'rollout'; id: string; file: string; hits: RolloutHits }
  | { kind: 'step'; id: string; file: string; rolloutIndex: number; hit: StepHit }
  | { kind: 'note'; id: string; text: string; tooltip?: string };

/** A step hit's label: `#8 command: …before MATCH after…`, with the match's range to highlight. */
export function stepHitLabel(hit: StepHit): { label: string; highlight: [number, number] | null } {
  const m = hit.matches[0];
  const head = `#${hit.stepIndex + 1} ${m.field}: `;
  const before = m.before.length > 40 ? `…${m.before.slice(-40)}` : m.before;
  const start = head.length + before.length;
  return { label: `${head}${before}${m.match}${m.after}`, highlight: [start, start + m.match.length] };
}

/** Accepts the command's argument: a query line, or an object with at least `pattern`. */
function queryFromArg(arg: unknown): SearchQuery | null {
  if (typeof arg === 'string') return parseSearchText(arg);
  if (typeof arg === 'object' && arg !== null && typeof (arg as { pattern?: unknown }).pattern === 'string') return { ...(arg as SearchQuery) };
  return null;
}

export class SearchView implements vscode.TreeDataProvider<SearchNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<SearchNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly view: vscode.TreeView<SearchNode>;
  private readonly disposables: vscode.Disposable[] = [];
  private results: FileHits[] = [];
  private notes: SearchNode[] = [];
  private running: AbortController | null = null;
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  /** The last search's summary (for tests and the status line). */
  lastSummary: SearchSummary | null = null;
  /** The query of the results shown: a result opens its step with the matches marked. */
  private lastQuery: SearchQuery | null = null;
  private readonly rgPath: string | null;

  constructor(
    private readonly rollouts: RolloutsView,
    private readonly timelines: TimelineEditorProvider,
    private readonly output: vscode.LogOutputChannel,
    private readonly files: RolloutFiles,
    private readonly state?: vscode.Memento,
    /** More files to search beside the Rollouts view's: the workspace's coding-agent sessions (Sessions view). */
    private readonly moreFiles: () => Promise<string[]> = async () => [],
  ) {
    this.view = vscode.window.createTreeView(SEARCH_VIEW_ID, { treeDataProvider: this, showCollapseAll: true });
    this.rgPath = findRipgrep(vscode.env.appRoot);
    this.output.info(`search: ripgrep ${this.rgPath ?? 'not found: files will be searched by loading them'}`);
    this.disposables.push(this.view, this.emitter);
  }

  /** Search Rollouts…: asks for the query (unless given), then runs it. */
  async search(arg?: unknown): Promise<SearchSummary | null> {
    let q: SearchQuery | null;
    try {
      q = queryFromArg(arg);
    } catch (e) {
      void notifyError(`Search Rollouts: ${(e as Error).message}`);
      return null;
    }
    if (!q) {
      const text = await vscode.window.showInputBox({
        title: 'Search Rollouts',
        value: this.state?.get<string>(LAST_QUERY_STATE) ?? '',
        placeHolder: 'text   /regex/   "quoted text"   in:command,output,message,reasoning   role:agent   outcome:failed   reward>=0.5   case:yes',
        prompt: 'Searches every rollout file of the workspace (the Rollouts view\'s files) and the coding-agent sessions recorded in it (the Sessions view\'s)',
        validateInput: (t) => {
          if (!t.trim()) return null;
          try {
            parseSearchText(t);
            return null;
          } catch (e) {
            return (e as Error).message;
          }
        },
      });
      if (!text?.trim()) return null;
      await this.state?.update(LAST_QUERY_STATE, text);
      q = parseSearchText(text);
    }
    return this.run(q);
  }

  /** Cancels the running search, if any. */
  cancel(): void {
    this.running?.abort();
  }

  /** Clears the results. */
  clear(): void {
    this.cancel();
    this.results = [];
    this.notes = [];
    this.view.message = undefined;
    this.view.description = undefined;
    this.emitter.fire(undefined);
  }

  private async run(q: SearchQuery): Promise<SearchSummary | null> {
    this.cancel();
    this.lastQuery = q.pattern ? q : null;
    const ac = new AbortController();
    this.running = ac;
    this.results = [];
    this.notes = [];
    const described = describeQuery(q);
    this.view.description = described;
    this.view.message = `Searching for ${described}…`;
    this.emitter.fire(undefined);
    void vscode.commands.executeCommand('setContext', SEARCHING_KEY, true);
    await vscode.commands.executeCommand(`${SEARCH_VIEW_ID}.focus`).then(undefined, () => undefined);
    try {
      const files = [...new Set([...(await this.rollouts.allFiles()), ...(await this.moreFiles().catch(() => []))])];
      const summary = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'Searching rollouts', cancellable: true },
        async (progress, token) => {
          token.onCancellationRequested(() => ac.abort());
          let last = 0;
          return searchRollouts(files, q, {
            rgPath: this.rgPath,
            signal: ac.signal,
            load: (f) => this.files.loader.load(f),
            onFile: (hits) => {
              this.results.push(hits);
              this.scheduleRefresh();
            },
            onProgress: (p) => {
              const pct = p.filesTotal ? (100 * p.filesDone) / p.filesTotal : 100;
              progress.report({ message: `${p.filesDone}/${p.filesTotal} files · ${p.steps} steps found`, increment: pct - last });
              last = pct;
            },
          });
        },
      );
      this.lastSummary = summary;
      const rollouts = summary.files.reduce((n, f) => n + f.rollouts.length, 0);
      this.view.message = summary.steps
        ? `${summary.steps} steps in ${rollouts} rollouts${summary.truncated ? ' (first results only: narrow the search)' : ''}${summary.cancelled ? ' (cancelled)' : ''}`
        : summary.cancelled
          ? 'Search cancelled.'
          : `No step matches ${described} in ${files.length} files.`;
      for (const e of summary.errors.slice(0, 50)) {
        this.notes.push({ kind: 'note', id: `n:${this.notes.length}`, text: e.file ? `Could not search ${path.basename(e.file)}` : 'ripgrep', tooltip: e.message });
        this.output.warn(`search: ${e.file ?? 'rg'}: ${e.message}`);
      }
      this.output.info(`search: ${described}: ${summary.steps} steps, ${summary.filesChecked} files checked of ${files.length}${summary.cancelled ? ', cancelled' : ''}`);
      this.emitter.fire(undefined);
      return summary;
    } catch (e) {
      const msg = e instanceof SearchError ? e.message : `Search failed: ${String(e)}`;
      this.view.message = msg;
      this.emitter.fire(undefined);
      void notifyError(`Search Rollouts: ${msg}`);
      return null;
    } finally {
      if (this.running === ac) {
        this.running = null;
        void vscode.commands.executeCommand('setContext', SEARCHING_KEY, false);
      }
    }
  }

  private scheduleRefresh(): void {
    if (this.refreshTimer) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      this.emitter.fire(undefined);
    }, 100);
  }

  /** Opens a result: the rollout in the timeline, at the step. */
  async open(file: unknown, rolloutIndex: unknown, stepIndex: unknown): Promise<void> {
    if (typeof file !== 'string' || typeof rolloutIndex !== 'number' || typeof stepIndex !== 'number') return;
    const q = this.lastQuery;
    await this.timelines.openRollout(vscode.Uri.file(file), rolloutIndex, stepIndex, undefined, q ? { pattern: q.pattern, regex: q.regex === true, caseSensitive: q.caseSensitive === true } : null);
  }

  getChildren(node?: SearchNode): SearchNode[] {
    if (!node) {
      const out: SearchNode[] = [];
      for (const f of this.results) for (const r of f.rollouts) out.push({ kind: 'rollout', id: `r:${f.file}#${r.rolloutIndex}`, file: f.file, hits: r });
      return [...out, ...this.notes];
    }
    if (node.kind === 'rollout') {
      return node.hits.steps.map((hit) => ({ kind: 'step', id: `s:${node.file}#${node.hits.rolloutIndex}:${hit.stepIndex}`, file: node.file, rolloutIndex: node.hits.rolloutIndex, hit }));
    }
    return [];
  }

  getTreeItem(node: SearchNode): vscode.TreeItem {
    if (node.kind === 'note') {
      const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
      item.id = node.id;
      item.tooltip = node.tooltip;
      item.iconPath = new vscode.ThemeIcon('warning');
      return item;
    }
    if (node.kind === 'rollout') {
      const r = node.hits;
      const name = fileLabel(node.file, r.taskId);
      const item = new vscode.TreeItem(r.rolloutIndex > 0 || name === path.basename(node.file) ? `${name}${r.rolloutIndex > 0 ? ` #${r.rolloutIndex + 1}` : ''}` : name, vscode.TreeItemCollapsibleState.Expanded);
      item.id = node.id;
      const reward = r.reward !== null ? ` · reward ${Math.round(r.reward * 1000) / 1000}` : '';
      const rel = vscode.workspace.asRelativePath(path.dirname(node.file), false);
      item.description = `${r.steps.length} ${r.steps.length === 1 ? 'step' : 'steps'}${reward}${r.resolved === true ? ' · resolved' : r.resolved === false ? ' · failed' : ''} · ${rel}`;
      item.tooltip = `${vscode.workspace.asRelativePath(node.file, true)}\n${r.rolloutId}`;
      item.iconPath = new vscode.ThemeIcon(r.resolved === true ? 'pass' : r.resolved === false ? 'error' : 'symbol-event');
      item.resourceUri = vscode.Uri.file(node.file);
      item.contextValue = 'searchRollout';
      return item;
    }
    const { label, highlight } = stepHitLabel(node.hit);
    const item = new vscode.TreeItem(highlight ? { label, highlights: [highlight] } : label, vscode.TreeItemCollapsibleState.None);
    item.id = node.id;
    item.description = node.hit.role;
    const md = new vscode.MarkdownString(undefined, false);
    md.appendMarkdown(`**Step ${node.hit.stepIndex + 1}** · ${node.hit.role}\n\n`);
    for (const m of node.hit.matches) {
      md.appendMarkdown(`*${m.field}* (${m.count} ${m.count === 1 ? 'match' : 'matches'}): `);
      md.appendText(`${m.before}${m.match}${m.after}`);
      md.appendMarkdown('\n\n');
    }
    item.tooltip = md;
    item.iconPath = new vscode.ThemeIcon(node.hit.matches[0].field === 'command' ? 'terminal' : node.hit.matches[0].field === 'output' ? 'output' : 'comment');
    item.command = { command: OPEN_SEARCH_RESULT_COMMAND, title: 'Open Step', arguments: [node.file, node.rolloutIndex, node.hit.stepIndex] };
    item.contextValue = 'searchStep';
    return item;
  }

  dispose(): void {
    this.cancel();
    clearTimeout(this.refreshTimer);
    while (this.disposables.length) this.disposables.pop()?.dispose();
  }
}
