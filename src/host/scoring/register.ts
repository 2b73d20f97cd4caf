/**
 * Composition of the step-score features: the scoring service, its hookup to the
 * timelines, the raw-file decorations / hover / CodeLens, the status bar and the commands.
 */
import * as vscode from 'vscode';
import type { CommandTable } from '../commandTable';
import type { SettingsWatcher } from '../config';
import type { RolloutLoader } from '../loadWorker';
import type { TimelineEditorProvider } from '../timelineEditor';
import { ScorerStatus, scoringCommands } from './commands';
import { InlineScores } from './inline';
import { ScoringService } from './service';

/** The scoring feature: its service, its commands (registered by the composition root) and what to dispose. */
export interface ScoringFeature extends vscode.Disposable {
  readonly service: ScoringService;
  readonly commands: CommandTable;
}

/** Builds the scoring feature; dispose the result to undo it. */
export function createScoring(
  context: vscode.ExtensionContext,
  output: vscode.LogOutputChannel,
  settings: Pick<SettingsWatcher, 'onDidChange'>,
  timelines: TimelineEditorProvider,
  loader: RolloutLoader,
): ScoringFeature {
  const service = new ScoringService(context, output, settings);
  timelines.scoring = service;
  const inline = new InlineScores(service);
  const status = new ScorerStatus(service);
  return {
    service,
    commands: scoringCommands(service, timelines, loader),
    dispose: () => {
      timelines.scoring = null;
      status.dispose();
      inline.dispose();
      service.dispose();
    },
  };
}
