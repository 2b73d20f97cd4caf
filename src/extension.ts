/**
 * Composition root: builds the host services and registers them. Features live in src/host/.
 */
import * as vscode from 'vscode';
import { registerCommands } from './host/commands';
import { registerCompareCommands } from './host/compare/compareCommands';
import { ComparePanels } from './host/compare/comparePanel';
import { SearchView } from './host/search/searchView';
import { dumpIndexes, initDumpIndexes } from './host/dumpIndexes';
import { initLoadWorkers } from './host/loadWorker';
import { registerDumpSearch } from './host/dumpSearch';
import { LabelService } from './host/labels';
import { ReplayController } from './host/replay/controller';
import { scoreState } from './host/rolloutTree';
import { RolloutsView } from './host/rolloutsView';
import { SessionsView } from './host/sessionsView';
import { registerScoring } from './host/scoring/register';
import { ScoringService } from './host/scoring/service';
import { TimelineEditorProvider } from './host/timelineEditor';

let replay: ReplayController | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel('Trajectory Inspector', { log: true });
  initDumpIndexes(context.globalStorageUri, output);
  context.subscriptions.push(initLoadWorkers(context.asAbsolutePath('dist/loadWorker.js'), output));
  const labels = new LabelService(context.globalStorageUri, output);
  // The timeline's features: each timeline tells them what it shows.
  const scoring = new ScoringService(context, output);
  const replayController = new ReplayController(context, output);
  replay = replayController;
  const timelines = new TimelineEditorProvider(context.extensionUri, output, labels, { dumps: dumpIndexes(), features: [replayController, scoring] });
  const rollouts = new RolloutsView(output, context.workspaceState, (f) => labels.locate(f).journal);
  context.subscriptions.push(output, labels, timelines, rollouts, registerCommands(timelines, rollouts));
  context.subscriptions.push(replayController, replayController.registerCommands(timelines));
  // Compare, group view and workspace search.
  const compare = new ComparePanels(context.extensionUri, output, timelines, (f) => labels.locate(f).journal, (items) => scoring.scoresFor(items));
  let sessions: SessionsView | null = null;
  const search = new SearchView(rollouts, timelines, output, context.workspaceState, async () => (sessions ? sessions.sessionFiles() : []));
  context.subscriptions.push(compare, search, registerCompareCommands(compare, rollouts, search));
  context.subscriptions.push(registerScoring(scoring, timelines));
  // Step scores of scored files feed the Rollouts view's "lowest score" sort and low-score filter.
  context.subscriptions.push(
    scoring.onDidChangeScores((file) => {
      const byRollout = new Map<string, NonNullable<ReturnType<typeof scoreState>>>();
      for (const [id, st] of scoring.entry(file)?.scores ?? []) {
        const s = st.state === 'done' ? scoreState([...st.steps.values()].flatMap((x) => (x.value === null ? [] : [{ value: x.value }]))) : null;
        if (s) byRollout.set(id, s);
      }
      rollouts.setScores(file, byRollout);
    }),
  );
  context.subscriptions.push(registerDumpSearch(timelines, output));
  // Claude Code and Codex CLI sessions recorded in the workspace's folders.
  sessions = new SessionsView(output, context.globalStorageUri);
  context.subscriptions.push(sessions);
}

/** Waits for replay containers and snapshots to be removed. */
export function deactivate(): Promise<void> | undefined {
  return replay?.disposeAsync();
}
