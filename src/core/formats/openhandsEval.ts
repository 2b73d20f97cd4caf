/**
 * The OpenHands evaluation `output.jsonl` loader: V0 and V1 evaluation rows and resolver rows,
 * one rollout per line (sources and mapping in the module docs of openhandsEvents.ts; steps built by
 * openhandsV0Steps.ts and openhandsV1Steps.ts).
 *
 * This module never imports `vscode`.
 */
import { z } from 'zod';
import { RolloutLoadError } from '../errors';
import { unknownOutcome, type Rollout, type Step } from '../model';
import { metadataOf, readResponseMetrics, V0EventSchema, validateV1Events, type BuildInfo, type V0Event } from './openhandsEvents';
import { buildV0Steps } from './openhandsV0Steps';
import { buildV1Steps } from './openhandsV1Steps';
import { IssueCollector, loadRows, rowSource, type RowRef } from './rows';
import type { Detection, FormatLoader, LoadInput } from './types';
import { isObject, num, str } from './util';

const EVAL_LABEL = 'OpenHands evaluation output.jsonl';

// ---------------------------------------------------------------------------------------------
// Evaluation output.jsonl loader

const EvalRowSchema = z.looseObject({
  instance_id: z.union([z.string(), z.number()]),
  instruction: z.string().nullish(),
  history: z.array(z.unknown()),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  metrics: z.record(z.string(), z.unknown()).nullish(),
  error: z.string().nullish(),
  test_result: z.record(z.string(), z.unknown()).nullish(),
  instance: z.record(z.string(), z.unknown()).nullish(),
  attempt: z.number().nullish(),
});

/**
 * A resolver row (All-Hands-AI/OpenHands `openhands/resolver/resolver_output.py` `ResolverOutput`:
 * `{issue: {owner, repo, number, title, body, …}, issue_type, instruction, base_commit, git_patch,
 * history, metrics, success, comment_success, result_explanation, error}`), one per line of the
 * resolver's `output/output.jsonl`.
 */
const ResolverRowSchema = z.looseObject({
  issue: z.looseObject({ owner: z.string(), repo: z.string(), number: z.number().int(), title: z.string().nullish() }),
  issue_type: z.string().nullish(),
  instruction: z.string().nullish(),
  base_commit: z.string().nullish(),
  git_patch: z.string().nullish(),
  history: z.array(z.unknown()),
  metrics: z.record(z.string(), z.unknown()).nullish(),
  success: z.boolean().nullish(),
  comment_success: z.array(z.boolean()).nullish(),
  result_explanation: z.string().nullish(),
  error: z.string().nullish(),
});

function looksLikeResolverRow(v: unknown): v is Record<string, unknown> {
  return isObject(v) && isObject(v.issue) && 'number' in v.issue && Array.isArray(v.history) && ('git_patch' in v || 'issue_type' in v || 'success' in v);
}

/** Top-level fields of an event that are the event itself, not the flat arguments / extras of the older serialization. */
const EVENT_FIELDS = new Set(['id', 'timestamp', 'source', 'message', 'cause', 'action', 'observation', 'args', 'content', 'extras', 'tool_call_metadata', 'llm_metrics']);

/**
 * The older V0 serialization the resolver's history uses (an action's arguments and an
 * observation's extras at the top level: `{action: "run", command, thought}`, `{observation: "run",
 * content, command, exit_code}`, no ids, no causes) in the current shape: `args` / `extras` from the
 * other fields, ids by position, each observation caused by the action before it, the first message
 * the user's. Events already in the current shape are left as they are.
 */
function flatV0Events(events: V0Event[]): V0Event[] {
  if (events.some((e) => e.args || e.extras || typeof e.id === 'number')) return events;
  let lastAction: number | null = null;
  return events.map((e, i) => {
    const rest = Object.fromEntries(Object.entries(e).filter(([k]) => !EVENT_FIELDS.has(k)));
    if (typeof e.action === 'string') {
      lastAction = i;
      const source = e.source ?? (e.action === 'message' && i === 0 ? 'user' : 'agent');
      // A message action's text is its `content`.
      return { ...e, id: i, source, args: e.content != null ? { content: e.content, ...rest } : rest };
    }
    return { ...e, id: i, source: e.source ?? 'environment', cause: lastAction ?? undefined, extras: rest };
  });
}

function looksLikeEvalRow(v: unknown): boolean {
  return isObject(v) && 'instance_id' in v && Array.isArray(v.history);
}

function evalDetect(input: LoadInput): Detection {
  const v = input.lines ? input.firstLineValue : input.doc?.value;
  if (!isObject(v)) return { accept: false, reason: input.lines ? 'first JSONL line is not a JSON object' : 'not an evaluation row object' };
  if (looksLikeResolverRow(v)) return { accept: true, confidence: 0.9 };
  if (!('instance_id' in v)) return { accept: false, reason: 'no "instance_id" field (nor a resolver row\'s "issue" and "history")' };
  if (looksLikeEvalRow(v)) return { accept: true, confidence: 0.9 };
  if ('test_result' in v || 'instruction' in v || 'history' in v) return { accept: true, confidence: 0.6 };
  return { accept: false, reason: 'no "history" list of events' };
}

/**
 * Reads one evaluation row into a rollout (throws RolloutLoadError for a row that does not conform).
 * The row is a whole document: a JSONL line, or the file (`ref.at` is `[]`).
 */
function evalRowRollout(input: LoadInput, ref: RowRef): Rollout {
  const { doc } = ref;
  if (looksLikeResolverRow(doc.value)) return resolverRowRollout(input, ref);
  const row = doc.validate(EvalRowSchema, EVAL_LABEL);
  const history = row.history;
  // V1 histories are lists of `kind`-tagged events; the first event decides, validation reports the rest.
  const v1 = isObject(history[0]) && typeof history[0].kind === 'string';
  const metrics = readResponseMetrics(row.metrics);
  const meta = row.metadata ?? {};
  let steps: Step[];
  let info: BuildInfo;
  if (v1) {
    const issues = new IssueCollector();
    const events = validateV1Events(doc, ['history'], issues, EVAL_LABEL);
    if (issues.issues.length) throw new RolloutLoadError(input.path, EVAL_LABEL, issues.issues);
    ({ steps, info } = buildV1Steps(events.map((ev, i) => ({ ev, range: doc.rangeOf(['history', i]), doc, at: ['history', i] })), metrics));
    if (info.warnings.length) (input.issues ??= []).push(...info.warnings);
  } else {
    const events = doc.validate(z.array(V0EventSchema), EVAL_LABEL, ['history']);
    ({ steps, info } = buildV0Steps(events, (i) => doc.rangeOf(['history', i]), metrics));
  }
  const llmConfig = isObject(meta.llm_config) ? meta.llm_config : isObject(meta.llm) ? meta.llm : null;
  const instanceId = String(row.instance_id);
  const outcome = unknownOutcome();
  const report = row.test_result && isObject(row.test_result.report) ? row.test_result.report : null;
  if (report && typeof report.resolved === 'boolean') {
    outcome.resolved = report.resolved;
    outcome.source = 'test_result.report.resolved';
  }
  if (row.error) {
    outcome.status = row.error;
    outcome.source ??= 'error';
  }
  const accCost = num(row.metrics?.accumulated_cost);
  if (accCost !== null) info.totalCostUsd = accCost;
  const extra: Record<string, unknown> = { historyFormat: v1 ? 'v1' : 'v0', instanceId };
  if (typeof row.attempt === 'number') extra.attempt = row.attempt;
  if (row.error) extra.error = row.error;
  if (str(meta.agent_class)) info.agentClass = str(meta.agent_class);
  for (const k of ['dataset', 'data_split', 'git_commit', 'max_iterations'] as const) if (meta[k] !== undefined && meta[k] !== null) extra[k] = meta[k];
  if (row.test_result && typeof row.test_result.git_patch === 'string') extra.gitPatchChars = row.test_result.git_patch.length;
  return {
    id: instanceId,
    format: 'openhands-eval',
    schemaVersion: null,
    source: rowSource(input, ref),
    task: { id: instanceId, instruction: row.instruction ?? info.firstUserMessage },
    agent: { name: 'OpenHands', version: info.version, model: (llmConfig && str(llmConfig.model)) ?? info.model },
    environment: { image: null, workdir: info.workdir },
    outcome,
    groupId: null,
    steps,
    metadata: metadataOf(info, history.length, extra),
  };
}

/**
 * Reads one resolver row (ResolverRowSchema): steps from its `history` (V0 events, the older flat
 * serialization included: flatV0Events); id and task id `<owner>/<repo>#<number>` (the issue it
 * resolves); `outcome.resolved` = `success` (the resolver's own verdict); `status` = `error`;
 * metadata: the issue's title and type, base commit, patch size, comment successes, the result
 * explanation and the accumulated cost.
 */
function resolverRowRollout(input: LoadInput, ref: RowRef): Rollout {
  const { doc } = ref;
  const row = doc.validate(ResolverRowSchema, EVAL_LABEL);
  const events = flatV0Events(doc.validate(z.array(V0EventSchema), EVAL_LABEL, ['history']));
  const { steps, info } = buildV0Steps(events, (i) => doc.rangeOf(['history', i]), readResponseMetrics(row.metrics));
  const issueId = `${row.issue.owner}/${row.issue.repo}#${row.issue.number}`;
  const outcome = unknownOutcome();
  if (typeof row.success === 'boolean') {
    outcome.resolved = row.success;
    outcome.source = 'success';
  }
  if (row.error) {
    outcome.status = row.error;
    outcome.source ??= 'error';
  }
  const accCost = num(row.metrics?.accumulated_cost);
  if (accCost !== null) info.totalCostUsd = accCost;
  const extra: Record<string, unknown> = { historyFormat: 'v0', layout: 'resolver output', issue: { owner: row.issue.owner, repo: row.issue.repo, number: row.issue.number, title: row.issue.title ?? null } };
  if (row.issue_type) extra.issueType = row.issue_type;
  if (row.base_commit) extra.baseCommit = row.base_commit;
  if (typeof row.git_patch === 'string') extra.gitPatchChars = row.git_patch.length;
  if (row.comment_success) extra.commentSuccess = row.comment_success;
  if (row.result_explanation) extra.resultExplanation = row.result_explanation;
  if (row.error) extra.error = row.error;
  return {
    id: issueId,
    format: 'openhands-eval',
    schemaVersion: null,
    source: rowSource(input, ref),
    task: { id: issueId, instruction: row.instruction ?? info.firstUserMessage },
    agent: { name: 'OpenHands', version: info.version, model: info.model },
    environment: { image: null, workdir: info.workdir },
    outcome,
    groupId: null,
    steps,
    metadata: metadataOf(info, row.history.length, extra),
  };
}

/**
 * OpenHands evaluation `output.jsonl`: one rollout per line (`instance_id`, `instruction`,
 * `history` of V0 or V1 events, `metadata`, `metrics`, `error`, `test_result`). A pretty-printed
 * single row (a JSON document) is read as one rollout without a line number.
 *
 * Bad lines (the bad-row policy of rows.ts `loadRows`): every line is read; if no line is valid a
 * RolloutLoadError lists the issues of every line. Otherwise the valid lines are loaded, the bad
 * lines' issues go to `input.issues` (`LoadedFile.issues`: `validate` fails on them) and each
 * rollout's `metadata.warnings` lists them too (formatted `file:line:col at /pointer: expected …,
 * found …`) for views of one rollout.
 * Ids: `instance_id`; a repeated id gets `#line<N>` appended.
 * outcome.resolved = `test_result.report.resolved` when present; outcome.status = `error`.
 * The resolver's `output.jsonl` (ResolverOutput rows: an `issue` instead of an `instance_id`) is
 * read by the same loader (resolverRowRollout).
 * @throws RolloutLoadError when no line is a valid row.
 */
export const openHandsEvalLoader: FormatLoader = {
  id: 'openhands-eval',
  label: EVAL_LABEL,
  detect: evalDetect,
  async load(input: LoadInput): Promise<Rollout[]> {
    if (!input.lines) {
      if (!input.doc) throw new RolloutLoadError(input.path, EVAL_LABEL, [{ file: input.path, line: 1, column: 1, pointer: null, expected: 'evaluation rows', found: 'nothing' }]);
      return [evalRowRollout(input, { doc: input.doc, at: [], line: null, index: 0 })];
    }
    return loadRows(input, EVAL_LABEL, (ref) => evalRowRollout(input, ref), { rowName: 'evaluation row' });
  },
};
