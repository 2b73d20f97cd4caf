/**
 * Steps ↔ workspace files in the editor: the rollouts of open timelines (and, for the command,
 * the workspace's recorded sessions) indexed by the workspace files their steps read or changed
 * (stepFileIndex.ts), and
 * - a gutter mark on each line of a visible workspace file that a step changed last (one colour;
 *   the hover names the step and rollout, and links to the step in the timeline and to its edit
 *   as a diff);
 * - *Show Steps That Touched This File* (editor title / context menu, palette): a quick pick of
 *   every step of the known rollouts that read or changed the file; picking one opens the
 *   timeline at that step, the item's button opens its edit as a diff;
 * - a step's edit as a diff (`vscode.diff`): the file before → after that step, reconstructed
 *   from the file now and the recorded changes (core/files/fileHistory.ts); where the history is
 *   not known, the change's own recorded texts, which the title says.
 *
 * Rollout text is never interpreted: hovers escape it and trust only this feature's two commands.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { changeDiffTexts } from '../core/files/fileHistory';
import { mapPath } from '../core/files/stepFiles';
import type { CommandTable } from './commandTable';
import { readSettings, type SettingsWatcher } from './config';
import { mapLimit } from './mapLimit';
import { notifyInfo, reportError } from './notify';
import type { RolloutFiles } from './rolloutFiles';
import { fileHistories, pathMappings, rolloutLabel, stepFileChips, StepFileIndex, type RolloutFileHistory, type WorkspaceFolderRef, type WorkspaceTouch } from './stepFileIndex';
import type { StepFilesMessage, WebviewMessage } from '../shared/protocol';
import type { TimelineFeature, TimelineView } from './timelineFeature';

/** Command ids: the palette command (package.json) and the two the hovers and quick pick run (internal). */
export const STEP_FILE_COMMANDS = {
  showSteps: 'trajectoryInspector.showStepsTouchingFile',
  openStep: 'trajectoryInspector.files.openStep',
  showEdit: 'trajectoryInspector.files.showStepEdit',
} as const;

/** The scheme of the diff's two sides (read-only texts this feature holds). */
export const STEP_FILE_SCHEME = 'trajectory-inspector-file';

/** Where a step's touch of a file is: what the internal commands take. */
export interface StepFileTarget {
  file: string;
  rolloutIndex: number;
  stepIndex: number;
  /** The local file (absolute). */
  localPath: string;
}

/** What opens a rollout at a step (TimelineEditorProvider). */
export interface StepOpener {
  openRollout(uri: vscode.Uri, rollout: number, step: number | null): Promise<void>;
}

const folderRefs = (): WorkspaceFolderRef[] =>
  (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => ({ name: f.name, path: path.normalize(f.uri.fsPath) }));

const commandLink = (id: string, arg: StepFileTarget): string => `command:${id}?${encodeURIComponent(JSON.stringify([arg]))}`;

/** The file as the editor has it (an open document, unsaved changes included), else on disk; '' when missing. */
async function currentText(localPath: string): Promise<string> {
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && path.normalize(d.uri.fsPath) === localPath);
  if (doc) return doc.getText();
  try {
    return await fs.readFile(localPath, 'utf8');
  } catch {
    return '';
  }
}

/** Read-only texts for the diff editor, by URI (the latest few kept). */
class DiffTexts implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private seq = 0;

  put(name: string, side: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: STEP_FILE_SCHEME, path: `/${side}/${name}`, query: String(++this.seq) });
    this.texts.set(uri.toString(), text);
    while (this.texts.size > 40) this.texts.delete(this.texts.keys().next().value as string);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }
}

/** The feature: index, gutter marks, hover, commands and diff texts. */
export class StepFiles implements TimelineFeature, vscode.Disposable {
  readonly index: StepFileIndex;
  private readonly mark: vscode.TextEditorDecorationType;
  private readonly diffs = new DiffTexts();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly open = new Map<TimelineView, string>();
  /** The loaded file each timeline's rollouts were last indexed from (shown again: not read again). */
  private readonly indexedFrom = new WeakMap<TimelineView, object>();
  private timer: NodeJS.Timeout | null = null;
  private gutter: boolean;

  constructor(
    private readonly output: vscode.LogOutputChannel,
    settings: SettingsWatcher,
    private readonly files: RolloutFiles,
    private readonly opener: StepOpener,
    /** The workspace's recorded sessions (their files), read for *Show Steps That Touched This File*. */
    private readonly sessionFiles: () => Promise<string[]>,
  ) {
    const s = readSettings();
    this.gutter = s.files.gutter;
    this.index = new StepFileIndex(pathMappings(s.files.pathMap, folderRefs()), folderRefs());
    const colour = new vscode.ThemeColor('editorOverviewRuler.modifiedForeground');
    this.mark = vscode.window.createTextEditorDecorationType({
      gutterIconPath: vscode.Uri.parse(`data:image/svg+xml;utf8,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><path d="M4 2h3v12H4z" fill="#a371f7"/><circle cx="10.5" cy="8" r="2.5" fill="#a371f7"/></svg>')}`),
      gutterIconSize: 'contain',
      overviewRulerColor: colour,
      overviewRulerLane: vscode.OverviewRulerLane.Left,
      rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
    });
    this.disposables.push(
      this.mark,
      vscode.workspace.registerTextDocumentContentProvider(STEP_FILE_SCHEME, this.diffs),
      vscode.window.onDidChangeVisibleTextEditors(() => this.schedule()),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.scheme === 'file' && vscode.window.visibleTextEditors.some((ed) => ed.document === e.document)) this.schedule();
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.reindex()),
      settings.onDidChange((e) => {
        if (e.affects('files')) this.reindex();
      }),
    );
  }

  private reindex(): void {
    const s = readSettings();
    this.gutter = s.files.gutter;
    this.index.reindex(pathMappings(s.files.pathMap, folderRefs()), folderRefs());
    this.schedule();
  }

  // ------------------------------------------------------------ TimelineFeature

  /** Indexes the timeline's rollouts: when its file was loaded anew, or (`changed`) its rollouts changed while followed. */
  private indexView(view: TimelineView, changed: boolean): void {
    const lf = view.loadedFile;
    if (view.uri.scheme !== 'file' || !lf) return;
    const file = path.normalize(view.uri.fsPath);
    this.open.set(view, file);
    if (!changed && this.indexedFrom.get(view) === lf && this.index.has(file)) return;
    this.indexedFrom.set(view, lf);
    this.index.set(file, lf.rollouts);
    this.schedule();
  }

  onShown(view: TimelineView): void {
    this.indexView(view, false);
    this.postFiles(view);
  }

  rolloutsChanged(view: TimelineView): void {
    this.indexView(view, true);
    this.postFiles(view);
  }

  /** The chips of the rollout shown: every file each step touched, workspace files by their relative path. */
  private chipsOf(view: TimelineView): StepFilesMessage | null {
    const folders = folderRefs();
    return view.rollout ? stepFileChips(view.rollout, pathMappings(readSettings().files.pathMap, folders), folders) : null;
  }

  private postFiles(view: TimelineView): void {
    try {
      const m = this.chipsOf(view);
      if (m) view.postMessage(m);
    } catch (e) {
      this.output.warn(`step files of ${view.uri.fsPath}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  async onMessage(view: TimelineView, m: WebviewMessage): Promise<void> {
    if (m.type !== 'openStepFile' || m.rolloutIndex !== view.rolloutIndex) return;
    const chip = this.chipsOf(view)?.steps.find((s) => s.index === m.stepIndex)?.files[m.file];
    if (!chip) return;
    if (!chip.local) {
      void notifyInfo(`Trajectory Inspector: ${chip.recorded} is not in this workspace. If the agent worked on a copy of it, map its folder in trajectoryInspector.files.pathMap.`);
      return;
    }
    const local = path.normalize(mapPath(chip.recorded, pathMappings(readSettings().files.pathMap, folderRefs())));
    try {
      await vscode.window.showTextDocument(vscode.Uri.file(local), { viewColumn: vscode.ViewColumn.Beside, preview: true });
    } catch (e) {
      void notifyInfo(`Trajectory Inspector: cannot open ${chip.label}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  onClosed(view: TimelineView): void {
    const file = this.open.get(view);
    this.open.delete(view);
    if (file && ![...this.open.values()].includes(file)) {
      this.index.delete(file);
      this.schedule();
    }
  }

  // ------------------------------------------------------------ gutter

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.refresh();
    }, 150);
  }

  /** Redraws the marks of every visible editor. */
  refresh(): void {
    for (const ed of vscode.window.visibleTextEditors) {
      if (ed.document.uri.scheme !== 'file') continue;
      const touches = this.gutter ? this.index.touchesOf(path.normalize(ed.document.uri.fsPath)) : [];
      const marks: vscode.DecorationOptions[] = [];
      if (touches.length) {
        try {
          for (const h of fileHistories(touches, ed.document.getText())) marks.push(...this.marksOf(ed.document, h));
        } catch (e) {
          this.output.warn(`step marks of ${ed.document.uri.fsPath}: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      ed.setDecorations(this.mark, marks);
    }
  }

  private marksOf(doc: vscode.TextDocument, h: RolloutFileHistory): vscode.DecorationOptions[] {
    const count = this.index.rolloutCount(h.file);
    return h.lines
      .filter((run) => run.start < doc.lineCount)
      .map((run) => {
        const end = Math.min(run.end, doc.lineCount - 1);
        const change = h.changes.find((c) => c.stepIndex === run.stepIndex);
        const target: StepFileTarget = { file: h.file, rolloutIndex: h.rolloutIndex, stepIndex: run.stepIndex, localPath: path.normalize(doc.uri.fsPath) };
        const md = new vscode.MarkdownString(undefined, false);
        md.isTrusted = { enabledCommands: [STEP_FILE_COMMANDS.openStep, STEP_FILE_COMMANDS.showEdit] };
        md.supportHtml = false;
        md.appendMarkdown(`**Changed by step #${run.stepIndex + 1}**`);
        md.appendText(` of ${rolloutLabel(h.file, h.rolloutIndex, count)}${change ? ` (${change.touch.via})` : ''}${run.approximate ? ' — placed by the step’s new text; the file’s history is not known' : ''}`);
        md.appendMarkdown(`\n\n[Open Step in Timeline](${commandLink(STEP_FILE_COMMANDS.openStep, target)}) · [Show Step’s Edit as Diff](${commandLink(STEP_FILE_COMMANDS.showEdit, target)})`);
        return { range: new vscode.Range(run.start, 0, end, doc.lineAt(end).range.end.character), hoverMessage: md };
      });
  }

  // ------------------------------------------------------------ commands

  /** Reads the workspace's sessions that are not indexed yet (for the quick pick). */
  private async indexSessions(): Promise<void> {
    let list: string[];
    try {
      list = await this.sessionFiles();
    } catch (e) {
      this.output.warn(`sessions: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    await mapLimit(
      list.map((f) => path.normalize(f)).filter((f) => !this.index.has(f)),
      2,
      async (f) => {
        try {
          const lf = await this.files.loader.load(f);
          if (![...this.open.values()].includes(f)) this.index.set(f, lf.rollouts);
        } catch (e) {
          this.output.warn(`reading session ${f}: ${e instanceof Error ? e.message : String(e)}`);
        }
      },
    );
  }

  /** *Show Steps That Touched This File*: for `uri` (a context menu's) or the active editor's file. */
  async showSteps(uri?: vscode.Uri): Promise<void> {
    const target = uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri;
    if (!target || target.scheme !== 'file') {
      void notifyInfo('Trajectory Inspector: open a workspace file first, then run Show Steps That Touched This File.');
      return;
    }
    const localPath = path.normalize(target.fsPath);
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Reading sessions…' }, () => this.indexSessions());
    const touches = this.index.touchesOf(localPath);
    const name = path.basename(localPath);
    if (!touches.length) {
      void notifyInfo(
        `Trajectory Inspector: no step of an open rollout or a session of this workspace touched ${name}. Open the rollout in the timeline; for a rollout recorded elsewhere (/testbed, /app, …) map its folder in trajectoryInspector.files.pathMap.`,
      );
      return;
    }
    type Item = vscode.QuickPickItem & { target: StepFileTarget; edit: boolean };
    const diffButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('diff'), tooltip: 'Show Step’s Edit as Diff' };
    const items: Item[] = touches.map((t: WorkspaceTouch) => {
      const edit = t.kind === 'edit';
      const state = edit && (t.outcome === 'failed' || t.outcome === 'rejected') ? ` (${t.outcome}: changed nothing)` : '';
      return {
        label: `$(${edit ? 'edit' : 'eye'}) step #${t.stepIndex + 1} ${edit ? 'changed' : 'read'} ${name}${state}`,
        description: `${rolloutLabel(t.file, t.rolloutIndex, this.index.rolloutCount(t.file))} · ${t.via}`,
        detail: t.path !== localPath ? `recorded as ${t.path}` : undefined,
        target: { file: t.file, rolloutIndex: t.rolloutIndex, stepIndex: t.stepIndex, localPath },
        edit,
        buttons: edit && !state ? [diffButton] : [],
      };
    });
    const qp = vscode.window.createQuickPick<Item>();
    qp.title = `Steps That Touched ${name} (${touches.length})`;
    qp.placeholder = 'Open a step in the timeline; the diff button shows its edit';
    qp.matchOnDescription = true;
    qp.items = items;
    qp.onDidTriggerItemButton((e) => {
      qp.hide();
      void this.showEdit(e.item.target);
    });
    qp.onDidAccept(() => {
      const it = qp.selectedItems[0];
      qp.hide();
      if (it) void this.openStep(it.target);
    });
    qp.onDidHide(() => qp.dispose());
    qp.show();
  }

  /** Opens the timeline of `t`'s rollout at its step. */
  async openStep(t: StepFileTarget): Promise<void> {
    await this.opener.openRollout(vscode.Uri.file(t.file), t.rolloutIndex, t.stepIndex);
  }

  /** Opens step `t`'s edit of its file as a diff: the file before → after the step (or the recorded texts). */
  async showEdit(t: StepFileTarget): Promise<void> {
    const localPath = path.normalize(t.localPath);
    const touches = this.index.touchesOf(localPath).filter((x) => x.file === t.file && x.rolloutIndex === t.rolloutIndex);
    const current = await currentText(localPath);
    const [h] = fileHistories(touches, current);
    const at = h ? h.changes.map((c, k) => ({ c, v: h.versions[k] })).filter((x) => x.c.stepIndex === t.stepIndex) : [];
    const name = path.basename(localPath);
    if (!at.length) {
      void notifyInfo(`Trajectory Inspector: step #${t.stepIndex + 1} made no recorded change to ${name} that applied.`);
      return;
    }
    // Several edits of the file in one step: before the first → after the last.
    const first = at[0];
    const last = at[at.length - 1];
    const whole = first.v.before !== undefined && last.v.after !== undefined;
    const texts = whole ? { before: first.v.before!, after: last.v.after!, whole: true } : changeDiffTexts(first.c.change, first.v);
    if (!texts) {
      void notifyInfo(`Trajectory Inspector: step #${t.stepIndex + 1} changed ${name} (${first.c.touch.via}), but the record does not say how.`);
      return;
    }
    const left = this.diffs.put(name, 'before', texts.before);
    const right = this.diffs.put(name, 'after', texts.after);
    const title = texts.whole ? `${name} (before ↔ after step #${t.stepIndex + 1})` : `${name}: step #${t.stepIndex + 1}’s recorded edit (the file’s history is not known)`;
    await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true });
  }

  /** The palette command and the two internal ones. */
  commands(): CommandTable {
    const guard = (what: string, run: () => Promise<void>) => run().catch((e) => void reportError(this.output, what, e));
    const isTarget = (a: unknown): a is StepFileTarget =>
      typeof a === 'object' && a !== null && typeof (a as StepFileTarget).file === 'string' && Number.isInteger((a as StepFileTarget).rolloutIndex) && Number.isInteger((a as StepFileTarget).stepIndex) && typeof (a as StepFileTarget).localPath === 'string';
    return [
      { id: STEP_FILE_COMMANDS.showSteps, run: (uri?: unknown) => guard('Show Steps That Touched This File', () => this.showSteps(uri instanceof vscode.Uri ? uri : undefined)) },
      { id: STEP_FILE_COMMANDS.openStep, run: (a?: unknown) => (isTarget(a) ? guard('Open Step', () => this.openStep(a)) : undefined) },
      { id: STEP_FILE_COMMANDS.showEdit, run: (a?: unknown) => (isTarget(a) ? guard('Show Step’s Edit as Diff', () => this.showEdit(a)) : undefined) },
    ];
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    while (this.disposables.length) this.disposables.pop()?.dispose();
  }
}
