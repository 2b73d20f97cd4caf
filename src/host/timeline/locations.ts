/**
 * Opening places of a rollout file as text beside the timeline: a step's range (Show in Source, a
 * dump search hit) and a load error's line and column.
 */
import * as vscode from 'vscode';

/** Opens the raw file as text with `range` (UTF-16 offsets) selected and revealed; with no range, at 1-based `line` (default 1). */
export async function revealInSource(file: string, range: { start: number; end: number } | null, line: number | null = null): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  let selection: vscode.Selection;
  if (range) {
    selection = new vscode.Selection(doc.positionAt(range.start), doc.positionAt(range.end));
  } else {
    const l = Math.max(0, Math.min(doc.lineCount - 1, (line ?? 1) - 1));
    selection = new vscode.Selection(l, 0, l, 0);
  }
  const editor = await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, selection, preview: true });
  editor.revealRange(new vscode.Range(selection.start, selection.start), vscode.TextEditorRevealType.AtTop);
}

/** Opens a file at a 1-based line / column (load-error links); null stands for 1. */
export async function openLocation(file: string, line: number | null, column: number | null): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  const l = Math.max(0, Math.min(doc.lineCount - 1, (line ?? 1) - 1));
  const pos = new vscode.Position(l, Math.max(0, (column ?? 1) - 1));
  const editor = await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, selection: new vscode.Selection(pos, pos) });
  editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenter);
}
