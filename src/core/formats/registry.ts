/**
 * The loader registry: every format the extension reads, tried in order on every file. Detection
 * is by content; the most confident loader that accepts wins (ties go to the earlier entry).
 */
import { describeValue, UnknownFormatError, type Declined } from '../errors';
import type { JsonDoc } from '../json';
import { agentProcessBenchLoader } from './agentProcessBench';
import { asciicastLoader } from './asciicast';
import { copilotCliLoader } from './copilotCli';
import { atifLoader } from './atif';
import { harborTrialResultLoader } from './harborTrialResult';
import { claudeCodeLoader } from './claudeCode';
import { clineLoader } from './cline';
import { codexCliLoader } from './codexCli';
import { geminiCliLoader } from './geminiCli';
import { harborJobLoader } from './harborJob';
import { harborTracesLoader } from './harborTraces';
import { inspectLoader } from './inspect';
import { miniSweAgentLoader } from './miniSweAgent';
import { openAiChatLoader } from './openAiChat';
import { openAiResponsesLoader } from './openAiResponses';
import { openHandsEvalLoader } from './openhandsEval';
import { openHandsV0Loader } from './openhandsV0';
import { openHandsV1Loader } from './openhandsV1';
import { prm800kLoader } from './prm800k';
import { processBenchLoader } from './processBench';
import { rllmEpisodeLoader } from './rllmEpisode';
import { sweAgentLoader } from './sweAgent';
import { sweTrajRowsLoader } from './sweTrajRows';
import { tb1RunLoader } from './tb1Run';
import { tb1TrialLoader } from './tb1Trial';
import { trlStepwiseLoader } from './trlStepwise';
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
 * The human name of a format (its loader's `label`, e.g. "Harbor ATIF trajectory"), the one the
 * views show; the id itself for an id no loader has.
 */
export function formatLabel(format: string): string {
  return LOADERS.find((l) => l.id === format)?.label ?? format;
}

/**
 * Picks the loader for a file. Throws UnknownFormatError listing every loader and its reason to
 * decline when none accepts.
 */
export function pickLoader(input: LoadInput, loaders: readonly FormatLoader[] = LOADERS): FormatLoader {
  let best: { loader: FormatLoader; confidence: number } | null = null;
  // Declines are located only when no loader accepts: locating builds the document's syntax tree,
  // which for a large file takes many times its size.
  const declined: { label: string; reason: string; at?: (string | number)[] }[] = [];
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
      declined.push({ label: loader.label, reason: d.reason, at: d.at });
    }
  }
  if (!best) throw new UnknownFormatError(input.path, declined.map((d) => locateDecline(input, d.label, d.reason, d.at)));
  return best.loader;
}

/** The document detection looked at: the single JSON value, or the first line's (JSONL); null for archives and unparsable lines. */
function detectedDoc(input: LoadInput): JsonDoc | null {
  if (input.doc) return input.doc;
  if (input.lines?.length) {
    try {
      return input.parseLine(input.lines[0]);
    } catch {
      return null;
    }
  }
  return null;
}

/**
 * A decline with the position of the field that decided (see `Detection`): `at` when the loader
 * named it, else the first quoted field name of the reason the top-level object holds, else the top
 * level. A reason saying `no "X"` while X is there (with another type) says what X holds instead.
 */
export function locateDecline(input: LoadInput, format: string, reason: string, at?: (string | number)[]): Declined {
  const doc = detectedDoc(input);
  if (!doc) return { format, reason };
  let path = at;
  let why = reason;
  const top = doc.value;
  if (!path && top !== null && typeof top === 'object' && !Array.isArray(top)) {
    for (const m of reason.matchAll(/"([^"\\]{1,80})"/g)) {
      if (Object.prototype.hasOwnProperty.call(top, m[1])) {
        path = [m[1]];
        const v = (top as Record<string, unknown>)[m[1]];
        // "no \"schema_version\" field" is wrong when the field is there with another type.
        if (new RegExp(`\\bno "${m[1].replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`).test(reason)) why = `${reason}: "${m[1]}" is there but holds ${describeValue(v)}`;
        break;
      }
    }
  }
  path ??= [];
  try {
    const pos = doc.locate(path);
    const pointer = path.length ? '/' + path.map((k) => String(k).replace(/~/g, '~0').replace(/\//g, '~1')).join('/') : '/';
    return { format, reason: `${why} (line ${pos.line}, column ${pos.column}, at ${pointer})`, line: pos.line, column: pos.column, pointer };
  } catch {
    return { format, reason: why };
  }
}
