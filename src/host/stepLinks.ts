/**
 * Links to a step, wired to VS Code: *Copy Link to Step* (the selected step of the active timeline,
 * as a `vscode://…/open?file=…&rollout=…&step=…` link on the clipboard), *Open Link to Step…* (a
 * pasted link), and the URI handler VS Code calls when such a link is opened from a browser, a chat
 * or a terminal (VS Code asks the user before it hands an outside link to an extension). The link
 * format and its parsing: stepLink.ts.
 *
 * A link is untrusted input: it only ever opens a rollout file of an open workspace folder (or the
 * absolute path it names) in the read-only timeline; a bad link says what is wrong with it.
 */
import * as vscode from 'vscode';
import type { CommandTable } from './commandTable';
import { activeOrExplain } from './commands';
import { notifyError, notifyInfo, reportError, type ErrorLog } from './notify';
import { buildStepLink, linkPathOf, parseStepLink, resolveLinkPath, StepLinkError, type StepLink } from './stepLink';
import type { TimelineEditorProvider } from './timelineEditor';

/** Command ids (contributed in package.json). */
export const STEP_LINK_COMMANDS = {
  copyStepLink: 'trajectoryInspector.copyStepLink',
  openStepLink: 'trajectoryInspector.openStepLink',
} as const;

const folderPaths = (): string[] => (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);

/**
 * Opens what `link` points at in the timeline, or tells the user why it cannot (the file is not in
 * this workspace: the paths tried are named).
 */
export async function openStepLink(timelines: TimelineEditorProvider, link: StepLink): Promise<boolean> {
  const found = resolveLinkPath(link.file, folderPaths());
  if (!('path' in found)) {
    const where = found.reason ?? (found.tried.length ? `looked for ${found.tried.join(', ')}` : 'nothing to look in');
    void notifyError(`Trajectory Inspector: the linked rollout file ${link.file} is not in this workspace (${where}).`);
    return false;
  }
  await timelines.openRollout(vscode.Uri.file(found.path), link.rolloutIndex, link.stepIndex);
  return true;
}

/** Reads and opens one link (`uri`: as VS Code hands it to the handler, or parsed from pasted text). */
async function openUri(timelines: TimelineEditorProvider, output: ErrorLog, uri: vscode.Uri): Promise<void> {
  try {
    await openStepLink(timelines, parseStepLink(uri.path, uri.query));
  } catch (e) {
    if (e instanceof StepLinkError) void notifyError(`Trajectory Inspector: cannot open the step link: ${e.message}.`);
    else void reportError(output, 'Open Link to Step', e);
  }
}

/** The URI handler of the extension (register with `vscode.window.registerUriHandler`). */
export function stepLinkHandler(timelines: TimelineEditorProvider, output: ErrorLog): vscode.UriHandler {
  return { handleUri: (uri) => openUri(timelines, output, uri) };
}

/** *Copy Link to Step* and *Open Link to Step…*; `extensionId` is `publisher.name` (context.extension.id). */
export function stepLinkCommands(timelines: TimelineEditorProvider, output: ErrorLog, extensionId: string): CommandTable {
  return [
    {
      id: STEP_LINK_COMMANDS.copyStepLink,
      run: async () => {
        const p = activeOrExplain(timelines);
        if (!p || p.uri.scheme !== 'file') return;
        const step = p.selectedStep;
        const file = linkPathOf(p.uri.fsPath, folderPaths());
        const link = buildStepLink(vscode.env.uriScheme, extensionId, { file, rolloutIndex: p.rolloutIndex, stepIndex: step });
        await vscode.env.clipboard.writeText(link);
        void notifyInfo(`Copied a link to ${step === null ? 'the start' : `step #${step + 1}`} of rollout ${p.rolloutIndex + 1} of ${file}.`);
      },
    },
    {
      id: STEP_LINK_COMMANDS.openStepLink,
      run: async (text?: unknown) => {
        const raw =
          typeof text === 'string'
            ? text
            : await vscode.window.showInputBox({
                title: 'Open Link to Step',
                prompt: 'A link from Copy Link to Step',
                placeHolder: `${vscode.env.uriScheme}://${extensionId}/open?file=…&rollout=1&step=1`,
                ignoreFocusOut: true,
              });
        if (!raw?.trim()) return;
        let uri: vscode.Uri;
        try {
          uri = vscode.Uri.parse(raw.trim(), true);
        } catch (e) {
          void notifyError(`Trajectory Inspector: cannot open the step link: it is not a link (${e instanceof Error ? e.message : String(e)}).`);
          return;
        }
        if (uri.authority.toLowerCase() !== extensionId.toLowerCase()) {
          void notifyError(`Trajectory Inspector: cannot open the step link: it is for ${uri.authority || 'no extension'}, not ${extensionId}.`);
          return;
        }
        await openUri(timelines, output, uri);
      },
    },
  ];
}
