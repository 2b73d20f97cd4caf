/**
 * The compare and group webview panels: two rollouts side by side with their steps
 * aligned (core `alignRollouts`), or every rollout of one GRPO group with where each first parts from
 * the best. Each panel loads its rollout files with core `loadFile`, reads their labels from the
 * label journals (read-only), builds its message with ./compareView.ts and posts it when the webview
 * says `ready` (again after every re-creation: the panel keeps no context while hidden).
 * Clicking a step opens that side's rollout in the timeline at that step, beside the panel.
 *
 * The page has the timeline's strict CSP (nonce'd module script, no inline styles); all rollout text
 * reaches it by postMessage and is rendered as Lit text bindings.
 */
import * as vscode from 'vscode';
import { mergeEntries, readJournal } from '../../core/labels/journal';
import type { LoadedFile } from '../../core/load';
import { reportError } from '../notify';
import type { RolloutFiles } from '../rolloutFiles';
import type { Rollout, Score } from '../../core/model';
import { isCompareWebviewMessage, type CompareHostMessage, type CompareWebviewMessage } from '../../shared/compareProtocol';
import { makeNonce } from '../webviewHtml';
import type { TimelineEditorProvider } from '../timelineEditor';
import { compareHtml, compareMessage, groupMessage, type CompareInput, type LabelLike } from './compareView';

export const COMPARE_VIEW_TYPE = 'trajectoryInspector.compare';

/** A rollout chosen for comparison: its file and index in the file. */
export interface RolloutRef {
  path: string;
  index: number;
}

/**
 * Per-step scores of rollouts (the scoring service's `scoresFor`): a map from rollout id to its
 * scores; rollouts the scorer could not score are missing from it.
 */
export type ScoreLookup = (items: { file: string; rollout: Rollout }[]) => Promise<ReadonlyMap<string, readonly Score[]>>;

/** A member of a group panel: where it is and the rollout read. */
interface Member {
  ref: RolloutRef;
  rollout: Rollout;
}

/** Opens compare and group panels. */
export class ComparePanels implements vscode.Disposable {
  private readonly panels = new Set<vscode.WebviewPanel>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly output: vscode.LogOutputChannel,
    private readonly timelines: TimelineEditorProvider,
    /** How compare reads the files of the rollouts it shows. */
    readonly files: RolloutFiles,
    private readonly journalOf: (file: string) => string,
    private readonly scores: ScoreLookup | null = null,
  ) {}

  private async labelsOf(file: string): Promise<LabelLike[]> {
    try {
      return [...mergeEntries((await readJournal(this.journalOf(file))).entries).values()];
    } catch (e) {
      this.output.warn(`compare: labels of ${file}: ${String(e)}`);
      return [];
    }
  }

  private async input(ref: RolloutRef, files: Map<string, LoadedFile>): Promise<CompareInput> {
    let f = files.get(ref.path);
    if (!f) files.set(ref.path, (f = await this.files.loader.load(ref.path)));
    const rollout = f.rollouts[ref.index];
    if (!rollout) throw new Error(`${ref.path} has ${f.rollouts.length} rollout(s); there is no rollout #${ref.index + 1}.`);
    const scores = (await this.scores?.([{ file: ref.path, rollout }]))?.get(rollout.id) ?? [];
    return { file: ref.path, rolloutIndex: ref.index, rollout, labels: await this.labelsOf(ref.path), scores };
  }

  /**
   * Opens a panel comparing two rollouts. Load errors are shown in the panel.
   * @param forkStep when `right` is a branch of `left` (Compare with Parent): the index of its first new step, where the view opens
   */
  async openCompare(left: RolloutRef, right: RolloutRef, forkStep: number | null = null): Promise<vscode.WebviewPanel> {
    const title = `Compare: ${shortName(left)} ↔ ${shortName(right)}`;
    const panel = this.createPanel(title);
    const files = new Map<string, LoadedFile>();
    let msg: CompareHostMessage;
    try {
      const [a, b] = [await this.input(left, files), await this.input(right, files)];
      msg = compareMessage(a, b, {}, forkStep);
      this.output.info(`compare: ${left.path}#${left.index} ↔ ${right.path}#${right.index}: ${JSON.stringify(msg.counts)}`);
    } catch (e) {
      msg = { type: 'compareError', message: e instanceof Error ? e.message : String(e) };
    }
    this.wire(panel, msg, (m) => {
      if (m.type === 'openStep') {
        const ref = m.side === 'left' ? left : right;
        return this.timelines.openRollout(vscode.Uri.file(ref.path), ref.index, m.stepIndex, vscode.ViewColumn.Beside);
      }
    });
    return panel;
  }

  /** Opens a panel listing the rollouts of one group of a file (`groupId` null: every rollout of the file). */
  async openGroup(file: string, groupId: string | null): Promise<vscode.WebviewPanel> {
    const title = groupId !== null ? `Group ${groupId}` : shortName({ path: file, index: 0 });
    return this.openMembers(title, vscode.workspace.asRelativePath(file, true), groupId, () => this.groupMembers(file, groupId));
  }

  /**
   * The rollouts of group `groupId` of `file` (every rollout when null), in file order. A dump the
   * Rollouts view has indexed is read through its index: only the members' rows (a group of 48 of a
   * 1,000-row dump reads 48 rows); any other file is loaded whole (off the host's thread).
   * @throws Error when no rollout of the file is in the group
   */
  private async groupMembers(file: string, groupId: string | null): Promise<Member[]> {
    const dumps = this.files.dumps;
    const index = dumps?.current(file) ?? null;
    let members: Member[];
    if (dumps && index) {
      const at = index.entries.flatMap((e, i) => (groupId === null || e.groupId === groupId ? [i] : []));
      members = [];
      // A few rows at a time: each is read and parsed on its own.
      for (let k = 0; k < at.length; k += 8) {
        const chunk = await Promise.all(at.slice(k, k + 8).map(async (i) => ({ ref: { path: file, index: i }, rollout: await dumps.open(file, i) })));
        members.push(...chunk);
      }
    } else {
      const loaded = await this.files.loader.load(file);
      members = loaded.rollouts.flatMap((r, index) => (groupId === null || r.groupId === groupId ? [{ ref: { path: file, index }, rollout: r }] : []));
    }
    if (members.length === 0) throw new Error(`No rollout of ${file} is in group ${groupId}.`);
    return members;
  }

  /** Opens a panel listing the given rollouts as one group (the trials of one task of a job / run folder). */
  async openGroupOf(title: string, source: string, refs: readonly RolloutRef[]): Promise<vscode.WebviewPanel> {
    return this.openMembers(title, source, null, async () => {
      const files = new Map<string, LoadedFile>();
      const out: Member[] = [];
      for (const ref of refs) {
        let f = files.get(ref.path);
        if (!f) files.set(ref.path, (f = await this.files.loader.load(ref.path)));
        const rollout = f.rollouts[ref.index];
        if (!rollout) throw new Error(`${ref.path} has ${f.rollouts.length} rollout(s); there is no rollout #${ref.index + 1}.`);
        out.push({ ref, rollout });
      }
      return out;
    });
  }

  /**
   * A group panel: its members' labels read once per file; no step scores (the group page shows
   * none, and asking the scorer for each member one after another kept a group of 48 at "Loading…"
   * for seconds).
   */
  private async openMembers(title: string, source: string, groupId: string | null, membersOf: () => Promise<Member[]>): Promise<vscode.WebviewPanel> {
    const panel = this.createPanel(title);
    let msg: CompareHostMessage;
    let refs: RolloutRef[] = [];
    try {
      const t0 = Date.now();
      const members = await membersOf();
      refs = members.map((m) => m.ref);
      if (refs.length === 0) throw new Error('The group has no rollouts that could be read.');
      const labels = new Map<string, LabelLike[]>();
      for (const p of new Set(refs.map((r) => r.path))) labels.set(p, await this.labelsOf(p));
      msg = groupMessage(title, source, groupId, members.map((m) => ({ file: m.ref.path, index: m.ref.index, rollout: m.rollout, labels: labels.get(m.ref.path) })));
      this.output.info(`group: ${title}: ${members.length} rollouts in ${Date.now() - t0} ms`);
    } catch (e) {
      msg = { type: 'compareError', message: e instanceof Error ? e.message : String(e) };
    }
    this.wire(panel, msg, async (m) => {
      if (m.type === 'openMember') {
        const ref = refs[m.member];
        if (ref) await this.timelines.openRollout(vscode.Uri.file(ref.path), ref.index, m.stepIndex, vscode.ViewColumn.Beside);
      } else if (m.type === 'compareMember' && msg.type === 'group') {
        const best = msg.members.find((x) => x.best);
        const other = refs[m.member];
        if (best && other) await this.openCompare(refs[best.member], other);
      }
    });
    return panel;
  }

  /** Per panel: whether its webview said `ready`, and what to post and how to answer once loaded. */
  private readonly wiring = new WeakMap<vscode.WebviewPanel, Wiring>();

  private createPanel(title: string): vscode.WebviewPanel {
    const roots = [vscode.Uri.joinPath(this.extensionUri, 'dist'), vscode.Uri.joinPath(this.extensionUri, 'media')];
    const panel = vscode.window.createWebviewPanel(COMPARE_VIEW_TYPE, title, vscode.ViewColumn.Active, { enableScripts: true, localResourceRoots: roots, enableFindWidget: true });
    panel.webview.html = compareHtml({
      cspSource: panel.webview.cspSource,
      nonce: makeNonce(),
      scriptUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'compare.js')).toString(),
      styleUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'media', 'timeline.css')).toString(),
    });
    this.panels.add(panel);
    // Listen from the start: the webview's `ready` can come while the rollouts are still loading
    // (a message with no listener yet is lost, and the panel would stay at "Loading…").
    const wiring: Wiring = { ready: false, msg: null, handle: null };
    this.wiring.set(panel, wiring);
    const sub = panel.webview.onDidReceiveMessage((m: unknown) => {
      if (!isCompareWebviewMessage(m)) {
        this.output.warn(`compare: ignored a malformed message from the webview: ${JSON.stringify(m)?.slice(0, 200)}`);
        return;
      }
      if (m.type === 'ready') {
        wiring.ready = true;
        if (wiring.msg) void panel.webview.postMessage(wiring.msg);
        return;
      }
      const handle = wiring.handle;
      if (!handle) return;
      Promise.resolve(handle(m)).catch((e) => {
        void reportError(this.output, `compare: ${m.type}`, e);
      });
    });
    panel.onDidDispose(() => {
      sub.dispose();
      this.panels.delete(panel);
    });
    return panel;
  }

  /** The panel's content is ready: posts it now if the webview said `ready` already, else on `ready` (and on every later `ready`). */
  private wire(panel: vscode.WebviewPanel, msg: CompareHostMessage, handle: (m: CompareWebviewMessage) => unknown): void {
    const wiring = this.wiring.get(panel);
    if (!wiring) return;
    wiring.msg = msg;
    wiring.handle = handle;
    if (wiring.ready) void panel.webview.postMessage(msg);
  }

  dispose(): void {
    for (const p of [...this.panels]) p.dispose();
  }
}

/** A compare panel's message state (see ComparePanels.createPanel). */
interface Wiring {
  ready: boolean;
  msg: CompareHostMessage | null;
  handle: ((m: CompareWebviewMessage) => unknown) | null;
}

function shortName(ref: RolloutRef): string {
  const parts = ref.path.split(/[\\/]/);
  const n = parts.length;
  const base = n >= 3 && parts[n - 1] === 'trajectory.json' && parts[n - 2] === 'agent' ? parts[n - 3] : parts[n - 1];
  return ref.index > 0 ? `${base} #${ref.index + 1}` : base;
}
