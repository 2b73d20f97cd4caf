/**
 * Composition root: builds the host services and registers them. Features live in src/host/.
 */
import * as vscode from 'vscode';
import { registerCommands } from './host/commands';
import { initDumpIndexes } from './host/dumpIndexes';
import { registerDumpSearch } from './host/dumpSearch';
import { LabelService } from './host/labels';
import { RolloutsView } from './host/rolloutsView';
import { TimelineEditorProvider } from './host/timelineEditor';

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel('Trajectory Inspector', { log: true });
  initDumpIndexes(context.globalStorageUri, output);
  const labels = new LabelService(context.globalStorageUri, output);
  const timelines = new TimelineEditorProvider(context.extensionUri, output, labels);
  const rollouts = new RolloutsView(output, context.workspaceState);
  context.subscriptions.push(output, labels, timelines, rollouts, registerCommands(timelines, rollouts));
  context.subscriptions.push(registerDumpSearch(timelines, output));
}

export function deactivate(): void {}
