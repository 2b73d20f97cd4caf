/**
 * Composition of the step-score features around the scoring service (a TimelineFeature the
 * timelines are built with): the raw-file decorations / hover / CodeLens, the status bar and the commands.
 */
import * as vscode from 'vscode';
import type { CommandTable } from '../commandTable';
import type { RolloutLoader } from '../loadWorker';
import type { TimelineEditorProvider } from '../timelineEditor';
import { ScorerStatus, scoringCommands } from './commands';
import { InlineScores } from './inline';
import type { ScoringService } from './service';

/** The scoring feature: its service (a TimelineFeature), its commands (registered by the composition root) and what to dispose. */
export interface ScoringFeature extends vscode.Disposable {
  readonly service: ScoringService;
  readonly commands: CommandTable;
}

/** Builds everything of the scoring feature beside `service` (which the timelines were built with); dispose the result to undo it (the service too). */
export function createScoring(service: ScoringService, timelines: TimelineEditorProvider, loader: RolloutLoader): ScoringFeature {
  const inline = new InlineScores(service);
  const status = new ScorerStatus(service);
  return {
    service,
    commands: scoringCommands(service, timelines, loader),
    dispose: () => {
      status.dispose();
      inline.dispose();
      service.dispose();
    },
  };
}
