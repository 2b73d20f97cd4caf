/**
 * Load failures as the user reads them: the timeline's `loadError` message (located issues
 * formatted by core, the formats that declined the file) and the short text of a tooltip. Nothing
 * here imports `vscode`.
 */
import { RolloutLoadError, UnknownFormatError, formatIssue } from '../core/errors';
import type { IssueView, LoadErrorMessage } from '../shared/protocol';

/** Converts anything a load threw into the webview's error message, with located issues formatted by core. */
export function errorToMessage(file: string, err: unknown): LoadErrorMessage {
  if (err instanceof RolloutLoadError) {
    const issues: IssueView[] = err.issues.map((i) => ({ ...i, formatted: formatIssue(i) }));
    return {
      type: 'loadError',
      file,
      title: err.format ? `Invalid ${err.format} rollout` : 'Unreadable rollout file',
      issues,
      declined: [],
      message: err.message,
    };
  }
  if (err instanceof UnknownFormatError) {
    return {
      type: 'loadError',
      file,
      title: 'No rollout format matches this file',
      issues: [],
      declined: err.declined.map((d) => ({ format: d.format, reason: d.reason })),
      message: err.message,
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { type: 'loadError', file, title: 'Could not load this file', issues: [], declined: [], message };
}

/** One-line error text for a tooltip (first lines of the error message). */
export function errorSummary(err: unknown, maxLines = 6): string {
  const text = err instanceof Error ? err.message : String(err);
  const lines = text.split('\n');
  return lines.length > maxLines ? `${lines.slice(0, maxLines).join('\n')}\n…` : text;
}
