/**
 * Replay in the editor: one session per timeline rollout (core/replay/session), driven by the
 * timeline's replay bar, the commands and the "▸ replay" CodeLens on the raw file; live output in a
 * Pseudoterminal; per-step status in the timeline and as decorations on the raw file; "Show diff"
 * opens vscode.diff of recorded vs replayed (normalised) output.
 *
 * Trust: nothing runs in an untrusted workspace; the first replay of a rollout (per image and
 * command list) shows the image and the commands in a modal and asks. When the session ran in an
 * open workspace folder (a Claude Code / Codex session of this project), the modal also offers to
 * copy that folder into the container (a bounded copy, workspace.ts; never a mount). File edits
 * replay as steps ("✎ edit /app/x.py: replaced 1 occurrence"); Show diff on one opens the file
 * before ↔ after the replayed edit. Cleanup: every session's
 * container and snapshots go when its terminal closes or the extension deactivates; at activation
 * a sweep removes what a crashed extension host left (by label, owner process gone).
 */
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { StepComparison } from '../../core/replay/compare';
import { connect, DockerUnavailableError, ImageMissingError, sweepOrphans, type DockerTarget } from '../../core/replay/docker';
import { buildPlan, ReplayPlanError, type ReplayPlan } from '../../core/replay/plan';
import { ReplaySession } from '../../core/replay/session';
import { scanWorkspace, WorkspaceTooLargeError } from '../../core/replay/workspace';
import type { Rollout } from '../../core/model';
import type { ReplayControlMessage, ReplayStateMessage, ReplayStepView } from '../../shared/replayProtocol';
import type { WebviewMessage } from '../../shared/protocol';
import type { TimelineFeature, TimelineLookup, TimelineView } from '../timelineFeature';
import { byWindowsNotice, stepsByWindows } from '../pagedRollout';
import type { CommandTable } from '../commandTable';
import { askModal, notifyInfo, notifyWarning, reportError } from '../notify';
import { engineImageItems, IMAGE_CHOICES_KEY, replayImage } from './image';
import { diffTitle, FailedTerminals, verdictText } from './wording';
import { readReplayConfig, REPLAY_SCHEME, ReplayDocuments, ReplayTerminal } from './parts';

const CONFIRMED_KEY = 'trajectoryInspector.replay.confirmed';

/** A replay of one rollout. */
interface HostReplay {
  key: string;
  rollout: Rollout;
  rolloutIndex: number;
  plan: ReplayPlan;
  session: ReplaySession | null;
  terminal: vscode.Terminal | null;
  pty: ReplayTerminal | null;
  phase: ReplayStateMessage['phase'];
  running: number | null;
  message: string | null;
  panels: Set<TimelineView>;
}

function keyOf(r: Rollout): string {
  return createHash('sha1').update(`${r.source.path}\n${r.id}`).digest('hex').slice(0, 12);
}

/** Per rollout step: the worst of its commands' verdicts. */
function stepViews(h: HostReplay): ReplayStepView[] {
  const by = new Map<number, ReplayStepView>();
  h.plan.steps.forEach((ps, i) => {
    const r = h.session?.results[i];
    const cur = by.get(ps.stepIndex);
    const status: ReplayStepView['status'] = h.running === i ? 'running' : r ? r.status : 'pending';
    const rank = { running: 4, differs: 3, pending: 2, same: 1, 'not-replayable': 0 } as const;
    if (!cur || rank[status] > rank[cur.status]) {
      by.set(ps.stepIndex, {
        stepIndex: ps.stepIndex,
        status,
        summary: r?.summary ?? (ps.replayable ? '' : (ps.reason ?? 'not replayable')),
        stateMayDiffer: r?.stateMayDiffer ?? cur?.stateMayDiffer ?? false,
        hasDiff: !!r?.replayed || !!cur?.hasDiff,
      });
    } else if (r?.replayed) {
      cur.hasDiff = true;
    }
  });
  return [...by.values()];
}

/** Why a rollout read by windows (pagedRollout.ts) is not replayed: one line for the replay bar and the command. */
export function notReplayedByWindows(steps: number): string {
  return byWindowsNotice('Replay', steps, 'a replay plans over the whole rollout');
}

/** The replay controller: a feature of the timelines (their replay bar), commands, CodeLens, decorations. */
export class ReplayController implements vscode.Disposable, vscode.CodeLensProvider, TimelineFeature {
  private readonly replays = new Map<string, HostReplay>();
  private readonly docs = new ReplayDocuments();
  private readonly failedTerminals = new FailedTerminals<vscode.Terminal>();
  private readonly disposables: vscode.Disposable[] = [];
  /** Files shown in a timeline (for the CodeLens), by path. */
  private readonly known = new Map<string, TimelineView>();
  private readonly lensEmitter = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.lensEmitter.event;
  private readonly deco = {
    same: vscode.window.createTextEditorDecorationType({ after: { color: new vscode.ThemeColor('testing.iconPassed'), margin: '0 0 0 2em' } }),
    differs: vscode.window.createTextEditorDecorationType({ after: { color: new vscode.ThemeColor('testing.iconFailed'), margin: '0 0 0 2em' } }),
    other: vscode.window.createTextEditorDecorationType({ after: { color: new vscode.ThemeColor('descriptionForeground'), margin: '0 0 0 2em' } }),
  };

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly output: vscode.LogOutputChannel,
  ) {
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(REPLAY_SCHEME, this.docs),
      vscode.languages.registerCodeLensProvider({ scheme: 'file' }, this),
      vscode.window.onDidChangeVisibleTextEditors(() => this.decorateAll()),
      vscode.window.onDidCloseTerminal((t) => this.failedTerminals.forget(t)),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.known.forEach((p) => this.resend(p))),
      this.docs,
      this.lensEmitter,
      ...Object.values(this.deco),
    );
    void this.sweep(false);
  }

  /** The replay commands: the toolbar's actions on the timeline `timelines` says is active, Run to Step (CodeLens) and Clean Up. */
  commands(timelines: TimelineLookup): CommandTable {
    const id = (name: string): string => `trajectoryInspector.replay.${name}`;
    return [
      ...(['start', 'step', 'continue', 'stepBack', 'stop', 'restart'] as const).map((action) => ({
        id: id(action),
        run: () => {
          const p = timelines.activePanel;
          if (!p) return void notifyInfo('Open a rollout in the timeline to replay it.');
          return this.control(p, { type: 'replay', action, rolloutIndex: p.rolloutIndex });
        },
      })),
      {
        id: id('runToStep'),
        run: (file: unknown, rolloutIndex: unknown, stepIndex: unknown) => {
          const p = typeof file === 'string' ? this.known.get(file) : undefined;
          if (!p || typeof rolloutIndex !== 'number' || typeof stepIndex !== 'number') return;
          return this.control(p, { type: 'replay', action: 'runTo', rolloutIndex, stepIndex });
        },
      },
      { id: id('cleanup'), run: () => this.sweep(true) },
    ];
  }

  /** Removes leftovers of dead extension hosts (or, with `all`, every replay container not in use here). */
  private async sweep(all: boolean): Promise<void> {
    try {
      const docker = await connect(readReplayConfig().target, 2000);
      const r = await sweepOrphans(docker);
      let extra = 0;
      if (all) {
        // Containers of this window that no live session uses any more.
        const live = new Set([...this.replays.values()].map((h) => h.session?.sessionId).filter(Boolean));
        const list = await docker.listContainers({ all: true, filters: { label: ['trajectory-inspector.replay=1'] } });
        for (const c of list) {
          const owner = c.Labels?.['trajectory-inspector.replay.owner'] ?? '';
          if (owner.endsWith(`:${process.pid}`) && !live.has(c.Labels?.['trajectory-inspector.replay.session'])) {
            await docker.getContainer(c.Id).remove({ force: true }).then(() => extra++, () => undefined);
          }
        }
        void notifyInfo(`Trajectory Inspector: removed ${r.containers + extra} replay container(s) and ${r.images} snapshot image(s).`);
      }
      if (r.containers || r.images) this.output.info(`replay: swept ${r.containers} container(s) and ${r.images} snapshot image(s) left by a closed extension host`);
    } catch (e) {
      this.output.info(`replay: no sweep (${(e as Error).message})`);
      if (all) void notifyWarning((e as Error).message);
    }
  }

  // ------------------------------------------------------------ timeline feature

  /** A timeline showed its rollout: send it the replay state. */
  onShown(panel: TimelineView): void {
    this.resend(panel);
  }

  /** The timeline's replay bar was used. */
  async onMessage(panel: TimelineView, m: WebviewMessage): Promise<void> {
    if (m.type === 'replay') await this.control(panel, m);
  }

  private resend(panel: TimelineView): void {
    const r = panel.rollout;
    if (!r) return;
    this.known.set(r.source.path, panel);
    this.lensEmitter.fire();
    const h = this.replays.get(keyOf(r));
    if (h) h.panels.add(panel);
    panel.postMessage(this.stateOf(panel, r, h));
  }

  private stateOf(panel: TimelineView, r: Rollout, h: HostReplay | undefined): ReplayStateMessage {
    let plan: ReplayPlan | null = h?.plan ?? null;
    let reason: string | null = null;
    if (!vscode.workspace.isTrusted) reason = 'Replay runs commands in a container: it needs a trusted workspace.';
    const byWindows = stepsByWindows(r);
    if (byWindows !== null) reason = notReplayedByWindows(byWindows);
    else if (!plan) {
      try {
        plan = buildPlan(r, { image: 'unset' });
      } catch (e) {
        reason ??= (e as Error).message;
      }
    }
    const s = h?.session;
    const first = s ? s.firstDivergence : -1;
    return {
      type: 'replayState',
      rolloutIndex: panel.rolloutIndex,
      rolloutId: r.id,
      available: reason === null,
      reason,
      phase: h?.phase ?? 'idle',
      image: h?.plan.image ?? null,
      mode: plan?.mode ?? null,
      next: s && !s.done ? h!.plan.steps[s.next].stepIndex : null,
      replayable: [...new Set(plan?.steps.filter((x) => x.replayable).map((x) => x.stepIndex) ?? [])],
      steps: h ? stepViews(h) : [],
      firstDivergence: first >= 0 ? h!.plan.steps[first].stepIndex : null,
      message: h?.message ?? null,
      canStepBack: !!s && s.next > 0 && readReplayConfig().snapshots,
    };
  }

  private update(h: HostReplay): void {
    for (const p of [...h.panels]) {
      if (p.isDisposed) {
        h.panels.delete(p);
        continue;
      }
      if (p.rollout && keyOf(p.rollout) === h.key) p.postMessage(this.stateOf(p, p.rollout, h));
    }
    this.decorateAll();
  }

  private async control(panel: TimelineView, m: ReplayControlMessage): Promise<void> {
    const r = panel.loadedFile?.rollouts[m.rolloutIndex];
    if (!r) return;
    if (m.action === 'stop') {
      this.replays.get(keyOf(r))?.session?.stop();
      return;
    }
    if (m.action === 'close') {
      await this.close(keyOf(r));
      this.resend(panel);
      return;
    }
    if (m.action === 'showDiff') return this.showDiff(r, m.stepIndex!);
    const byWindows = stepsByWindows(r);
    if (byWindows !== null) {
      void notifyInfo(`Trajectory Inspector: ${notReplayedByWindows(byWindows)}`);
      return;
    }
    if (!vscode.workspace.isTrusted) {
      void notifyWarning('Trajectory Inspector: replay runs the rollout\'s commands in a container, so it needs a trusted workspace.', 'Manage Workspace Trust').then((b) => {
        if (b) void vscode.commands.executeCommand('workbench.trust.manage');
      });
      return;
    }
    let h: HostReplay | null | undefined = this.replays.get(keyOf(r));
    if (!h || !h.session) {
      if (m.action === 'stepBack') return;
      h = await this.begin(panel, r, m.rolloutIndex);
      if (!h) return;
    }
    h.panels.add(panel);
    const s = h.session!;
    if (s.busy) {
      void notifyInfo('The replay is still running a step (Stop, or Ctrl+C in its terminal).');
      return;
    }
    h.terminal?.show(true);
    try {
      switch (m.action) {
        case 'start':
          break;
        case 'step':
          h.phase = 'running';
          this.update(h);
          await s.step();
          break;
        case 'continue':
          h.phase = 'running';
          this.update(h);
          await s.runTo();
          break;
        case 'runTo': {
          const last = h.plan.steps.reduce((acc, x, i) => (x.stepIndex <= m.stepIndex! ? i : acc), -1);
          h.phase = 'running';
          this.update(h);
          if (last >= s.next) await s.runTo(last);
          else if (last + 1 < s.next && readReplayConfig().snapshots) {
            // Already past it: go back to the state right after it (the snapshot before the next step).
            await s.rewindTo(last + 1);
            h.pty?.note(`↶ back to after step #${m.stepIndex! + 1} (snapshot restored)`);
          }
          break;
        }
        case 'stepBack':
          await s.stepBack();
          h.pty?.note(`↶ back to before step #${h.plan.steps[s.next].stepIndex + 1} (snapshot restored)`);
          break;
        case 'restart':
          await s.restart();
          h.pty?.note('↻ restarted from the image');
          break;
      }
      h.message = null;
    } catch (e) {
      h.message = (e as Error).message;
      h.pty?.note(`error: ${h.message}`);
      void reportError(this.output, 'replay', e);
    } finally {
      h.running = null;
      h.phase = s.done ? 'done' : 'ready';
      this.update(h);
    }
    if (s.done && (m.action === 'continue' || m.action === 'step' || m.action === 'runTo')) {
      const diverged = s.results.filter((x) => x?.status === 'differs').length;
      const first = s.firstDivergence;
      void notifyInfo(
        first < 0 ? `Replay finished: every step matches the recording.` : `Replay finished: ${diverged} step(s) differ, first at step #${h.plan.steps[first].stepIndex + 1}.`,
      );
    }
  }

  /** Plans, confirms, connects and starts a replay. Returns null when the user declined or it failed (with a message). */
  private async begin(panel: TimelineView, r: Rollout, rolloutIndex: number): Promise<HostReplay | null> {
    const cfg = readReplayConfig(vscode.Uri.file(r.source.path));
    for (const w of cfg.warnings) void notifyWarning(`Trajectory Inspector: ${w}`);
    const base = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(r.source.path))?.uri.fsPath;
    let plan: ReplayPlan;
    // An image the user chose for this file after its own image was missing ("Use Another Image…").
    const chosen = this.context.workspaceState.get<Record<string, string>>(IMAGE_CHOICES_KEY, {})[r.source.path];
    // The user's explicit choices win over the rollout's own image (image.ts).
    const pickedImage = replayImage(r, { chosen, imageByFolder: cfg.imageByFolder, baseDir: base, setting: cfg.image });
    try {
      plan = buildPlan(r, { image: pickedImage?.image });
      if (pickedImage) plan = { ...plan, imageSource: pickedImage.source };
    } catch (e) {
      if (!(e instanceof ReplayPlanError) || e.code !== 'no-image') {
        void reportError(this.output, '', e);
        return null;
      }
      const image = await this.askImage(cfg.target, `${path.basename(r.source.path)} does not name the image it ran in. Which image should replay it? (Set trajectoryInspector.replay.image or .imageByFolder to skip this question.)`);
      if (!image) return null;
      plan = buildPlan(r, { image });
    }
    const why = pickedImage?.why ?? 'your choice';
    const answer = await this.confirm(plan, await this.workspaceOffer(plan), why);
    if (!answer) return null;
    if (answer.copy) plan = { ...plan, workspace: { hostDir: answer.copy }, notes: (plan.notes ?? []).filter((n) => !n.startsWith("the session ran in ")) };
    const key = keyOf(r);
    const h: HostReplay = { key, rollout: r, rolloutIndex, plan, session: null, terminal: null, pty: null, phase: 'starting', running: null, message: null, panels: new Set([panel]) };
    this.replays.set(key, h);
    this.update(h);
    // The terminals of earlier failed starts of this file go: the new one says what happens now.
    this.failedTerminals.closeFor(r.source.path);
    h.pty = new ReplayTerminal(
      () => h.session?.stop(),
      () => void this.close(key),
    );
    h.terminal = vscode.window.createTerminal({ name: `Replay: ${path.basename(r.source.path)}`, pty: h.pty, iconPath: new vscode.ThemeIcon('debug-rerun') });
    h.terminal.show(true);
    h.pty.note(`image ${plan.image} (${why}) · ${plan.mode} mode · no network · ${cfg.limits.memoryMiB} MiB, ${cfg.limits.cpus} CPU, ${cfg.limits.pids} pids · step timeout ${cfg.limits.stepTimeoutSec} s`);
    for (const n of plan.notes ?? []) h.pty.note(`note: ${n}`);
    try {
      const docker = await connect(cfg.target);
      const session = new ReplaySession(plan, docker, {
        limits: cfg.limits,
        rules: cfg.rules,
        snapshots: cfg.snapshots,
        onEvent: (e) => {
          switch (e.type) {
            case 'pull':
              break;
            case 'started':
              h.pty?.note(`container ${e.containerId.slice(0, 12)} started`);
              break;
            case 'workspace':
              h.pty?.note(`copied ${e.files} file(s), ${(e.bytes / 2 ** 20).toFixed(1)} MiB of the workspace into ${e.dest}`);
              break;
            case 'step-start':
              h.running = e.planIndex;
              h.pty?.stepHeader(e.stepIndex, e.input, e.kind);
              this.update(h);
              break;
            case 'output':
              h.pty?.write(e.text);
              break;
            case 'step-end':
              h.running = null;
              h.pty?.stepResult(e.result);
              this.update(h);
              break;
            case 'rewound':
              this.update(h);
              break;
            case 'error':
              h.pty?.note(e.message);
              break;
          }
        },
      });
      h.session = session;
      await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Replay: starting ${plan.image}`, cancellable: true },
        async (progress, token) => {
          const ac = new AbortController();
          token.onCancellationRequested(() => ac.abort());
          const sub = session.options.onEvent;
          session.options.onEvent = (e) => {
            if (e.type === 'pull') progress.report({ message: e.progress.total ? `${e.progress.status} ${Math.round((100 * e.progress.current) / e.progress.total)}%` : e.progress.status });
            sub?.(e);
          };
          await session.start(ac.signal);
          session.options.onEvent = sub;
        },
      );
      h.phase = 'ready';
      this.update(h);
      return h;
    } catch (e) {
      const msg = (e as Error).message;
      h.pty.note(`error: ${msg}`);
      // Left open so the error can be read; closed when the next replay of this file starts.
      if (h.terminal) this.failedTerminals.keep(r.source.path, h.terminal);
      await this.close(key, false);
      const actions = e instanceof DockerUnavailableError ? ['Open Settings'] : e instanceof ImageMissingError ? ['Use Another Image…'] : [];
      void reportError(this.output, 'replay', e, ...actions).then(async (b) => {
        if (b === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'trajectoryInspector.replay.docker');
        if (b === 'Use Another Image…') {
          const image = await this.askImage(cfg.target, `${path.basename(r.source.path)}: image ${plan.image} is not on this engine. Which image should replay it? (Remembered for this file in this workspace; trajectoryInspector.replay.image and .imageByFolder also override a rollout's own image.)`);
          if (!image) return;
          const choices = this.context.workspaceState.get<Record<string, string>>(IMAGE_CHOICES_KEY, {});
          await this.context.workspaceState.update(IMAGE_CHOICES_KEY, { ...choices, [r.source.path]: image });
          await this.begin(panel, r, rolloutIndex);
        }
      });
      this.resend(panel);
      return null;
    }
  }

  /**
   * The open workspace folder the session ran in (its cwd is that folder or inside it), with what a
   * copy would send; null when there is none (or the workspace is not trusted).
   */
  private async workspaceOffer(plan: ReplayPlan): Promise<{ dir: string; text: string; ok: boolean } | null> {
    if (!vscode.workspace.isTrusted || !plan.workdir) return null;
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(plan.workdir));
    if (!folder || folder.uri.scheme !== 'file') return null;
    const dir = folder.uri.fsPath;
    try {
      const scan = await scanWorkspace(dir);
      const skipped = scan.skippedDirs.length ? `; left out: ${scan.skippedDirs.slice(0, 4).join(', ')}${scan.skippedDirs.length > 4 ? ', …' : ''}` : '';
      return { dir, ok: true, text: `The session ran in ${plan.workdir}, inside the open folder ${dir}. "Replay with Workspace Copy" copies that folder (${scan.files} files, ${(scan.bytes / 2 ** 20).toFixed(1)} MiB${skipped}) into the container at the same path: its files as they are now, so edits the session already made may no longer apply.` };
    } catch (e) {
      const why = e instanceof WorkspaceTooLargeError ? e.message : `${dir} cannot be read: ${(e as Error).message}`;
      return { dir, ok: false, text: why };
    }
  }

  /**
   * The first replay of a rollout (per image, commands and edits) shows what will run and asks;
   * with a workspace offer, also whether to copy the folder in. Returns null when declined.
   */
  private async confirm(plan: ReplayPlan, offer: { dir: string; text: string; ok: boolean } | null, why: string): Promise<{ copy: string | null } | null> {
    const commands = plan.steps.filter((s) => s.replayable).map((s) => s.input.replace(/\n$/, ''));
    const digest = createHash('sha256').update(JSON.stringify([plan.sourcePath, plan.rolloutId, plan.image, commands])).digest('hex');
    const withCopy = offer?.ok ? `${digest}:copy:${offer.dir}` : null;
    const confirmed = this.context.globalState.get<string[]>(CONFIRMED_KEY, []);
    if (withCopy && confirmed.includes(withCopy)) return { copy: offer!.dir };
    if (confirmed.includes(digest)) return { copy: null };
    const edits = plan.steps.filter((s) => s.replayable && s.kind === 'edit').length;
    const shown = commands.slice(0, 30).map((c) => (c.startsWith('✎') ? c : `$ ${c.length > 160 ? c.slice(0, 160) + '…' : c.replace(/\n/g, '⏎')}`));
    const detail =
      `Image: ${plan.image} (${why})\nMode: ${plan.mode}. No network, all capabilities dropped, limits from your user settings.\n` +
      `${(plan.notes ?? []).map((n) => `Note: ${n}.\n`).join('')}${offer ? `${offer.text}\n` : ''}\n` +
      `${commands.length - edits} command(s)${edits ? ` and ${edits} file edit(s)` : ''} will run:\n${shown.join('\n')}${commands.length > shown.length ? `\n… and ${commands.length - shown.length} more` : ''}`;
    const COPY = 'Replay with Workspace Copy';
    const answer = await askModal(`Replay ${path.basename(plan.sourcePath)} in a container?`, detail, 'Replay', ...(offer?.ok ? [COPY] : []));
    if (answer !== 'Replay' && answer !== COPY) return null;
    const copy = answer === COPY && offer ? offer.dir : null;
    await this.context.globalState.update(CONFIRMED_KEY, [...confirmed.slice(-199), copy ? withCopy! : digest]);
    return { copy };
  }

  private async close(key: string, endTerminal = true): Promise<void> {
    const h = this.replays.get(key);
    if (!h) return;
    this.replays.delete(key);
    await h.session?.dispose();
    h.session = null;
    h.phase = 'idle';
    if (endTerminal) h.pty?.end();
    for (const p of h.panels) if (!p.isDisposed) this.resend(p);
    this.decorateAll();
  }

  private async showDiff(r: Rollout, stepIndex: number): Promise<void> {
    const h = this.replays.get(keyOf(r));
    const results = (h?.session?.results ?? []).filter((x): x is StepComparison => !!x && x.stepIndex === stepIndex && !!x.replayed);
    const c = results.find((x) => x.status === 'differs') ?? results[0];
    if (!h || !c) {
      void notifyInfo(`Step #${stepIndex + 1} has not been replayed yet.`);
      return;
    }
    const change = c.edit?.changes[0];
    if (change) {
      // An edit: the file before ↔ after the replayed edit (its first file).
      const { before, after } = this.docs.putFile(h.key, c, change);
      await vscode.commands.executeCommand('vscode.diff', before, after, `Step #${stepIndex + 1}: ${path.posix.basename(change.path)} before ↔ after the ${c.edit!.written ? 'replayed' : 'checked (not written)'} edit`, { preview: true, viewColumn: vscode.ViewColumn.Beside });
      return;
    }
    const { recorded, replayed } = this.docs.put(h.key, c);
    await vscode.commands.executeCommand('vscode.diff', recorded, replayed, diffTitle(stepIndex, c), { preview: true, viewColumn: vscode.ViewColumn.Beside });
  }

  // ------------------------------------------------------------ raw file: CodeLens and decorations

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const panel = this.known.get(doc.uri.fsPath);
    const r = panel?.rollout;
    if (!panel || !r || panel.isDisposed || !vscode.workspace.isTrusted) return [];
    let plan: ReplayPlan;
    try {
      plan = this.replays.get(keyOf(r))?.plan ?? buildPlan(r, { image: 'unset' });
    } catch {
      return [];
    }
    const lenses: vscode.CodeLens[] = [];
    const seen = new Set<number>();
    for (const ps of plan.steps) {
      const step = r.steps[ps.stepIndex];
      if (!ps.replayable || seen.has(ps.stepIndex) || !step?.range || (step.file && step.file !== doc.uri.fsPath)) continue;
      seen.add(ps.stepIndex);
      const at = doc.positionAt(step.range.start);
      lenses.push(new vscode.CodeLens(new vscode.Range(at, at), { title: `▸ replay to step #${ps.stepIndex + 1}`, command: 'trajectoryInspector.replay.runToStep', arguments: [doc.uri.fsPath, panel.rolloutIndex, ps.stepIndex] }));
    }
    return lenses;
  }

  private decorateAll(): void {
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document.uri.scheme !== 'file') continue;
      const same: vscode.DecorationOptions[] = [];
      const differs: vscode.DecorationOptions[] = [];
      const other: vscode.DecorationOptions[] = [];
      for (const h of this.replays.values()) {
        if (h.rollout.source.path !== editor.document.uri.fsPath) continue;
        for (const v of stepViews(h)) {
          const step = h.rollout.steps[v.stepIndex];
          if (!step?.range || v.status === 'pending') continue;
          const line = editor.document.lineAt(editor.document.positionAt(step.range.start).line);
          const text = `replay: ${verdictText({ status: v.status as StepComparison['status'], summary: v.summary, stateMayDiffer: v.stateMayDiffer, replayed: null })}`;
          const opt = { range: line.range, renderOptions: { after: { contentText: text } } };
          (v.status === 'same' ? same : v.status === 'differs' ? differs : other).push(opt);
        }
      }
      editor.setDecorations(this.deco.same, same);
      editor.setDecorations(this.deco.differs, differs);
      editor.setDecorations(this.deco.other, other);
    }
  }

  /** Ends every replay (containers and snapshots removed). */
  async disposeAsync(): Promise<void> {
    await Promise.all([...this.replays.keys()].map((k) => this.close(k)));
  }

  /**
   * Asks for an image: a pick of the images the engine already has (dockerode `listImages`), with
   * "Type an image name…" for any other; the input box alone when the engine cannot be reached.
   * Undefined when dismissed.
   */
  private async askImage(target: DockerTarget, prompt: string): Promise<string | undefined> {
    let items: { label: string; description: string }[] = [];
    try {
      items = engineImageItems(await (await connect(target)).listImages());
    } catch (e) {
      this.output.warn(`replay: cannot list the engine's images: ${(e as Error).message}`);
    }
    if (!items.length) return typeImage(prompt);
    const TYPE = '$(edit) Type an image name…';
    const picked = await vscode.window.showQuickPick([...items, { label: TYPE, description: 'an image to pull or one not listed' }], {
      title: 'Replay: container image',
      placeHolder: `${prompt} Images this engine has:`,
      ignoreFocusOut: true,
      matchOnDescription: true,
    });
    if (!picked) return undefined;
    return picked.label === TYPE ? typeImage(prompt) : picked.label;
  }

  dispose(): void {
    void this.disposeAsync();
    while (this.disposables.length) this.disposables.pop()?.dispose();
  }
}


/** Asks for a container image reference; undefined when dismissed. */
async function typeImage(prompt: string): Promise<string | undefined> {
  const image = await vscode.window.showInputBox({
    title: 'Replay: container image',
    prompt,
    placeHolder: 'e.g. python:3.12-slim or a local image name',
    ignoreFocusOut: true,
    validateInput: (v) => (/^[\w][\w.\-/:@]*$/.test(v.trim()) ? null : 'an image reference: name[:tag] or name@sha256:…'),
  });
  return image?.trim() || undefined;
}
