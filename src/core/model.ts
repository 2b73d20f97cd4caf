/**
 * The rollout data model every format loader produces and every feature (timeline, scores, replay,
 * labels) consumes. zod schemas are the single source; the TypeScript types are inferred from them.
 *
 * Conventions:
 * - "Unknown" is `null`, never a guessed value (ATIF has no exit code, SWE-agent no reward, …).
 * - Times are ISO-8601 strings as written by the source (normalised to include a zone when the
 *   source has none is NOT done: the string is kept as found); durations are seconds.
 * - Byte ranges are UTF-16 code-unit offsets into the decoded source text (what VS Code's
 *   `TextDocument.positionAt` takes), `end` exclusive.
 *
 * This module never imports `vscode`.
 */
import { z } from 'zod';

/** Identifier of a rollout format a loader understands. */
export const FormatId = z.enum([
  'atif',
  'harbor-trial-result',
  'swe-agent',
  'mini-swe-agent',
  'openhands-v0',
  'openhands-v1',
  'openhands-eval',
  // Terminal-Bench 1.x (`tb run`): a trial folder's results.json, a run folder's results.json
  'tb1-trial',
  'tb1-run',
  // asciinema recordings (.cast v1/v2/v3)
  'asciicast',
  // RL rollout dumps and chat exports
  'openai-chat',
  'openai-responses',
  'harbor-traces',
  'rllm-episode',
  // Inspect AI logs (.eval zip, .json)
  'inspect',
  // process-label datasets
  'agentprocessbench',
  'processbench',
  'prm800k',
  'trl-stepwise',
  // coding-agent sessions
  'claude-code',
  'codex-cli',
  'gemini-cli',
  'copilot-cli',
  'cline',
  // Harbor job folder (job-level result.json heading its trials)
  'harbor-job',
  // public SWE trajectory datasets with `trajectory[]{role, text}` rows (nebius/SWE-agent-trajectories)
  'swe-traj-rows',
]);
export type FormatId = z.infer<typeof FormatId>;

/** A text range in the source file: offsets into the decoded text (UTF-16 code units), end exclusive. */
export const SourceRange = z.object({
  start: z.number().int().nonnegative(),
  end: z.number().int().nonnegative(),
});
export type SourceRange = z.infer<typeof SourceRange>;

/** Who produced a step. `environment` is a tool/terminal observation that stands as its own step. */
export const Role = z.enum(['agent', 'user', 'system', 'environment']);
export type Role = z.infer<typeof Role>;

/**
 * What the agent did.
 * - `shell`: a command run by a shell (`command` holds it).
 * - `keystrokes`: keys sent to a terminal (tmux), `command` holds the keys as text.
 * - `tool`: any other tool/function call (`tool` + `arguments`).
 * - `file_edit`: an editor tool call that changes a file (`path` when known).
 * - `finish`: the agent declared the task done (submit / mark_task_complete / finish).
 */
export const ActionKind = z.enum(['shell', 'keystrokes', 'tool', 'file_edit', 'finish']);
export type ActionKind = z.infer<typeof ActionKind>;

/**
 * A file change as an editor tool recorded it, precise enough for replay to apply it to the
 * container's files (the replayed command after it then sees the file the agent saw):
 * - `write`: the whole new content (Claude Code `Write`, Gemini CLI `write_file`, an editor `create`);
 * - `replace`: text replacements in order (Claude Code `Edit` = one, `MultiEdit` = several, an
 *   editor `str_replace`, Gemini CLI `replace`); each `oldText` must be found (exactly once unless
 *   `replaceAll`), else the edit no longer applies;
 * - `patch`: a patch text, `dialect` `codex` for OpenAI Codex's `*** Begin Patch` format
 *   (openai/codex `codex-rs/apply-patch/apply_patch_tool_instructions.md`) or `unified` for a diff;
 *   `path` is its first file when known;
 * - `other`: a change that was recorded but cannot be re-applied from the record (NotebookEdit,
 *   an editor `insert` without the file, `undo_edit`); `reason` says why.
 * Paths are as recorded (absolute, or relative to the session's cwd).
 */
export const FileEdit = z.discriminatedUnion('op', [
  z.object({ op: z.literal('write'), path: z.string(), content: z.string() }),
  z.object({
    op: z.literal('replace'),
    path: z.string(),
    edits: z.array(z.object({ oldText: z.string(), newText: z.string(), replaceAll: z.boolean() })),
  }),
  z.object({ op: z.literal('patch'), path: z.string().nullable(), patch: z.string(), dialect: z.enum(['codex', 'unified']) }),
  z.object({ op: z.literal('other'), path: z.string().nullable(), reason: z.string() }),
]);
export type FileEdit = z.infer<typeof FileEdit>;

/**
 * A link from a step (or a rollout) to another rollout the user can open from it:
 * - `subagent`: the transcript of a subagent this step started (Claude Code `Task`/`Agent` →
 *   `<session>/subagents/agent-*.jsonl` or a sidechain; ATIF `subagent_trajectory_ref`);
 * - `parent`: the rollout and step that started this one;
 * - `attempt`: another attempt of the same Harbor trial (`attempts/NNN/`);
 * - `raw-session`: the agent's own session file beside a converted trajectory (Harbor `agent/`);
 * - `converted`: the converted trajectory (ATIF) beside a raw session.
 * `path` is absolute (null = the same file); `rolloutId` picks a rollout inside it (null = its
 * first); `stepIndex` a step to select. `missing` says why the target could not be found when the
 * loader looked (the link is still shown, with that reason).
 */
export const RolloutLink = z.object({
  relation: z.enum(['subagent', 'parent', 'attempt', 'raw-session', 'converted']),
  label: z.string(),
  path: z.string().nullable(),
  rolloutId: z.string().nullable(),
  stepIndex: z.number().int().nonnegative().nullable().optional(),
  /** The tool call that started the target (subagent links), when known. */
  callId: z.string().nullable().optional(),
  missing: z.string().nullable().optional(),
});
export type RolloutLink = z.infer<typeof RolloutLink>;

/**
 * A turn that is not the agent acting: shown as what it is rather than as an ordinary step.
 * - `compaction`: the context was compacted / summarised (Claude Code `compact_boundary` and its
 *   summary turn, Codex `compacted`);
 * - `api_error`: the model call failed (Claude Code `isApiErrorMessage`, a retry notice);
 * - `interrupted`: the user stopped the agent (`[Request interrupted by user]`, Codex `turn_aborted`);
 * - `unknown_record`: a record type the loader does not know, kept raw in `message`;
 * - `notice`: another system notice worth seeing (a hook's output, a model switch, …).
 * `label` is the short text the timeline shows.
 */
export const StepEvent = z.object({
  kind: z.enum(['compaction', 'api_error', 'interrupted', 'unknown_record', 'notice']),
  label: z.string(),
});
export type StepEvent = z.infer<typeof StepEvent>;

export const Action = z.object({
  kind: ActionKind,
  /** Shell command or keystrokes, as recorded; null for non-shell tools. */
  command: z.string().nullable(),
  /** Tool / function name as recorded (e.g. `bash_command`, `str_replace_editor`); null when the format has none. */
  tool: z.string().nullable(),
  /** Tool arguments as recorded (parsed JSON when the source held a JSON string that parses). */
  arguments: z.unknown().optional(),
  /** Call id linking the action to its observation, when the format has one. */
  callId: z.string().nullable(),
  /** File path for `file_edit` actions when known. */
  path: z.string().nullable().optional(),
  /** The change of a `file_edit` action, when the record holds it precisely enough to re-apply (replay). */
  edit: FileEdit.nullable().optional(),
});
export type Action = z.infer<typeof Action>;

export const Observation = z.object({
  /** Call id of the action this answers, when the format links them. */
  callId: z.string().nullable(),
  /** Output text as recorded (may contain ANSI escapes; never HTML-interpreted). */
  output: z.string(),
  /** Process exit code when the format records it (OpenHands metadata, mini-swe-agent `<returncode>`), else null. */
  exitCode: z.number().int().nullable(),
  /**
   * Where `exitCode` came from: `recorded` (a field of the format; the default when absent) or
   * `text` (read from the output text, e.g. "Exit code 1", "[Command finished with exit code N]");
   * the UI marks the latter.
   */
  exitCodeFrom: z.enum(['recorded', 'text']).optional(),
  /** True when the tool reported an error (Claude Code `is_error`, a failed tool call status). */
  isError: z.boolean().optional(),
  /** True when the call was interrupted before it finished (Claude Code `toolUseResult.interrupted`). */
  interrupted: z.boolean().optional(),
  /** True when the source says the output was cut (OpenHands 30 000-char cap, …). */
  truncated: z.boolean(),
  /** Working directory after the command, when recorded (OpenHands metadata, SWE-agent state); replay compares it. */
  cwd: z.string().nullable().optional(),
});
export type Observation = z.infer<typeof Observation>;

/** Token counts of the LLM call that produced a step; each null when unknown. */
export const TokenCounts = z.object({
  prompt: z.number().nullable(),
  completion: z.number().nullable(),
  cached: z.number().nullable(),
});
export type TokenCounts = z.infer<typeof TokenCounts>;

export const Step = z.object({
  /** 0-based position in `Rollout.steps`; stable key for scores and labels. */
  index: z.number().int().nonnegative(),
  /** The format's own id for the step (ATIF `step_id`, OpenHands event `id`), when it has one. */
  sourceId: z.union([z.string(), z.number()]).nullable(),
  role: Role,
  /** Visible message text (agent reply, user prompt, system prompt); '' when none. */
  message: z.string(),
  /** Model reasoning / thought, kept apart from the message; null when none. */
  reasoning: z.string().nullable(),
  actions: z.array(Action),
  observations: z.array(Observation),
  /** ISO-8601 timestamp as recorded, or null. */
  timestamp: z.string().nullable(),
  /** Seconds the step took (execution time, or until the next step) when known. */
  durationSec: z.number().nullable(),
  tokens: TokenCounts.nullable(),
  /** Cost in USD when recorded. */
  costUsd: z.number().nullable(),
  /** Range of the step's JSON value in the source text, for "Show in source" and inline decorations. */
  range: SourceRange.nullable(),
  /** Absolute path of the file `range` points into when it is not the rollout's own file (ATIF continuation files). */
  file: z.string().nullable().optional(),
  /** True when the step was copied from an earlier context (ATIF `is_copied_context`). */
  copiedContext: z.boolean().optional(),
  /** Set when the step is not an ordinary turn (compaction, API error, interruption, an unknown record kept raw). */
  event: StepEvent.nullable().optional(),
  /** Rollouts reachable from this step (the subagent it started). */
  links: z.array(RolloutLink).optional(),
  /**
   * Seconds from the start of the rollout's `recording` at which this step begins (for syncing a
   * terminal player with the timeline); null/absent when unknown.
   */
  castTime: z.number().nullable().optional(),
  /**
   * A step label that came with the data (AgentProcessBench `step_labels`, ProcessBench first-error
   * index, PRM800K ratings, TRL `labels`): +1 good, 0 neutral, −1 bad, with where it came from.
   */
  referenceLabel: z
    .object({ value: z.union([z.literal(1), z.literal(0), z.literal(-1)]), source: z.string(), firstError: z.boolean().optional() })
    .nullable()
    .optional(),
});
export type Step = z.infer<typeof Step>;

/** How the rollout ended. Every field null when the format (or the folder) does not say. */
export const Outcome = z.object({
  /** Scalar outcome reward (Harbor `verifier_result.rewards.reward`, …). */
  reward: z.number().nullable(),
  /** All named rewards when the source has several. */
  rewards: z.record(z.string(), z.number()).nullable(),
  /** Whether the task was solved, when the source says so (or a reward of exactly 1/0 implies it). */
  resolved: z.boolean().nullable(),
  /** Exit status / failure mode string as recorded (SWE-agent `exit_status`, mini-swe-agent `exit_status`). */
  status: z.string().nullable(),
  /** Where the outcome came from (file path or field), for the UI's tooltip. */
  source: z.string().nullable(),
});
export type Outcome = z.infer<typeof Outcome>;

export const Rollout = z.object({
  /** Stable id: from the file when it has one (session id, instance id), else `<path>#<index>`. */
  id: z.string(),
  format: FormatId,
  /** The schema version the file declares (`ATIF-v1.5`, `mini-swe-agent-1`), or null. */
  schemaVersion: z.string().nullable(),
  source: z.object({
    /** Absolute path of the file the steps came from. */
    path: z.string(),
    /** Range of this rollout inside the file (JSONL line, …); null = whole file. */
    range: SourceRange.nullable(),
    /** 1-based line for one-rollout-per-line files. */
    line: z.number().int().positive().nullable(),
  }),
  task: z.object({ id: z.string().nullable(), instruction: z.string().nullable() }),
  agent: z.object({ name: z.string().nullable(), version: z.string().nullable(), model: z.string().nullable() }),
  environment: z.object({ image: z.string().nullable(), workdir: z.string().nullable() }),
  outcome: Outcome,
  /** Rollouts sharing a prompt in a GRPO batch share this id. */
  groupId: z.string().nullable(),
  steps: z.array(Step),
  /** Format-specific extras worth showing (exit status, costs, paths of joined files). */
  metadata: z.record(z.string(), z.unknown()),
  /**
   * A terminal recording of the rollout (Terminal-Bench 1 `sessions/agent.cast`, Harbor
   * `agent/recording.cast`, or the file itself for a `.cast`): absolute path; steps carry `castTime`.
   */
  recording: z.object({ path: z.string(), kind: z.literal('asciicast') }).nullable().optional(),
  /**
   * Fields whose value the loader derived rather than read (`task.id` from a file name,
   * `outcome.resolved` from a reward): dotted paths into this object. The UI marks them "derived";
   * absent or empty = every value shown was recorded.
   */
  derived: z.array(z.string()).optional(),
  /** Rollouts reachable from this one: its parent (a subagent's), other attempts, the raw session beside a converted one. */
  links: z.array(RolloutLink).optional(),
});
export type Rollout = z.infer<typeof Rollout>;

/**
 * A Harbor job's own `result.json` (harbor-framework/harbor `src/harbor/models/job/result.py`
 * `JobResult` / `JobStats` / `AgentDatasetStats`), as recorded: the job's counts and, per eval
 * (`<agent>__<model>__<dataset>`), its metrics, pass@k, and which trials got which reward and which
 * exception. Not a rollout: the loader (`harbor-job`) returns it beside the rollouts of the file
 * (`LoadedFile.job`). Counts the file does not hold are null (older Harbor wrote `n_trials` /
 * `n_errors`, or a top-level `status`; those are read into the same fields).
 */
export const HarborJob = z.object({
  /** Absolute path of the job `result.json`. */
  path: z.string(),
  id: z.string().nullable(),
  startedAt: z.string().nullable(),
  updatedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  nTotalTrials: z.number().int().nullable(),
  completed: z.number().int().nullable(),
  errored: z.number().int().nullable(),
  running: z.number().int().nullable(),
  pending: z.number().int().nullable(),
  cancelled: z.number().int().nullable(),
  retries: z.number().int().nullable(),
  tokens: z.object({ input: z.number().nullable(), cache: z.number().nullable(), output: z.number().nullable() }),
  costUsd: z.number().nullable(),
  /** One entry per eval key of `stats.evals` (or one `key: null` entry for the older flat stats). */
  evals: z.array(
    z.object({
      key: z.string().nullable(),
      nTrials: z.number().int().nullable(),
      nErrors: z.number().int().nullable(),
      /** `metrics` as recorded (`[{"mean": 0.25}]`): the numeric values of each metric object. */
      metrics: z.array(z.record(z.string(), z.number())),
      /** `pass_at_k`: k → value, k ascending. */
      passAtK: z.array(z.object({ k: z.number().int(), value: z.number() })),
      /** `reward_stats`: per reward name, each value and the trials that got it. */
      rewards: z.array(z.object({ name: z.string(), value: z.number(), trials: z.array(z.string()) })),
      /** `exception_stats`: per exception type, the trials that raised it. */
      exceptions: z.array(z.object({ type: z.string(), trials: z.array(z.string()) })),
    }),
  ),
  /**
   * Every trial the job result names (in `reward_stats`, `exception_stats` or `trial_results`), in
   * order of first mention: its eval key, rewards and exception type as the job result says, and the
   * trial's folder beside the job result when it exists (absolute; null = not here).
   */
  trials: z.array(
    z.object({
      name: z.string(),
      eval: z.string().nullable(),
      /** The task name, only where the job result records it (`trial_results[].task_name`). */
      taskName: z.string().nullable(),
      rewards: z.record(z.string(), z.number()).nullable(),
      exception: z.string().nullable(),
      folder: z.string().nullable(),
    }),
  ),
});
export type HarborJob = z.infer<typeof HarborJob>;

/** A per-step score from a scorer (filled in by later work; defined here so keys are shared). */
export const Score = z.object({
  rolloutId: z.string(),
  stepIndex: z.number().int().nonnegative(),
  value: z.number(),
  range: z.tuple([z.number(), z.number()]),
  label: z.string().nullable(),
  explanation: z.string().nullable(),
  scorer: z.object({ name: z.string(), version: z.string(), model: z.string().nullable() }),
});
export type Score = z.infer<typeof Score>;

/** A human step label, AgentProcessBench ternary scheme (+1 good, 0 neutral, −1 bad). */
export const Label = z.object({
  rolloutId: z.string(),
  stepIndex: z.number().int().nonnegative(),
  value: z.union([z.literal(1), z.literal(0), z.literal(-1)]),
  firstError: z.boolean(),
  note: z.string().nullable(),
  annotator: z.string(),
  time: z.string(),
});
export type Label = z.infer<typeof Label>;

/** An empty outcome: nothing known. */
export function unknownOutcome(): Outcome {
  return { reward: null, rewards: null, resolved: null, status: null, source: null };
}

/**
 * The number of steps a rollout adds: its steps minus those an ATIF file marks as copied from an
 * earlier context (`is_copied_context`, `Step.copiedContext`: the history a continuation replays).
 * Summaries, the Rollouts view, the CLI, group ranking and the scorer count these, not `steps.length`.
 */
export function countedSteps(r: { readonly steps: readonly Pick<Step, 'copiedContext'>[] }): number {
  let n = 0;
  for (const s of r.steps) if (!s.copiedContext) n++;
  return n;
}

/** Convenience constructor for a step with every optional field unknown; `fields` overrides. */
export function makeStep(index: number, role: Role, fields: Partial<Step> = {}): Step {
  return {
    index,
    sourceId: null,
    role,
    message: '',
    reasoning: null,
    actions: [],
    observations: [],
    timestamp: null,
    durationSec: null,
    tokens: null,
    costUsd: null,
    range: null,
    ...fields,
  };
}
