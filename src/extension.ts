/**
 * The extension's entry: builds the composition root (host/app.ts) and hands it to VS Code to
 * dispose. Features live in src/host/.
 */
import type * as vscode from 'vscode';
import { App } from './host/app';

/** The running extension, for `deactivate` (undefined before activation and after a failed one). */
let app: App | undefined;

/** Starts the extension; a failure to start is shown to the user (App.create) and does not throw out of here. */
export function activate(context: vscode.ExtensionContext): void {
  app = App.create(context) ?? undefined;
  if (app) context.subscriptions.push(app);
}

/** Waits for replay containers and snapshots to be removed. */
export function deactivate(): Promise<void> | undefined {
  return app?.deactivate();
}
