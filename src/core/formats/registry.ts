/**
 * The loader registry: every format the extension reads, tried in order on every file. Detection
 * is by content; the most confident loader that accepts wins (ties go to the earlier entry).
 */
import { UnknownFormatError } from '../errors';
import { asciicastLoader } from './asciicast';
import { copilotCliLoader } from './copilotCli';
import { atifLoader, harborTrialResultLoader } from './atif';
import { claudeCodeLoader } from './claudeCode';
import { clineLoader } from './cline';
import { codexCliLoader } from './codexCli';
import { geminiCliLoader } from './geminiCli';
import { harborJobLoader } from './harborJob';
import { inspectLoader } from './inspect';
import { miniSweAgentLoader } from './miniSweAgent';
import { openHandsEvalLoader, openHandsV0Loader, openHandsV1Loader } from './openhands';
import { agentProcessBenchLoader, prm800kLoader, processBenchLoader, trlStepwiseLoader } from './processLabels';
import { harborTracesLoader, openAiChatLoader, openAiResponsesLoader, rllmEpisodeLoader } from './rlDumps';
import { sweAgentLoader } from './sweAgent';
import { sweTrajRowsLoader } from './sweTrajRows';
import { tb1RunLoader, tb1TrialLoader } from './tb1';
import type { FormatLoader, LoadInput } from './types';

/** All loaders, most specific first. */
export const LOADERS: readonly FormatLoader[] = [
  atifLoader,
  harborTrialResultLoader,
  harborJobLoader,
  miniSweAgentLoader,
  sweAgentLoader,
  openHandsEvalLoader,
  openHandsV1Loader,
  openHandsV0Loader,
  tb1TrialLoader,
  tb1RunLoader,
  codexCliLoader,
  geminiCliLoader,
  asciicastLoader,
  claudeCodeLoader,
  copilotCliLoader,
  clineLoader,
  inspectLoader,
  agentProcessBenchLoader,
  processBenchLoader,
  prm800kLoader,
  trlStepwiseLoader,
  harborTracesLoader,
  openAiResponsesLoader,
  rllmEpisodeLoader,
  sweTrajRowsLoader,
  openAiChatLoader,
];

/**
 * Picks the loader for a file. Throws UnknownFormatError listing every loader and its reason to
 * decline when none accepts.
 */
export function pickLoader(input: LoadInput, loaders: readonly FormatLoader[] = LOADERS): FormatLoader {
  let best: { loader: FormatLoader; confidence: number } | null = null;
  const declined: { format: string; reason: string }[] = [];
  for (const loader of loaders) {
    let d;
    try {
      d = loader.detect(input);
    } catch (e) {
      d = { accept: false as const, reason: `detector failed: ${(e as Error).message}` };
    }
    if (d.accept) {
      if (!best || d.confidence > best.confidence) best = { loader, confidence: d.confidence };
    } else {
      declined.push({ format: loader.label, reason: d.reason });
    }
  }
  if (!best) throw new UnknownFormatError(input.path, declined);
  return best.loader;
}
