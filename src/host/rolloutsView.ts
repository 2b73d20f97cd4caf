/**
 * The explorer's "Rollouts" view: every rollout file in the workspace (found with the include /
 * exclude globs), each summarised by loading it with core `loadFile` in the background (a few at a
 * time, cached by modification time; only summaries are kept, never steps). A file that fails to
 * load shows as an error item with the message as its tooltip; nothing here throws.
 *
 * The tree's shape comes from src/host/rolloutTree.ts (pure): Harbor job folders and Terminal-Bench 1
 * run folders show as one collection each (tasks → trials, with pass counts and mean rewards; shown
 * as soon as the files are found, with `loading k/N` while they are read), files holding several
 * rollouts expand to their GRPO groups and rollouts. Sort and filter (commands `Sort Rollouts By…`,
 * `Filter Rollouts…`) apply at every level and are kept in the workspace state.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { formatIssue, isWarning, UnknownFormatError } from '../core/errors';
import { describeJob } from '../core/formats/harborJob';
import { harborScanFilter } from '../core/formats/harborLayout';
import { nodeFiles } from '../core/nodeFiles';
import { mergeEntries, readJournal } from '../core/labels/journal';
import type { RolloutFiles } from './rolloutFiles';
import type { LiveFiles } from './liveFiles';
import type { LoadedFile } from '../core/load';
import type { FormatId } from '../core/model';
import { NotIndexableError } from '../core/scale/rolloutIndex';
import { summarizeIndexed } from '../core/scale/summaries';
import { readSettings, type SettingsWatcher } from './config';
import { wantsIndex } from './dumpIndexes';
import { formatReward } from '../shared/text';
import { derivedText, describeCounts, resolvedText } from './rolloutSummary';
import { errorSummary } from './loadErrors';
import { fileLabel } from './fileLabel';
import { fileSizeText } from './fileSize';
import { joinGlobs } from './globs';
import { mapLimit } from './mapLimit';
import {
  DEFAULT_OPTIONS,
  FILTER_LABELS,
  buildTree,
  collectionDescription,
  disagreementText,
  groupDescription,
  groupTotalsText,
  indexTree,
  isOutcomeFilter,
  jobTooltipLines,
  isSortKey,
  labelState,
  multiFileDescription,
  optionsDescription,
  passState,
  rolloutName,
  taskDescription,
  treeRollout,
  type BranchesNode,
  type CollectionNode,
  type EntryState,
  type FileLeaf,
  type GroupNode,
  type OutcomeFilter,
  type RolloutLeaf,
  type RolloutRefine,
  type SortKey,
  type TaskNode,
  type TreeNode,
  type TreeOptions,
  type RolloutScoreState as TreeScoreState,
  scoresAffectTree,
} from './rolloutTree';
import { branchesDescription, branchesLabel } from './rolloutBranches';

export const ROLLOUTS_VIEW_ID = 'trajectoryInspector.rollouts';
/** Command the tree's items run: (uri, rolloutIndex?) → open the timeline (internal; hidden from the palette). */
export const OPEN_ROLLOUT_COMMAND = 'trajectoryInspector.openRollout';

/** Files larger than this are listed but not summarised (open them to load). */
const SUMMARY_MAX_BYTES = 64 * 1024 * 1024;
const MAX_FILES = 5000;
const LOAD_CONCURRENCY = 4;
const REFRESH_DEBOUNCE_MS = 500;
/** File names found by the include globs that are only candidates: hidden when no loader reads them (a Harbor job's and trial's `result.json`, a TB1 `results.json`). */
const CANDIDATE_NAMES = new Set(['results.json', 'result.json']);
/** Workspace-state keys of the sort and filter. */
const SORT_STATE = 'trajectoryInspector.rollouts.sort';
const FILTER_STATE = 'trajectoryInspector.rollouts.filter';
const REFINE_STATE = 'trajectoryInspector.rollouts.refine';

/** What the label state of a file's rollouts is computed from: ids and the steps with a −1 reference label. */
type LabelBasis = { id: string; steps: { index: number; referenceLabel: { value: number } }[] }[];

/** A found rollout file and what is known of it (the same object across refreshes). */
class FileNode {
  state: EntryState = { kind: 'pending' };
  mtime = -1;
  size = 0;
  labelBasis: LabelBasis = [];
  constructor(readonly uri: vscode.Uri) {}
}

/** A refinement read back from the workspace state (anything malformed is dropped). */
function readRefine(v: unknown): RolloutRefine | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  const num = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? x : null);
  const r: RolloutRefine = {
    minReward: num(o.minReward),
    maxReward: num(o.maxReward),
    minSteps: num(o.minSteps),
    maxSteps: num(o.maxSteps),
    formats: Array.isArray(o.formats) ? (o.formats.filter((f) => typeof f === 'string') as RolloutRefine['formats']) : [],
    task: typeof o.task === 'string' && o.task ? o.task : null,
    labels: o.labels === 'badStep' || o.labels === 'unlabelled' || o.labels === 'labelled' || o.labels === 'lowScore' ? o.labels : null,
  };
  return r;
}

function passIcon(p: 'passed' | 'failed' | 'unknown'): vscode.ThemeIcon {
  if (p === 'passed') return new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'));
  if (p === 'failed') return new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed'));
  return new vscode.ThemeIcon('circle-large-outline');
}

/** Icon of a task or collection: passed / failed when all its judged trials agree. */
function aggregateIcon(s: { passed: number; failed: number; pending: number }, fallback: string): vscode.ThemeIcon {
  if (s.pending > 0) return new vscode.ThemeIcon('loading~spin');
  if (s.passed > 0 && s.failed === 0) return passIcon('passed');
  if (s.failed > 0 && s.passed === 0) return passIcon('failed');
  return new vscode.ThemeIcon(fallback);
}

export class RolloutsView implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly disposables: vscode.Disposable[] = [];
  private watcherDisposables: vscode.Disposable[] = [];
  /** Found files by URI string. */
  private files = new Map<string, FileNode>();
  /** The same files by fsPath (the tree model's key). */
  private byPath = new Map<string, FileNode>();
  private scanned = false;
  private scanning: Promise<void> | null = null;
  private rescanQueued = false;
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  private changeTimer: ReturnType<typeof setTimeout> | undefined;
  private truncated = false;
  /** The tree built from the files' states; null when it must be built again. */
  private model: { roots: TreeNode[]; index: ReturnType<typeof indexTree> } | null = null;
  private options: TreeOptions;
  private readonly view: vscode.TreeView<TreeNode>;

  constructor(
    private readonly output: vscode.LogOutputChannel,
    settings: Pick<SettingsWatcher, 'onDidChange'>,
    private readonly reader: RolloutFiles,
    /** The files timelines follow: their rollouts are taken from there instead of read again. */
    private readonly liveFiles: LiveFiles,
    private readonly state?: vscode.Memento,
    /** The label journal of a rollout file (for the label filters); absent: no label state. */
    private readonly journalOf?: (file: string) => string,
  ) {
    const sort = state?.get<unknown>(SORT_STATE);
    const filter = state?.get<unknown>(FILTER_STATE);
    this.options = {
      sort: isSortKey(sort) ? sort : DEFAULT_OPTIONS.sort,
      filter: isOutcomeFilter(filter) ? filter : DEFAULT_OPTIONS.filter,
      refine: readRefine(state?.get<unknown>(REFINE_STATE)),
    };
    this.view = vscode.window.createTreeView(ROLLOUTS_VIEW_ID, { treeDataProvider: this, showCollapseAll: true, canSelectMany: true });
    this.view.description = optionsDescription(this.options);
    this.disposables.push(
      this.view,
      this.emitter,
      settings.onDidChange((e) => {
        if (e.affects('rollouts')) {
          this.watch();
          this.refresh();
        }
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => {
        this.watch();
        this.refresh();
      }),
    );
    this.watch();
    // A file a timeline follows: its rollouts as the timeline read them, not read again here.
    this.disposables.push({ dispose: this.liveFiles.onChange((file, loaded) => this.liveChanged(file, loaded)) });
    // Label journals change as people label: re-read the label state of the files (not the files).
    const journals = vscode.workspace.createFileSystemWatcher('**/.trajectory-labels/**/*.labels.jsonl');
    const onJournal = (): void => {
      clearTimeout(this.labelTimer);
      this.labelTimer = setTimeout(() => void this.refreshLabels(), REFRESH_DEBOUNCE_MS);
    };
    this.disposables.push(journals, journals.onDidChange(onJournal), journals.onDidCreate(onJournal), journals.onDidDelete(onJournal));
  }

  private labelTimer: ReturnType<typeof setTimeout> | undefined;

  /** Label state of a file's rollouts from its journal (every annotator) and the data's reference labels. */
  private async readLabels(node: FileNode): Promise<void> {
    if (node.state.kind !== 'loaded' || !this.journalOf) return;
    let current: { rolloutId: string; stepIndex: number | null; value: 1 | 0 | -1 | null }[] = [];
    try {
      current = [...mergeEntries((await readJournal(this.journalOf(node.uri.fsPath))).entries).values()];
    } catch (e) {
      this.output.debug(`Rollouts view: labels of ${node.uri.fsPath}: ${String(e)}`);
    }
    const st = node.state;
    node.state = { ...st, rollouts: st.rollouts.map((r, i) => ({ ...r, labels: labelState(node.labelBasis[i] ?? { id: r.id, steps: [] }, current) })) };
  }

  /** Re-reads the label journals of the read files (after labelling, or before a label filter applies). */
  async refreshLabels(): Promise<void> {
    await mapLimit([...this.byPath.values()], LOAD_CONCURRENCY, (n) => this.readLabels(n));
    this.changed();
  }

  /** The current refinement (reward / steps / format / task / label filters). */
  get refine(): RolloutRefine | undefined {
    return this.options.refine;
  }

  /** Sets the refinement (kept in the workspace state); undefined clears it. */
  async setRefine(refine: RolloutRefine | undefined): Promise<void> {
    this.options = { ...this.options, refine };
    await this.state?.update(REFINE_STATE, refine);
    if (refine?.labels) await this.refreshLabels();
    this.optionsChanged();
  }

  /** The rollouts as the tree shows them now (filtered and sorted): file path and rollout index, in order. */
  visibleRollouts(): { path: string; index: number; id: string; taskId: string | null; groupId: string | null }[] {
    const out: { path: string; index: number; id: string; taskId: string | null; groupId: string | null }[] = [];
    const walk = (n: TreeNode): void => {
      if (n.kind === 'rollout') out.push({ path: n.path, index: n.rollout.index, id: n.rollout.id, taskId: n.rollout.taskId, groupId: n.rollout.groupId });
      else if (n.kind === 'file' && n.children.length === 0 && n.state.kind === 'loaded' && n.state.rollouts.length === 1) {
        const r = n.state.rollouts[0];
        out.push({ path: n.path, index: r.index, id: r.id, taskId: r.taskId, groupId: r.groupId });
      }
      n.children.forEach(walk);
    };
    this.getModel().roots.forEach(walk);
    return out;
  }

  /** The nodes selected in the view (several with Ctrl/Cmd-click). */
  get selection(): readonly TreeNode[] {
    return this.view.selection;
  }

  /** Paths of every rollout file found (for workspace search), scanning first when needed. */
  async allFiles(): Promise<string[]> {
    if (!this.scanned) await this.scan();
    return [...this.byPath.keys()];
  }

  /** What is known of a file: its format when read. */
  formatOf(file: string): string | null {
    const st = this.byPath.get(file)?.state;
    return st?.kind === 'loaded' ? st.format : null;
  }

  /** Current sort and filter. */
  get treeOptions(): TreeOptions {
    return { ...this.options };
  }

  /** Sorts every level of the tree by `sort` (kept in the workspace state). */
  async setSort(sort: SortKey): Promise<void> {
    this.options = { ...this.options, sort };
    await this.state?.update(SORT_STATE, sort);
    this.optionsChanged();
  }

  /** Shows only rollouts whose outcome matches `filter` (kept in the workspace state). */
  async setFilter(filter: OutcomeFilter): Promise<void> {
    this.options = { ...this.options, filter };
    await this.state?.update(FILTER_STATE, filter);
    this.optionsChanged();
  }

  private optionsChanged(): void {
    this.view.description = optionsDescription(this.options);
    this.model = null;
    this.emitter.fire(undefined);
  }

  /** (Re)creates the file watcher for the include globs. */
  private watch(): void {
    this.watcherDisposables.forEach((d) => d.dispose());
    this.watcherDisposables = [];
    const include = joinGlobs(readSettings().rollouts.include);
    if (include === null) return;
    for (const glob of Array.isArray(include) ? include : [include]) {
      const w = vscode.workspace.createFileSystemWatcher(glob);
      const changed = (uri: vscode.Uri): void => {
        const node = this.files.get(uri.toString());
        if (node) node.mtime = -1; // summarise again
        this.scheduleRefresh();
      };
      this.watcherDisposables.push(w, w.onDidChange(changed), w.onDidCreate(changed), w.onDidDelete(changed));
    }
  }

  private scheduleRefresh(): void {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => this.refresh(), REFRESH_DEBOUNCE_MS);
  }

  /** Scans the workspace again (cached summaries of unchanged files are kept). */
  refresh(): void {
    this.scanned = false;
    this.model = null;
    this.emitter.fire(undefined);
  }

  /** Redraws soon; many loads finishing together cause one redraw. */
  private changed(): void {
    if (this.changeTimer) return;
    this.changeTimer = setTimeout(() => {
      this.changeTimer = undefined;
      this.model = null;
      this.emitter.fire(undefined);
    }, 150);
  }

  /** Step-score summaries by file path, then rollout id (from the scoring service; see setScores). */
  private readonly scoreStates = new Map<string, ReadonlyMap<string, TreeScoreState>>();

  /**
   * Puts a file's step-score summaries (lowest and mean step score, steps scored) on its rollouts,
   * for the "lowest score" sort and the low-scored-step filter; the tree redraws when that sort or
   * filter is on (scoresAffectTree). An empty map clears them.
   */
  setScores(file: string, byRollout: ReadonlyMap<string, TreeScoreState>): void {
    this.scoreStates.set(path.resolve(file), byRollout);
    // Without the score sort or the low-score filter the tree looks the same: no redraw (see scoresAffectTree);
    // the next redraw for any other reason, or choosing that sort or filter, picks the scores up.
    if (scoresAffectTree(this.options)) this.changed();
  }

  private withScores(file: string, state: FileNode['state']): FileNode['state'] {
    const m = this.scoreStates.get(path.resolve(file));
    if (!m?.size || state.kind !== 'loaded') return state;
    return { ...state, rollouts: state.rollouts.map((r) => (m.has(r.id) ? { ...r, scores: m.get(r.id) } : r)) };
  }

  private getModel(): NonNullable<RolloutsView['model']> {
    if (!this.model) {
      const entries = [...this.byPath.entries()].map(([p, n]) => ({ path: p, state: this.withScores(p, n.state) }));
      const roots = buildTree(entries, this.options);
      this.model = { roots, index: indexTree(roots) };
    }
    return this.model;
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    switch (node.kind) {
      case 'collection':
        return this.collectionItem(node);
      case 'task':
        return this.taskItem(node);
      case 'group':
        return this.groupItem(node);
      case 'rollout':
        return this.rolloutItem(node);
      case 'file':
        return this.fileItem(node);
      case 'branches':
        return this.branchesItem(node);
    }
  }

  /** The branches of a rollout from one step (rolloutBranches.ts): Show Group opens them with their parent. */
  private branchesItem(node: BranchesNode): vscode.TreeItem {
    const item = new vscode.TreeItem(branchesLabel(node), vscode.TreeItemCollapsibleState.Expanded);
    item.id = node.id;
    item.description = branchesDescription(node);
    item.iconPath = new vscode.ThemeIcon('git-branch');
    item.tooltip = `Branches of ${vscode.workspace.asRelativePath(this.uriOf(node.path), true)}${node.stepIndex !== null ? ` from step #${node.stepIndex + 1}` : ''} (Branch from Here…): ${branchesDescription(node)}`;
    item.contextValue = 'rolloutBranches';
    return item;
  }

  private uriOf(fsPath: string): vscode.Uri {
    return this.byPath.get(fsPath)?.uri ?? vscode.Uri.file(fsPath);
  }

  private collectionItem(node: CollectionNode): vscode.TreeItem {
    const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = node.id;
    item.description = collectionDescription(node);
    item.iconPath = node.stats.pending > 0 ? new vscode.ThemeIcon('loading~spin') : new vscode.ThemeIcon('folder-library');
    const s = node.stats;
    const kind = node.layout === 'harbor-job' ? 'Harbor job' : node.layout === 'tb1-run' ? 'Terminal-Bench 1 run' : 'Trial folders';
    const md = new vscode.MarkdownString(undefined, false);
    md.appendMarkdown(`**${kind}** · `);
    md.appendText(vscode.workspace.asRelativePath(vscode.Uri.file(node.dir), true));
    md.appendMarkdown(`\n\n${s.total} trials: ${s.passed} passed, ${s.failed} failed, ${s.unknown} unknown outcome`);
    if (s.pending) md.appendMarkdown(`, ${s.pending} not read yet`);
    if (s.unreadable) md.appendMarkdown(`, ${s.unreadable} unreadable`);
    if (s.meanReward !== null) md.appendMarkdown(`\n\nMean reward ${formatReward(s.meanReward)}`);
    if (node.job) {
      // What the job's result.json records, then where it and the trials found disagree.
      md.appendMarkdown('\n\n**Job result** (`result.json`):');
      for (const l of jobTooltipLines(node.job)) {
        md.appendMarkdown('\n\n');
        md.appendText(l);
      }
    } else if (node.runFile) {
      md.appendMarkdown('\n\nRun results: ');
      md.appendText(path.basename(node.runFile));
    }
    item.tooltip = md;
    item.contextValue = 'rolloutCollection';
    return item;
  }

  private taskItem(node: TaskNode): vscode.TreeItem {
    const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = node.id;
    item.description = taskDescription(node);
    item.iconPath = aggregateIcon(node.stats, 'tasklist');
    item.tooltip = `${node.label}\n${node.stats.total} trials: ${node.stats.passed} passed, ${node.stats.failed} failed, ${node.stats.unknown} unknown`;
    item.contextValue = 'rolloutTask';
    return item;
  }

  private groupItem(node: GroupNode): vscode.TreeItem {
    const item = new vscode.TreeItem(`group ${node.groupId}`, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = node.id;
    item.description = groupDescription(node);
    item.iconPath = new vscode.ThemeIcon('layers');
    item.tooltip = [`GRPO group ${node.groupId}`, groupDescription(node, Infinity), groupTotalsText(node)].filter(Boolean).join('\n');
    item.contextValue = 'rolloutGroup';
    return item;
  }

  private fileItem(node: FileLeaf): vscode.TreeItem {
    const st = node.state;
    const uri = this.uriOf(node.path);
    const rel = vscode.workspace.asRelativePath(uri, true);
    const rollouts = st.kind === 'loaded' ? st.rollouts : [];
    const single = rollouts.length === 1 ? rollouts[0] : null;
    const label = node.label ?? fileLabel(node.path, single?.taskId ?? null);
    const item = new vscode.TreeItem(label, node.children.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = node.id;
    item.resourceUri = uri;
    item.command = { command: OPEN_ROLLOUT_COMMAND, title: 'Open', arguments: [uri] };
    switch (st.kind) {
      case 'pending':
      case 'ignored':
        item.description = 'loading…';
        item.iconPath = new vscode.ThemeIcon('loading~spin');
        item.tooltip = rel;
        item.contextValue = 'rolloutFile';
        break;
      case 'large':
        item.description = `${fileSizeText(st.bytes)} · open to load`;
        item.iconPath = new vscode.ThemeIcon('file');
        item.tooltip = `${rel}\nLarge file: not summarised here. Open it to see its steps.`;
        item.contextValue = 'rolloutFile';
        break;
      case 'error':
        item.description = 'could not load';
        item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
        item.tooltip = `${rel}\n\n${st.message}`;
        item.contextValue = 'rolloutFile.error';
        break;
      case 'loaded': {
        if (node.role === 'run' && st.job) {
          // A Harbor job's own result.json: its summary, opened as the JSON it is.
          const named = st.job.trials.length;
          item.label = path.basename(node.path);
          item.description = `job result · ${named} ${named === 1 ? 'trial' : 'trials'} named${rollouts.length ? ` · ${rollouts.length} without a folder here` : ''}`;
          item.iconPath = new vscode.ThemeIcon('checklist');
          item.command = { command: 'vscode.open', title: 'Open', arguments: [uri] };
        } else if (node.role === 'run') {
          item.label = path.basename(node.path);
          item.description = `run results · ${rollouts.length} ${rollouts.length === 1 ? 'trial' : 'trials'}`;
          item.iconPath = new vscode.ThemeIcon('checklist');
        } else if (single) {
          item.description = describeCounts(single.steps, single.reward, single.resolved, single.derived, single.status ?? null);
          if (single.exception) item.description += ` · ${single.exception}`;
          if (node.disagreements?.length) item.description += ' · job result differs';
          item.iconPath = single.exception ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground')) : passIcon(passState(single));
        } else {
          item.description = multiFileDescription(rollouts, node.groups);
          item.iconPath = new vscode.ThemeIcon('list-unordered');
        }
        if (st.warnings) {
          // Something of the file is not shown (a trial result not joined, a continuation not read): say so.
          item.description = `${item.description} · ⚠ ${st.warnings.count} ${st.warnings.count === 1 ? 'warning' : 'warnings'}`;
          item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
        }
        if (st.indexing) {
          item.description = `${item.description} · indexing ${Math.floor((100 * st.indexing.bytes) / Math.max(1, st.indexing.size))}%`;
          item.iconPath = new vscode.ThemeIcon('loading~spin');
        }
        const md = new vscode.MarkdownString(undefined, false);
        md.appendText(rel);
        md.appendMarkdown(`\n\n${st.format}${st.schemaVersion ? ` · ${st.schemaVersion}` : ''}`);
        if (single?.exception) {
          md.appendMarkdown('\n\nEnded with an exception: ');
          md.appendText(single.exception);
        }
        if (single?.derived?.length) {
          md.appendMarkdown('\n\n');
          md.appendText(derivedText(single.derived));
        }
        for (const d of node.disagreements ?? []) {
          md.appendMarkdown('\n\n');
          md.appendText(disagreementText(d));
        }
        if (st.warnings) {
          md.appendMarkdown(`\n\n${st.warnings.count} ${st.warnings.count === 1 ? 'warning' : 'warnings'}:`);
          for (const w of st.warnings.first) {
            md.appendMarkdown('\n\n- ');
            md.appendText(w);
          }
          if (st.warnings.count > st.warnings.first.length) md.appendMarkdown(`\n\n… (${st.warnings.count - st.warnings.first.length} more: open the file)`);
        }
        if (st.job) {
          for (const l of describeJob(st.job)) {
            md.appendMarkdown('\n\n');
            md.appendText(l);
          }
        }
        if (single?.parent) {
          md.appendMarkdown('\n\nBranch of ');
          md.appendText(`${vscode.workspace.asRelativePath(this.uriOf(single.parent.path), true)}${single.parent.stepIndex !== null ? ` from step #${single.parent.stepIndex + 1}` : ''}; ${single.parent.stop ? `ended: ${single.parent.stop}` : 'running'}`);
          item.description = `${item.description} · ${single.parent.stop ?? 'running'}`;
        }
        item.tooltip = md;
        // A branch offers Compare with Parent besides what every file offers.
        item.contextValue = single?.parent ? 'rolloutFile.branch' : 'rolloutFile';
        break;
      }
    }
    if (node.role === 'run' && st.kind !== 'loaded') item.label = path.basename(node.path);
    return item;
  }

  private rolloutItem(node: RolloutLeaf): vscode.TreeItem {
    const s = node.rollout;
    // Collapsible when branches of it are listed under it.
    const item = new vscode.TreeItem(node.label ?? rolloutName(s), node.children.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    const uri = this.uriOf(node.path);
    item.id = node.id;
    item.description = describeCounts(s.steps, s.reward, s.resolved, s.derived, s.status ?? null);
    if (s.exception && s.exception !== s.status) item.description += ` · ${s.exception}`; // a Harbor status is its exception: said once
    // A trial a Harbor job result names without its folder: only the job's word for it.
    if (s.format === 'harbor-job') item.description += ' · folder not here';
    item.iconPath = s.exception ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground')) : passIcon(passState(s));
    item.tooltip = `${s.id}\n${s.line !== null ? `line ${s.line} · ` : ''}${s.groupId !== null ? `group ${s.groupId} · ` : ''}${resolvedText(s.resolved, s.status ?? null)}${s.exception ? `\nEnded with ${s.exception}` : ''}${s.format === 'harbor-job' ? '\nNamed by the job result; the trial folder is not in the workspace.' : ''}${s.derived?.length ? `\n${derivedText(s.derived)}` : ''}`;
    item.command = { command: OPEN_ROLLOUT_COMMAND, title: 'Open', arguments: [uri, s.index] };
    item.contextValue = 'rollout';
    return item;
  }

  async getChildren(node?: TreeNode): Promise<TreeNode[]> {
    if (node) {
      // The node may come from an older build of the tree: answer with the current one's children
      // (none when the node is gone, e.g. filtered out).
      return this.getModel().index.get(node.id)?.node.children ?? [];
    }
    if (!this.scanned) await this.scan();
    const roots = this.getModel().roots;
    const filtered = this.options.filter !== 'all';
    this.view.message = this.truncated
      ? `Showing the first ${MAX_FILES} rollout files.`
      : filtered && roots.length === 0 && this.byPath.size > 0
        ? `No rollout matches the filter "${optionsDescription({ ...this.options, sort: 'name' }) ?? FILTER_LABELS[this.options.filter].label}".`
        : undefined;
    return roots;
  }

  getParent(node: TreeNode): TreeNode | undefined {
    return this.getModel().index.get(node.id)?.parent ?? undefined;
  }

  /** Finds the files, keeps known nodes, then summarises new or changed ones in the background. */
  private scan(): Promise<void> {
    if (this.scanning) {
      this.rescanQueued = true;
      return this.scanning;
    }
    this.scanning = this.doScan()
      .catch((e) => this.output.error(`Rollouts view: scan failed: ${String(e)}`))
      .finally(() => {
        this.scanning = null;
        if (this.rescanQueued) {
          this.rescanQueued = false;
          this.refresh();
        }
      });
    return this.scanning;
  }

  private async doScan(): Promise<void> {
    const cfg = readSettings().rollouts;
    const include = joinGlobs(cfg.include);
    const exclude = joinGlobs(cfg.exclude);
    const found = new Map<string, vscode.Uri>();
    if (include !== null && vscode.workspace.workspaceFolders?.length) {
      const includes = Array.isArray(include) ? include : [include];
      const ex = exclude === null ? null : Array.isArray(exclude) ? `{${exclude.join(',')}}` : exclude;
      for (const glob of includes) {
        for (const uri of await vscode.workspace.findFiles(glob, ex, MAX_FILES + 1)) found.set(uri.toString(), uri);
      }
    }
    let uris = [...found.values()].sort((a, b) => a.fsPath.localeCompare(b.fsPath));
    // Harbor: a trial's result.json beside its trajectory, and a retried trial's earlier attempts, are read through the trial's final rollout.
    const keep = new Set(await harborScanFilter(uris.filter((u) => u.scheme === 'file').map((u) => u.fsPath), nodeFiles));
    uris = uris.filter((u) => u.scheme !== 'file' || keep.has(u.fsPath));
    this.truncated = uris.length > MAX_FILES;
    const next = new Map<string, FileNode>();
    for (const uri of uris.slice(0, MAX_FILES)) next.set(uri.toString(), this.files.get(uri.toString()) ?? new FileNode(uri));
    this.files = next;
    this.byPath = new Map([...next.values()].map((n) => [n.uri.fsPath, n]));
    this.model = null;
    this.scanned = true;
    void this.summariseAll([...next.values()]);
  }

  private async summariseAll(nodes: FileNode[]): Promise<void> {
    await mapLimit(nodes, LOAD_CONCURRENCY, async (node) => {
      const before = node.state;
      try {
        await this.summarise(node);
      } catch (e) {
        node.state = { kind: 'error', message: errorSummary(e) };
      }
      if (node.state !== before) this.changed();
    });
  }

  private async summarise(node: FileNode): Promise<void> {
    let stat: vscode.FileStat;
    try {
      stat = await vscode.workspace.fs.stat(node.uri);
    } catch (e) {
      node.state = { kind: 'error', message: errorSummary(e) };
      return;
    }
    if (stat.mtime === node.mtime && stat.size === node.size && node.state.kind !== 'pending') return;
    node.mtime = stat.mtime;
    node.size = stat.size;
    const live = node.uri.scheme === 'file' ? this.liveFiles.get(node.uri.fsPath) : undefined;
    if (live) {
      this.fromLoaded(node, live);
      await this.readLabels(node);
      return;
    }
    if (node.uri.scheme === 'file' && wantsIndex(node.uri.fsPath, stat.size) && (await this.summariseIndexed(node))) return;
    if (stat.size > SUMMARY_MAX_BYTES) {
      node.state = { kind: 'large', bytes: stat.size };
      return;
    }
    if (node.uri.scheme !== 'file') {
      node.state = { kind: 'error', message: `Only files on disk are read (scheme "${node.uri.scheme}").` };
      return;
    }
    try {
      this.fromLoaded(node, await this.reader.loader.load(node.uri.fsPath));
      await this.readLabels(node);
    } catch (e) {
      if (e instanceof UnknownFormatError && CANDIDATE_NAMES.has(path.basename(node.uri.fsPath))) {
        node.state = { kind: 'ignored' }; // some other tool's results.json: not a rollout, not an error
        return;
      }
      node.state = { kind: 'error', message: errorSummary(e, 12) };
      this.output.info(`Rollouts view: ${path.basename(node.uri.fsPath)}: ${errorSummary(e, 3)}`);
    }
  }

  /** A file's summaries from its rollouts (only the summaries are kept: the steps are read again when the file is opened). */
  private fromLoaded(node: FileNode, loaded: LoadedFile): void {
    // Keep only the summaries: the steps are read again when the file is opened.
    // A Harbor job result is its stats (and the trials it names without a folder): loaded even when it holds no rollout.
    node.state =
      loaded.rollouts.length === 0 && !loaded.job
        ? { kind: 'error', message: `Read as ${loaded.format}, but the file holds no rollouts.` }
        : { kind: 'loaded', format: loaded.format, schemaVersion: loaded.schemaVersion, rollouts: loaded.rollouts.map(treeRollout), ...(loaded.job ? { job: loaded.job } : {}), ...fileWarnings(loaded) };
    node.labelBasis = loaded.rollouts.map((r) => ({
      id: r.id,
      steps: r.steps.filter((s) => s.referenceLabel?.value === -1).map((s) => ({ index: s.index, referenceLabel: { value: -1 } })),
    }));
  }

  /**
   * A followed file changed (live follow): its step counts and outcomes from what the timeline read,
   * keeping the label state (the same rollouts: no step of them is read here); new rollouts in full.
   */
  private liveChanged(file: string, loaded: LoadedFile): void {
    const node = this.byPath.get(file);
    if (!node) return;
    const st = node.state;
    if (st.kind === 'loaded' && st.rollouts.length === loaded.rollouts.length && st.rollouts.every((r, i) => r.id === loaded.rollouts[i].id)) {
      node.state = {
        ...st,
        rollouts: st.rollouts.map((r, i) => {
          const l = loaded.rollouts[i];
          return { ...r, steps: l.steps.length, reward: l.outcome.reward, resolved: l.outcome.resolved, status: l.outcome.status, taskId: l.task.id };
        }),
      };
    } else {
      this.fromLoaded(node, loaded);
      void this.readLabels(node).then(() => this.changed());
    }
    this.changed();
  }

  /**
   * Lists a large JSONL dump from its index (dumpIndexes.ts): the first rollouts show while the
   * pass goes on, with its progress in the file's description. False when the file is not a
   * row-per-line dump (the caller treats it as before).
   */
  private async summariseIndexed(node: FileNode): Promise<boolean> {
    const dumps = this.reader.dumps;
    if (!dumps) return false;
    const show = (idx: { format: FormatId; entries: Parameters<typeof summarizeIndexed>[0] }, indexing?: { bytes: number; size: number }): void => {
      node.state = { kind: 'loaded', format: idx.format, schemaVersion: null, rollouts: summarizeIndexed(idx.entries), ...(indexing ? { indexing } : {}) };
      this.changed();
    };
    let last = 0;
    try {
      const idx = await dumps.index(node.uri.fsPath, (i, p) => {
        // Redraw at most twice a second while indexing (the tree is rebuilt from every entry).
        const now = Date.now();
        if (now - last < 500 && i.entries.length > 0 && last > 0) return;
        last = now;
        show(i, { bytes: p.bytes, size: p.size });
      });
      if (idx.entries.length === 0) {
        node.state = { kind: 'error', message: `Read as ${idx.format}, but no row is a rollout${idx.skippedMessages.length ? `:\n${idx.skippedMessages.slice(0, 5).join('\n')}` : '.'}` };
        return true;
      }
      show(idx);
      return true;
    } catch (e) {
      if (e instanceof NotIndexableError) return false;
      throw e;
    }
  }

  dispose(): void {
    clearTimeout(this.refreshTimer);
    clearTimeout(this.changeTimer);
    clearTimeout(this.labelTimer);
    this.watcherDisposables.forEach((d) => d.dispose());
    while (this.disposables.length) this.disposables.pop()?.dispose();
  }
}

/** How many of a file's warnings the Rollouts view's tooltip lists. */
const WARNINGS_SHOWN = 5;

/** The `warnings` of a loaded file's tree state (see EntryState): the count and the first few, formatted; {} when none. */
export function fileWarnings(loaded: LoadedFile): { warnings?: { count: number; first: string[] } } {
  const w = (loaded.issues ?? []).filter(isWarning);
  return w.length ? { warnings: { count: w.length, first: w.slice(0, WARNINGS_SHOWN).map(formatIssue) } } : {};
}
