/**
 * Composition root: builds the host services and registers them. Features live in src/host/.
 */
import * as vscode from 'vscode';
import { registerCommands } from './host/commands';
import { registerCompareCommands } from './host/compare/compareCommands';
import { ComparePanels } from './host/compare/comparePanel';
import { SearchView } from './host/search/searchView';
import { initDumpIndexes } from './host/dumpIndexes';
import { readConfig } from './host/config';
import { initLoadWorkers, setLoadOptions } from './host/loadWorker';
import { registerDumpSearch } from './host/dumpSearch';
import { LabelService } from './host/labels';
import { registerReplay, type ReplayController } from './host/replay/controller';
import { scoreState } from './host/rolloutTree';
import { RolloutsView } from './host/rolloutsView';
import { SessionsView } from './host/sessionsView';
import { registerScoring } from './host/scoring/register';
import { TimelineEditorProvider } from './host/timelineEditor';

let replay: ReplayController | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel('Trajectory Inspector', { log: true });
  initDumpIndexes(context.globalStorageUri, output);
  context.subscriptions.push(initLoadWorkers(context.asAbsolutePath('dist/loadWorker.js'), output));
  // The user's load limits (the inflate budget of an archive) reach every file read from here on.
  setLoadOptions({ maxInflatedBytes: readConfig().maxInflatedBytes });
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('trajectoryInspector.load')) setLoadOptions({ maxInflatedBytes: readConfig().maxInflatedBytes });
    }),
  );
  const labels = new LabelService(context.globalStorageUri, output);
  const timelines = new TimelineEditorProvider(context.extensionUri, output, labels);
  const rollouts = new RolloutsView(output, context.workspaceState, (f) => labels.locate(f).journal);
  context.subscriptions.push(output, labels, timelines, rollouts, registerCommands(timelines, rollouts));
  replay = registerReplay(context, timelines, output);
  context.subscriptions.push(replay);
  // Compare, group view and workspace search.
  const compare = new ComparePanels(context.extensionUri, output, timelines, (f) => labels.locate(f).journal, async (items) => (await timelines.scoring?.scoresFor(items)) ?? new Map());
  let sessions: SessionsView | null = null;
  const search = new SearchView(rollouts, timelines, output, context.workspaceState, async () => (sessions ? sessions.sessionFiles() : []));
  context.subscriptions.push(compare, search, registerCompareCommands(compare, rollouts, search));
  context.subscriptions.push(registerScoring(context, output, timelines));
  // Step scores of scored files feed the Rollouts view's "lowest score" sort and low-score filter.
  const scoring = timelines.scoring;
  if (scoring) {
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
  }
  context.subscriptions.push(registerDumpSearch(timelines, output));
  // Claude Code and Codex CLI sessions recorded in the workspace's folders.
  sessions = new SessionsView(output, context.globalStorageUri);
  context.subscriptions.push(sessions);
}

/** Waits for replay containers and snapshots to be removed. */
export function deactivate(): Promise<void> | undefined {
  return replay?.disposeAsync();
}
