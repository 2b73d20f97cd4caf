/**
 * Every notification the extension shows goes through here: `reportError` for a failure (logged with
 * its stack, shown with a *Show Log* action that opens the output channel), `notifyError` /
 * `notifyWarning` / `notifyInfo` for messages that are not a caught error, and `askModal` for a
 * modal question. Each returns the action the user picked (undefined: none), as VS Code does.
 */
import * as vscode from 'vscode';

/** The action that opens the extension's output channel. */
export const SHOW_LOG = 'Show Log';

/** The prefix of the extension's notifications. */
export const PRODUCT = 'Trajectory Inspector';

/** The message of a thrown value (an Error's `message`, else the value as text). */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** What `log` needs: the output channel's error line and `show`. */
export type ErrorLog = Pick<vscode.LogOutputChannel, 'error' | 'show'>;

/**
 * Tells the user that `what` failed (`Trajectory Inspector: <what>: <message>`; with an empty
 * `what`, `Trajectory Inspector: <message>`), logs the error with its stack, and offers `actions`
 * then *Show Log* (handled here: it opens the log).
 * @returns the action picked, *Show Log* included
 */
export async function reportError(log: ErrorLog, what: string, e: unknown, ...actions: string[]): Promise<string | undefined> {
  const text = errorText(e);
  log.error(`${what || 'error'}: ${e instanceof Error && e.stack ? e.stack : text}`);
  const picked = await vscode.window.showErrorMessage(`${PRODUCT}: ${what ? `${what}: ` : ''}${text}`, ...actions, SHOW_LOG);
  if (picked === SHOW_LOG) log.show(true);
  return picked;
}

/** An error message that is not a caught failure (a wrong input, a summary of failures), as written. */
export function notifyError(message: string, ...actions: string[]): Thenable<string | undefined> {
  return vscode.window.showErrorMessage(message, ...actions);
}

/** A warning, as written. */
export function notifyWarning(message: string, ...actions: string[]): Thenable<string | undefined> {
  return vscode.window.showWarningMessage(message, ...actions);
}

/** An information message, as written. */
export function notifyInfo(message: string, ...actions: string[]): Thenable<string | undefined> {
  return vscode.window.showInformationMessage(message, ...actions);
}

/** A modal warning question with `detail` under it; resolves to the action picked (undefined: cancelled). */
export function askModal(message: string, detail: string, ...actions: string[]): Thenable<string | undefined> {
  return vscode.window.showWarningMessage(message, { modal: true, detail }, ...actions);
}

/** A message, as written, with `actions` then *Show Log* (handled here): for news the log tells more of. */
export async function notifyWithLog(log: ErrorLog, level: 'error' | 'info', message: string, ...actions: string[]): Promise<string | undefined> {
  const show = level === 'error' ? vscode.window.showErrorMessage : vscode.window.showInformationMessage;
  const picked = await show(message, ...actions, SHOW_LOG);
  if (picked === SHOW_LOG) log.show(true);
  return picked;
}
