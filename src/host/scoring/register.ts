/**
 * Composition of the step-score features: the scoring service, its hookup to the
 * timelines, the raw-file decorations / hover / CodeLens, the status bar and the commands.
 */
import * as vscode from 'vscode';
import type { TimelineEditorProvider } from '../timelineEditor';
import { registerScoringCommands, ScorerStatus } from './commands';
import { InlineScores } from './inline';
import { ScoringService } from './service';

/** Builds and registers everything; dispose the result to undo it. */
export function registerScoring(context: vscode.ExtensionContext, output: vscode.LogOutputChannel, timelines: TimelineEditorProvider): vscode.Disposable {
  const service = new ScoringService(context, output);
  timelines.scoring = service;
  const inline = new InlineScores(service, (file, rolloutIndex, stepIndex) => timelines.openRollout(vscode.Uri.file(file), rolloutIndex, stepIndex));
  const status = new ScorerStatus(service);
  const commands = registerScoringCommands(service, timelines);
  return new vscode.Disposable(() => {
    timelines.scoring = null;
    commands.dispose();
    status.dispose();
    inline.dispose();
    service.dispose();
  });
}
