/**
 * Composition root: builds the host services and registers them. Features live in src/host/.
 */
import * as vscode from 'vscode';
import { registerCommands } from './host/commands';
import { registerCompareCommands } from './host/compare/compareCommands';
import { ComparePanels } from './host/compare/comparePanel';
import { SearchView } from './host/search/searchView';
import { LabelService } from './host/labels';
import { RolloutsView } from './host/rolloutsView';
import { TimelineEditorProvider } from './host/timelineEditor';

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel('Trajectory Inspector', { log: true });
  const labels = new LabelService(context.globalStorageUri, output);
  const timelines = new TimelineEditorProvider(context.extensionUri, output, labels);
  const rollouts = new RolloutsView(output, context.workspaceState, (f) => labels.locate(f).journal);
  context.subscriptions.push(output, labels, timelines, rollouts, registerCommands(timelines, rollouts));
  // Compare, group view and workspace search (issue 8).
  const compare = new ComparePanels(context.extensionUri, output, timelines, (f) => labels.locate(f).journal);
  const search = new SearchView(rollouts, timelines, output, context.workspaceState);
  context.subscriptions.push(compare, search, registerCompareCommands(compare, rollouts, search));
}

export function deactivate(): void {}
