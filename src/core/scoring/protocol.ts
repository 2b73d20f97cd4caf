/**
 * Scorer protocol v1: zod schemas for every message both ways between the extension (client) and a
 * scorer process (server). Transport: JSON-RPC 2.0 over the scorer's stdin/stdout with LSP
 * base-protocol framing (`Content-Length: N\r\n\r\n<utf-8 JSON>`); stderr carries logs only.
 * The contract with examples is docs/scorer-protocol.md; this module is its executable form, used
 * by the client (src/core/scoring/client.ts), the built-in scorer (src/scorers/builtin/main.ts) and
 * the conformance kit (src/core/scoring/check.ts).
 *
 * This module never imports `vscode`.
 */
import { z } from 'zod';

/** The protocol version this module implements (`initialize.protocolVersion`). */
export const PROTOCOL_VERSION = 1;

/** JSON-RPC / LSP error codes a scorer answers with (docs/scorer-protocol.md §Errors). */
export const ErrorCodes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  ServerNotInitialized: -32002,
  RequestCancelled: -32800,
  ModelLoadFailed: -32010,
  OutOfMemory: -32011,
  InputTooLong: -32012,
  BackendUnavailable: -32013,
} as const;

/** A short human name for a protocol error code ("OutOfMemory"), or `error <code>`. */
export function errorCodeName(code: number): string {
  for (const [name, c] of Object.entries(ErrorCodes)) if (c === code) return name;
  return `error ${code}`;
}

// ---------------------------------------------------------------- initialize

export const InitializeParams = z.object({
  protocolVersion: z.literal(PROTOCOL_VERSION),
  client: z.object({ name: z.string(), version: z.string() }),
  /** Scorer-specific settings from the user's configuration (`trajectoryInspector.scorer.options`). */
  options: z.record(z.string(), z.unknown()).optional(),
});
export type InitializeParams = z.infer<typeof InitializeParams>;

export const Capabilities = z.object({
  progress: z.boolean(),
  cancel: z.boolean(),
  explanations: z.boolean(),
  labels: z.boolean(),
});
export type Capabilities = z.infer<typeof Capabilities>;

const finite = z.number().refine(Number.isFinite, 'must be a finite number');

export const InitializeResult = z.object({
  protocolVersion: z.literal(PROTOCOL_VERSION),
  scorer: z.object({ name: z.string().min(1), version: z.string().min(1) }),
  /** Model id or path; null for a rule-based scorer. */
  model: z.string().nullable(),
  /** Where it runs: "cpu", "cuda:0", an endpoint URL…; null when unknown. */
  device: z.string().nullable(),
  /** [low, high] of every value (e.g. [0, 1] = P(step is correct)). */
  scoreRange: z.tuple([finite, finite]).refine(([lo, hi]) => lo < hi, 'scoreRange must be [low, high] with low < high'),
  maxBatchRollouts: z.number().int().min(1),
  maxBatchSteps: z.number().int().min(1),
  capabilities: Capabilities,
});
export type InitializeResult = z.infer<typeof InitializeResult>;

// ---------------------------------------------------------------- score

/** Action kinds on the wire (model.ts `ActionKind` mapped: keystrokes→keys, file_edit→edit). */
export const ScoreActionKind = z.enum(['shell', 'keys', 'tool', 'edit', 'finish', 'other']);
export type ScoreActionKind = z.infer<typeof ScoreActionKind>;

export const ScoreAction = z.object({
  kind: ScoreActionKind,
  command: z.string().nullable(),
  tool: z.string().nullable(),
  /** Tool arguments as a string (JSON text when the source held structured arguments). */
  arguments: z.string().nullable(),
});
export type ScoreAction = z.infer<typeof ScoreAction>;

export const ScoreObservation = z.object({
  output: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  truncated: z.boolean(),
  /** True when the tool reported an error (a coding agent's failed tool call); absent = not said. */
  isError: z.boolean().optional(),
  /** True when the call was interrupted before it finished; absent = not said. */
  interrupted: z.boolean().optional(),
});
export type ScoreObservation = z.infer<typeof ScoreObservation>;

export const ScoreStep = z.object({
  /** The step's index in the rollout (model.ts `Step.index`). */
  index: z.number().int().nonnegative(),
  role: z.enum(['agent', 'user', 'system', 'environment']),
  message: z.string().nullable(),
  reasoning: z.string().nullable(),
  actions: z.array(ScoreAction),
  observations: z.array(ScoreObservation),
  /** Milliseconds the step took, when known. */
  durationMs: z.number().nullable(),
});
export type ScoreStep = z.infer<typeof ScoreStep>;

export const ScoreRollout = z.object({
  id: z.string(),
  task: z.object({ id: z.string().nullable(), instruction: z.string().nullable() }),
  steps: z.array(ScoreStep),
});
export type ScoreRollout = z.infer<typeof ScoreRollout>;

export const ScoreParams = z.object({
  rollouts: z.array(ScoreRollout),
  partialResultToken: z.union([z.string(), z.number()]).optional(),
});
export type ScoreParams = z.infer<typeof ScoreParams>;

/**
 * One step's score. `value` null = not scored (e.g. a non-agent step); otherwise a finite number
 * inside the scorer's `scoreRange` (checked against the range by `checkScoreResult`).
 */
export const StepScore = z.object({
  index: z.number().int().nonnegative(),
  value: finite.nullable(),
  label: z.string().nullable().optional(),
  explanation: z.string().nullable().optional(),
});
export type StepScore = z.infer<typeof StepScore>;

export const RolloutScores = z.object({ id: z.string(), steps: z.array(StepScore) });
export type RolloutScores = z.infer<typeof RolloutScores>;

export const ScoreResult = z.object({ rollouts: z.array(RolloutScores) });
export type ScoreResult = z.infer<typeof ScoreResult>;

/** `$/progress` notification params for a `score` request that carried a `partialResultToken`. */
export const ProgressParams = z.object({
  token: z.union([z.string(), z.number()]),
  value: z.object({
    /** Steps done and in all, over the whole request. */
    done: z.number().int().nonnegative(),
    total: z.number().int().nonnegative(),
    /** Rollouts finished since the last notification, same shape as in the result. */
    rollouts: z.array(RolloutScores).optional(),
  }),
});
export type ProgressParams = z.infer<typeof ProgressParams>;

export const CancelParams = z.object({ id: z.union([z.string(), z.number()]) });

// ---------------------------------------------------------------- errors

/** `data` of the scorer-specific errors; the client shows them, so it checks their shape. */
export const ErrorData = {
  [ErrorCodes.ModelLoadFailed]: z.object({ model: z.string(), reason: z.string() }),
  [ErrorCodes.OutOfMemory]: z.object({ device: z.string(), batchRollouts: z.number().int(), batchSteps: z.number().int() }),
  [ErrorCodes.InputTooLong]: z.object({ rolloutId: z.string(), tokens: z.number().int(), limit: z.number().int() }),
  [ErrorCodes.BackendUnavailable]: z.object({ url: z.string(), reason: z.string() }),
} as const;

/** Method names. */
export const Methods = {
  initialize: 'initialize',
  score: 'score',
  shutdown: 'shutdown',
  exit: 'exit',
  progress: '$/progress',
  cancelRequest: '$/cancelRequest',
} as const;

// ---------------------------------------------------------------- checks beyond shape

/** Formats zod issues as `path: message` lines (for error text and `-32602` data). */
export function formatZodIssues(error: z.ZodError, max = 5): string[] {
  const lines = error.issues.slice(0, max).map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`);
  if (error.issues.length > max) lines.push(`… ${error.issues.length - max} more`);
  return lines;
}

/**
 * Checks a scorer's scores for one request against what was asked: exactly one entry per input
 * rollout (same ids, any order), one per input step (same indexes), each value null or inside
 * `range`. Returns the problems found (empty = good), each naming rollout and step.
 */
export function checkRolloutScores(input: ScoreRollout[], output: RolloutScores[], range: [number, number], partial = false): string[] {
  const problems: string[] = [];
  const byId = new Map(input.map((r) => [r.id, r]));
  const seen = new Set<string>();
  for (const r of output) {
    const inRollout = byId.get(r.id);
    if (!inRollout) {
      problems.push(`rollout ${JSON.stringify(r.id)} was not asked for`);
      continue;
    }
    if (seen.has(r.id)) problems.push(`rollout ${JSON.stringify(r.id)} answered twice`);
    seen.add(r.id);
    const want = new Set(inRollout.steps.map((s) => s.index));
    const got = new Set<number>();
    for (const s of r.steps) {
      if (!want.has(s.index)) problems.push(`rollout ${JSON.stringify(r.id)}: step ${s.index} was not asked for`);
      else if (got.has(s.index)) problems.push(`rollout ${JSON.stringify(r.id)}: step ${s.index} answered twice`);
      got.add(s.index);
      if (s.value !== null && (s.value < range[0] || s.value > range[1])) {
        problems.push(`rollout ${JSON.stringify(r.id)}: step ${s.index} value ${s.value} is outside the score range [${range[0]}, ${range[1]}]`);
      }
    }
    const missing = [...want].filter((i) => !got.has(i));
    if (missing.length) problems.push(`rollout ${JSON.stringify(r.id)}: ${missing.length} step(s) not answered (first: step ${missing[0]})`);
  }
  if (!partial) {
    const absent = input.filter((r) => !seen.has(r.id));
    if (absent.length) problems.push(`${absent.length} rollout(s) not answered (first: ${JSON.stringify(absent[0].id)})`);
  }
  return problems;
}
