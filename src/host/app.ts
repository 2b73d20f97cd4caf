/**
 * The composition root: `App.create(context)` builds every service and view of the extension once,
 * hands each feature what it needs through its constructor (the output channel, the settings
 * watcher, the load workers and dump indexes, the label service, the followed files), registers every feature's command
 * table in one place, and owns what must be disposed. A failure while building is logged and shown
 * to the user (VS Code itself shows nothing when an activation fails).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { commandIdsOf, registerCommandTables, unmatchedCommands, type CommandTable } from './commandTable';
import { BranchController } from './branch/controller';
import { stepLinkCommands, stepLinkHandler } from './stepLinks';
import { exportCommands } from './exportCommands';
import { rolloutsCommands, timelineCommands } from './commands';
import { compareCommands, searchCommands } from './compare/compareCommands';
import { ComparePanels } from './compare/comparePanel';
import { readSettings, SettingsWatcher } from './config';
import { DumpIndexes } from './dumpIndexes';
import { dumpSearchCommands } from './dumpSearch';
import { labelCommands } from './labelCommands';
import { LabelService } from './labels';
import { LiveFiles } from './liveFiles';
import { startLoadWorkers } from './loadWorker';
import { PRODUCT, reportError } from './notify';
import { ReplayController } from './replay/controller';
import type { RolloutFiles } from './rolloutFiles';
import { scoreState } from './rolloutTree';
import { RolloutsView } from './rolloutsView';
import { createScoring } from './scoring/register';
import { ScoringService } from './scoring/service';
import { SearchView } from './search/searchView';
import { SessionsView } from './sessionsView';
import { STEP_FILE_COMMANDS, StepFiles } from './stepFiles';
import { TimelineEditorProvider } from './timelineEditor';

/**
 * Commands registered without a package.json contribution: the targets of the inline scores'
 * CodeLenses and hover links, which take arguments and are not meant for the command palette.
 */
export const INTERNAL_COMMANDS: readonly string[] = ['trajectoryInspector.scores.openStep', 'trajectoryInspector.scores.explain', STEP_FILE_COMMANDS.openStep, STEP_FILE_COMMANDS.showEdit];

/** The running extension: its services, views and command registrations. */
export class App implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private replay: ReplayController | null = null;
  private branch: BranchController | null = null;
  /** Every feature's commands, by feature (registered together once the features are built). */
  private readonly tables: Record<string, CommandTable> = {};

  private constructor(
    private readonly context: vscode.ExtensionContext,
    /** The extension's log (the *Trajectory Inspector* output channel). */
    readonly output: vscode.LogOutputChannel,
  ) {}

  /**
   * Builds the extension. On a failure, what was built is disposed, the error is logged and shown
   * (with *Show Log*), and null is returned: activation does not throw (VS Code would only log it),
   * the user has been told, and the output channel stays for its log to be read.
   * @returns the running extension, or null when it could not start
   */
  static create(context: vscode.ExtensionContext): App | null {
    const output = vscode.window.createOutputChannel(PRODUCT, { log: true });
    // Outlives a failed start, so that its log can still be read.
    context.subscriptions.push(output);
    const app = new App(context, output);
    try {
      app.build();
    } catch (e) {
      app.dispose();
      void reportError(output, 'the extension could not start', e);
      return null;
    }
    return app;
  }

  private add<T extends vscode.Disposable>(d: T): T {
    this.disposables.push(d);
    return d;
  }

  private build(): void {
    const { context, output } = this;
    const settings = this.add(new SettingsWatcher());
    const files: RolloutFiles = {
      loader: this.add(startLoadWorkers(context.asAbsolutePath('dist/loadWorker.js'), output)),
      dumps: new DumpIndexes(path.join(context.globalStorageUri.fsPath, 'rollout-index'), output),
    };
    // The user's load limits (the inflate budget of an archive) reach every file read from here on.
    const loadOptions = (): void => files.loader.setOptions({ maxInflatedBytes: readSettings().load.maxInflatedBytes });
    loadOptions();
    this.add(settings.onDidChange((e) => e.affects('load') && loadOptions()));
    const labels = this.add(new LabelService(context.globalStorageUri, output, settings));
    const journalOf = (f: string): string => labels.locate(f).journal;
    // The timeline's features: each timeline tells them what it shows (replay first, then branch, then scores).
    const scoringService = new ScoringService(context, output, settings);
    this.replay = this.add(new ReplayController(context, output));
    this.branch = this.add(new BranchController(context, output));
    // What the timelines follow, read by the Rollouts view instead of reading the files again.
    const liveFiles = this.add(new LiveFiles());
    // Steps ↔ workspace files: told what every timeline shows; opens steps through the timelines built next.
    let sessions: SessionsView | null = null;
    let timelines: TimelineEditorProvider | null = null;
    const stepFiles = this.add(
      new StepFiles(output, settings, files, { openRollout: (uri, rollout, step) => timelines?.openRollout(uri, rollout, step) ?? Promise.resolve() }, async () => (sessions ? sessions.sessionFiles() : [])),
    );
    timelines = this.add(new TimelineEditorProvider(context.extensionUri, output, labels, { files, features: [this.replay, this.branch, scoringService, stepFiles], liveFiles }));
    const rollouts = this.add(new RolloutsView(output, settings, files, liveFiles, context.workspaceState, journalOf));
    this.tables.timeline = timelineCommands(timelines);
    this.tables.rollouts = rolloutsCommands(rollouts, timelines);
    this.tables.labels = labelCommands(timelines);

    this.tables.replay = this.replay.commands(timelines);

    // Compare, group view and workspace search.
    const compare = this.add(new ComparePanels(context.extensionUri, output, timelines, files, journalOf, (items) => scoringService.scoresFor(items)));
    const search = this.add(new SearchView(rollouts, timelines, output, files, context.workspaceState, async () => (sessions ? sessions.sessionFiles() : [])));
    this.tables.compare = compareCommands(compare, rollouts);
    // Branch from Here…, Compare with Parent: opens branches in the timelines, compares them with their parents.
    this.branch.attach(timelines, compare);
    this.tables.branch = this.branch.commands();
    this.tables.search = searchCommands(search);

    const scoring = this.add(createScoring(scoringService, timelines, files.loader));
    this.tables.scoring = scoring.commands;
    // Step scores of scored files feed the Rollouts view's "lowest score" sort and low-score filter.
    this.add(
      scoring.service.onDidChangeScores((file) => {
        const byRollout = new Map<string, NonNullable<ReturnType<typeof scoreState>>>();
        for (const [id, st] of scoring.service.entry(file)?.scores ?? []) {
          const s = st.state === 'done' ? scoreState([...st.steps.values()].flatMap((x) => (x.value === null ? [] : [{ value: x.value }]))) : null;
          if (s) byRollout.set(id, s);
        }
        rollouts.setScores(file, byRollout);
      }),
    );
    this.tables.dumpSearch = dumpSearchCommands(timelines, output, files.dumps);
    // Links to a step: Copy Link to Step, and vscode://<id>/open?… links opened from outside.
    this.tables.stepLinks = stepLinkCommands(timelines, output, context.extension.id);
    // Export Rollout as Markdown… and Copy Step as Markdown, redacted.
    this.tables.export = exportCommands(timelines, output);
    this.add(vscode.window.registerUriHandler(stepLinkHandler(timelines, output)));

    // Claude Code and Codex CLI sessions recorded in the workspace's folders.
    sessions = this.add(new SessionsView(output, context.globalStorageUri, settings));
    this.tables.sessions = sessions.commands();
    this.tables.stepFiles = stepFiles.commands();

    for (const d of registerCommandTables(this.tables, (id, run) => vscode.commands.registerCommand(id, run))) this.add(d);
    this.checkContributions();
  }

  /** Logs the commands package.json contributes that no table registers, and the reverse (a slip when adding a command). */
  private checkContributions(): void {
    const contributed = ((this.context.extension.packageJSON as { contributes?: { commands?: { command: string }[] } }).contributes?.commands ?? []).map((c) => c.command);
    const { notContributed, notRegistered } = unmatchedCommands(this.tables, contributed, INTERNAL_COMMANDS);
    if (notRegistered.length) this.output.warn(`commands contributed but not registered: ${notRegistered.join(', ')}`);
    if (notContributed.length) this.output.warn(`commands registered but not contributed: ${notContributed.join(', ')}`);
    this.output.debug(`registered ${commandIdsOf(this.tables).length} commands`);
  }

  /** What the extension's `deactivate` waits for: replay and branch containers and snapshots being removed. */
  async deactivate(): Promise<void> {
    await Promise.all([this.replay?.disposeAsync(), this.branch?.disposeAsync()]);
  }

  dispose(): void {
    while (this.disposables.length) {
      try {
        this.disposables.pop()?.dispose();
      } catch (e) {
        this.output.error(`dispose: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }
}
