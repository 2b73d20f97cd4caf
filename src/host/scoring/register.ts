/**
 * Composition of the step-score features around the scoring service (a TimelineFeature the
 * timelines are built with): the raw-file decorations / hover / CodeLens, the status bar and the commands.
 */
import * as vscode from 'vscode';
import type { TimelineEditorProvider } from '../timelineEditor';
import { registerScoringCommands, ScorerStatus } from './commands';
import { InlineScores } from './inline';
import type { ScoringService } from './service';

/** Builds and registers everything beside `service`; dispose the result to undo it (the service too). */
export function registerScoring(service: ScoringService, timelines: TimelineEditorProvider): vscode.Disposable {
  const inline = new InlineScores(service, (file, rolloutIndex, stepIndex) => timelines.openRollout(vscode.Uri.file(file), rolloutIndex, stepIndex));
  const status = new ScorerStatus(service);
  const commands = registerScoringCommands(service, timelines);
  return new vscode.Disposable(() => {
    commands.dispose();
    status.dispose();
    inline.dispose();
    service.dispose();
  });
}
