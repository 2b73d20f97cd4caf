/**
 * Terminal-Bench 1.x (`tb run`) output, what its two loaders share: the results schemas and the
 * rollout of one TrialResults. The loaders: a trial folder's `results.json` (format id `tb1-trial`,
 * tb1Trial.ts) and a run folder's `results.json` (format id `tb1-run`, tb1Run.ts); commands.txt and
 * the cast are read by tb1Commands.ts, `agent-logs/` by tb1AgentLogs.ts.
 *
 * Source of the format (upstream laude-institute/terminal-bench was not consulted; verbatim copies):
 * `Ogak-AI/parsewave-contributor:terminal_bench/harness/models.py` (TrialResults, BenchmarkResults,
 * RunMetadata), `finyorko/longcli-bench:terminal_bench/terminal/tmux_session.py` (`send_keys` appends
 * `repr(keys)` to `commands.txt` before `_prepare_keys`; blocking keys lose their trailing Enter and
 * get `; tmux wait -S done` + `Enter`; `start` types `asciinema rec --stdin /logs/<session>.cast` and
 * `clear`, `stop` sends `C-d`) and `handlers/trial_handler.py` (trial layout). Real output:
 * laude-institute/terminal-bench-leaderboard. See docs/reference/formats.md §2.
 *
 * Trial folder `<run>/<task_id>/<trial_name>/`: `results.json` (TrialResults), `commands.txt`,
 * `sessions/agent.cast` + `tests.cast` (asciicast v2 with `i` events), `panes/*.txt`, optional
 * `agent-logs/`. Run folder: `results.json` (BenchmarkResults `{id, results: [TrialResults],
 * pass_at_k, n_resolved, n_unresolved, accuracy, …}`), `run_metadata.json`, `tb.lock`.
 *
 * Mapping (one rollout per TrialResults):
 * - `task` = `task_id` / `instruction`; `agent.name`/`model` = `agent_name`/`model_name` of the run's
 *   `run_metadata.json` (two folders above a trial, beside a run `results.json`), the model falling
 *   back to `model` of the first `agent-logs` `debug.json` (the litellm call log); version unknown.
 * - `outcome.resolved` = `is_resolved`; `status` = `failure_mode`; `reward` = null (TB1 has no scalar
 *   reward); `rewards` = one entry per `parser_results` test, 1 for "passed" and 0 for "failed" (other
 *   statuses left out; all kept verbatim in `metadata.parserResults`), null without parser results.
 * - `id` = `id` (or `uuid`, older harnesses), else `<path>#<index>`; `groupId` = `task_id` (the
 *   attempts `k-of-n` at one task share a prompt).
 * - Steps: one per line of `commands.txt` (a Python `repr` of the `send_keys` argument, a list of
 *   strings or one string; parsed with a small Python-literal parser): one `keystrokes` action whose
 *   `command` is the keys joined (literal keys as typed, an Enter key (`Enter`, `C-m`, `KPEnter`,
 *   `C-j`, `^M`, `^J`) as `\n`, other tmux key names such as `C-d` written by name) and whose
 *   `arguments.keys` holds the keys as recorded. `file` = commands.txt, `range` = that line, `sourceId`
 *   = its 1-based line number. Role `system` for the harness's own keys (the `asciinema rec` line,
 *   the `clear` right after it, and every line sent after the tests session's `asciinema rec`, i.e.
 *   the test run and the `C-d`s that stop the recordings); `agent` for the rest.
 * - Recording: `recording` = `sessions/agent.cast`. Each step of the agent session is matched, in
 *   order, to the cast's input: the typed text of its keys (with and without the harness's blocking
 *   suffix `; tmux wait -S done`, `\n` and `\r` treated alike) is searched in the concatenated `i`
 *   data from where the previous match ended. A matched step gets `castTime` = time of the `i` event
 *   where its text starts and one observation with the `o` output (ANSI kept) from that event up to
 *   the next matched step (`exitCode` null: TB1 records none); `durationSec` = until the next matched
 *   step (the last: until the last event). The agent session's `asciinema rec` step gets castTime 0
 *   and the output before the first match (the first prompt). Unmatched steps (keys with no known
 *   bytes like `Up`, lines of the tests session, a cast that lacks them) have castTime null and no
 *   observation. `metadata.castMatch` counts them. A cast with bad lines is read leniently (issues go
 *   to the load's issues). Without `commands.txt`, the steps are the recording's input lines, cut as
 *   for a `.cast` file (harness input included; `metadata.stepsFrom` = the cast; `file` = the cast).
 * - `agent-logs/`: `episode-N/response.json` (Terminus 1: `state_analysis`, `explanation`,
 *   `commands[].keystrokes`), `episode-N/response.txt` (Terminus 2: JSON `analysis`, `plan`,
 *   `commands[].keystrokes`), or one `response.json` (naive agents: `commands[]` strings,
 *   `explanation`). Each response is attached to the first agent step whose command equals (trailing
 *   line breaks ignored) one of the response's commands, searching forward: `message` = `explanation`
 *   (else `plan`), `reasoning` = `state_analysis` (else `analysis`). When nothing matches and there is
 *   a single response whose command count equals the number of agent steps, it goes to the first
 *   agent step (`metadata.agentLogs.matchedBy` = "position"; agents may rewrite commands, e.g. into
 *   `echo <base64> | base64 -d`). Unmatched responses are named in `metadata.agentLogs.unmatched`.
 * - `metadata`: trial name, failure mode, parser results, token totals, timings (`*_at`, ISO as
 *   recorded), `recording_path` as recorded, and the paths of `commands.txt`, `sessions/tests.cast`,
 *   `panes/*.txt`, `agent-logs/`, `run_metadata.json` when present.
 * - Run level: one rollout per `results[i]` (source range = that object); steps come from the trial
 *   folder `<run>/<task_id>/<trial_name>/` (or the folder named by `recording_path`) when it exists,
 *   else the rollout has no steps, only its outcome. A trial folder that cannot be read (bad
 *   commands.txt) leaves that rollout without steps and its issues in the load's issues. Casts are
 *   parsed up to `RUN_CAST_BUDGET_CHARS` per run file; later trials get steps without cast times.
 *   Folder scans (`findRolloutFiles`) list the run-level `results.json` and skip the trials'
 *   `results.json` under it, so each trial is listed once.
 *
 * This module never imports `vscode`.
 */
import * as path from 'node:path';
import { z } from 'zod';
import { RolloutLoadError, type LocatedIssue } from '../errors';
import { JsonDoc } from '../json';
import { makeStep, type Observation, type Outcome, type Rollout, type SourceRange, type Step } from '../model';
import { castSteps, parseAsciicastPositioned, type PositionedEvent } from './asciicast';
import { attachAgentLogs, readAgentLogs } from './tb1AgentLogs';
import { classify, keysText, matchToCast, parseCommandsTxt } from './tb1Commands';
import type { FileAccess, LoadInput } from './types';
import { isObject, str } from './util';

const Iso = z.string().nullable().optional();

/** TrialResults (`terminal_bench/harness/models.py`); fields read are typed, others kept. */
export const TrialResults = z.looseObject({
  id: z.string().nullable().optional(),
  uuid: z.string().nullable().optional(),
  trial_name: z.string(),
  task_id: z.string(),
  instruction: z.string(),
  is_resolved: z.boolean().nullable().optional(),
  failure_mode: z.string().nullable().optional(),
  parser_results: z.record(z.string(), z.string()).nullable().optional(),
  recording_path: z.string().nullable().optional(),
  total_input_tokens: z.number().nullable().optional(),
  total_output_tokens: z.number().nullable().optional(),
  trial_started_at: Iso,
  trial_ended_at: Iso,
  agent_started_at: Iso,
  agent_ended_at: Iso,
  test_started_at: Iso,
  test_ended_at: Iso,
});
/** A validated TrialResults. */
export type TrialResults = z.infer<typeof TrialResults>;

/** BenchmarkResults (run-level `results.json`). */
export const BenchmarkResults = z.looseObject({
  id: z.string().nullable().optional(),
  results: z.array(TrialResults),
  pass_at_k: z.record(z.string(), z.number().nullable()).nullable().optional(),
  n_resolved: z.number().nullable().optional(),
  n_unresolved: z.number().nullable().optional(),
  accuracy: z.number().nullable().optional(),
});
/** A validated BenchmarkResults. */
export type BenchmarkResults = z.infer<typeof BenchmarkResults>;
// ---------------------------------------------------------------------------------------------
// Trials
// ---------------------------------------------------------------------------------------------

/** Reads a sibling JSON file leniently: the value, or null (absent / not JSON, with an issue). */
async function readJson(p: string, files: FileAccess, issues: LocatedIssue[]): Promise<unknown> {
  const text = await files.readText(p);
  if (text === null) return null;
  try {
    return JsonDoc.parse(p, text).value;
  } catch (e) {
    if (e instanceof RolloutLoadError) issues.push(...e.issues);
    return null;
  }
}

/** Run information shared by the trials of one run. */
interface RunInfo {
  metadataPath: string | null;
  agentName: string | null;
  model: string | null;
  metadata: Record<string, unknown>;
}

/** The run information in `<runDir>/run_metadata.json` (empty when absent or not an object; parse issues go to `issues`). */
export async function readRunMetadata(runDir: string, files: FileAccess, issues: LocatedIssue[]): Promise<RunInfo> {
  const p = path.join(runDir, 'run_metadata.json');
  const v = await readJson(p, files, issues);
  if (!isObject(v)) return { metadataPath: null, agentName: null, model: null, metadata: {} };
  const metadata: Record<string, unknown> = { runMetadata: p };
  for (const [k, key] of [
    ['run_id', 'runId'],
    ['dataset_name', 'datasetName'],
    ['dataset_version', 'datasetVersion'],
  ] as const) {
    if (str(v[k]) !== null) metadata[key] = v[k];
  }
  return { metadataPath: p, agentName: str(v.agent_name), model: str(v.model_name), metadata };
}

/**
 * Most characters of `agent.cast` text one run-level load parses (all trials together). Casts of
 * installed agents reach several MB each (OpenHands: median 2.5 MB), and a run holds hundreds of
 * trials; past this budget a trial's steps come from commands.txt without cast times and outputs
 * (`metadata.castMatch` says so; the trial folder opened alone reads its cast).
 */
export const RUN_CAST_BUDGET_CHARS = 64 * 1024 * 1024;

/** Steps and trial-folder facts of one trial folder. Throws RolloutLoadError on a malformed commands.txt. */
async function trialFolder(
  trialDir: string,
  files: FileAccess,
  issues: LocatedIssue[],
  castBudget: { left: number } | null,
  wantModel: boolean,
): Promise<{ steps: Step[]; recording: string | null; metadata: Record<string, unknown>; model: string | null }> {
  const metadata: Record<string, unknown> = {};
  const commandsPath = path.join(trialDir, 'commands.txt');
  const commandsText = await files.readText(commandsPath);
  const castPath = path.join(trialDir, 'sessions', 'agent.cast');
  const castText = await files.readText(castPath);
  if ((await files.list(path.join(trialDir, 'sessions'))).includes('tests.cast')) metadata.testsRecording = path.join(trialDir, 'sessions', 'tests.cast');
  const panesDir = path.join(trialDir, 'panes');
  const panes = (await files.list(panesDir)).filter((n) => n.endsWith('.txt')).sort();
  if (panes.length) metadata.panes = Object.fromEntries(panes.map((n) => [n.replace(/\.txt$/, ''), path.join(panesDir, n)]));

  let events: PositionedEvent[] | null = null;
  let castSkipped = false;
  if (castText !== null && castBudget && castText.length > castBudget.left) {
    castSkipped = true;
  } else if (castText !== null) {
    if (castBudget) castBudget.left -= castText.length;
    try {
      const cast = parseAsciicastPositioned(castText, { file: castPath, lenient: true });
      events = cast.events;
      issues.push(...cast.issues);
    } catch (e) {
      if (!(e instanceof RolloutLoadError)) throw e;
      issues.push(...e.issues);
    }
  }

  const steps: Step[] = [];
  if (commandsText !== null) {
    metadata.commandsFile = commandsPath;
    const cmds = parseCommandsTxt(commandsPath, commandsText);
    const items = classify(cmds, 'agent');
    const matches = events ? matchToCast(items, events) : items.map(() => null);
    // Step boundaries in the cast: the recording's start (the `asciinema rec` step) and each match.
    const bounds: { item: number; event: number; time: number }[] = [];
    items.forEach((it, k) => {
      if (events && events.length && it.startsRecording) bounds.push({ item: k, event: 0, time: 0 });
      const m = matches[k];
      if (events && m) bounds.push({ item: k, event: m.event, time: events[m.event].time });
    });
    const byItem = new Map<number, { output: string; time: number; duration: number }>();
    if (events) {
      const last = events.length ? events[events.length - 1].time : 0;
      bounds.forEach((b, j) => {
        const to = j + 1 < bounds.length ? bounds[j + 1].event : events!.length;
        let output = '';
        for (let e = b.event; e < to; e++) if (events![e].code === 'o') output += events![e].data;
        const next = j + 1 < bounds.length ? bounds[j + 1].time : last;
        byItem.set(b.item, { output, time: b.time, duration: Math.max(0, Math.round((next - b.time) * 1e6) / 1e6) });
      });
    }
    items.forEach((it, k) => {
      const cast = byItem.get(k);
      const observations: Observation[] = cast ? [{ callId: null, output: cast.output, exitCode: null, truncated: false }] : [];
      steps.push(
        makeStep(k, it.role, {
          sourceId: it.cmd.line,
          actions: [{ kind: 'keystrokes', command: keysText(it.cmd.keys), tool: null, arguments: { keys: it.cmd.isList ? it.cmd.keys : it.cmd.keys[0] }, callId: null }],
          observations,
          castTime: cast ? cast.time : null,
          durationSec: cast ? cast.duration : null,
          range: it.cmd.range,
          file: commandsPath,
        }),
      );
    });
    metadata.castMatch = castSkipped
      ? { skipped: `the run's casts exceed ${RUN_CAST_BUDGET_CHARS / 1024 / 1024} MiB; open the trial folder for cast times and outputs` }
      : { agentSessionCommands: items.filter((it) => it.matchable).length, matched: matches.filter((m) => m !== null).length };

    const logs = await readAgentLogs(trialDir, files, wantModel);
    if (logs) {
      const agentSteps = steps
        .map((s, k) => ({ step: s, text: s.actions[0]?.command ?? '', role: items[k].role }))
        .filter((s) => s.role === 'agent');
      metadata.agentLogs = { dir: path.join(trialDir, 'agent-logs'), ...attachAgentLogs(logs.records, agentSteps) };
      return { steps, recording: castText !== null ? castPath : null, metadata, model: logs.model };
    }
  } else {
    if (events) {
      // No commands.txt: the recording's own input lines are the steps, as for a `.cast` file.
      for (const s of castSteps(events).steps) steps.push({ ...s, file: castPath });
      metadata.stepsFrom = castPath;
    }
    if (await files.isDirectory(path.join(trialDir, 'agent-logs'))) metadata.agentLogs = { dir: path.join(trialDir, 'agent-logs') };
  }
  return { steps, recording: castText !== null ? castPath : null, metadata, model: null };
}

function outcomeOf(tr: TrialResults, where: string): Outcome {
  let rewards: Record<string, number> | null = null;
  if (tr.parser_results) {
    rewards = {};
    for (const [name, status] of Object.entries(tr.parser_results)) {
      if (status === 'passed') rewards[name] = 1;
      else if (status === 'failed') rewards[name] = 0;
    }
  }
  const known = tr.is_resolved !== undefined || tr.failure_mode !== undefined || tr.parser_results !== undefined;
  return {
    reward: null,
    rewards,
    resolved: tr.is_resolved ?? null,
    status: tr.failure_mode ?? null,
    source: known ? `${where} is_resolved / failure_mode / parser_results` : null,
  };
}

/** Builds the rollout of one TrialResults. */
export async function trialRollout(
  tr: TrialResults,
  opts: {
    format: 'tb1-trial' | 'tb1-run';
    path: string;
    index: number;
    range: SourceRange | null;
    trialDir: string | null;
    run: RunInfo;
    runLevel?: Record<string, unknown>;
    castBudget?: { left: number };
    files: FileAccess;
    issues: LocatedIssue[];
  },
): Promise<Rollout> {
  const metadata: Record<string, unknown> = { trialName: tr.trial_name };
  if (tr.failure_mode !== undefined) metadata.failureMode = tr.failure_mode;
  if (tr.parser_results !== undefined) metadata.parserResults = tr.parser_results;
  if (tr.total_input_tokens !== undefined) metadata.totalInputTokens = tr.total_input_tokens;
  if (tr.total_output_tokens !== undefined) metadata.totalOutputTokens = tr.total_output_tokens;
  if (tr.recording_path) metadata.recordingPath = tr.recording_path;
  const timings: Record<string, string | null> = {};
  for (const k of ['trial_started_at', 'trial_ended_at', 'agent_started_at', 'agent_ended_at', 'test_started_at', 'test_ended_at'] as const) {
    if (tr[k] !== undefined) timings[k] = tr[k] ?? null;
  }
  if (Object.keys(timings).length) metadata.timings = timings;
  Object.assign(metadata, opts.run.metadata);
  if (opts.runLevel) metadata.run = opts.runLevel;

  let steps: Step[] = [];
  let recording: string | null = null;
  let model: string | null = null;
  if (opts.trialDir) {
    metadata.trialDir = opts.trialDir;
    try {
      const t = await trialFolder(opts.trialDir, opts.files, opts.issues, opts.castBudget ?? null, opts.run.model === null);
      steps = t.steps;
      recording = t.recording;
      model = t.model;
      Object.assign(metadata, t.metadata);
    } catch (e) {
      // A run collection keeps the trial's outcome when its folder cannot be read.
      if (opts.format !== 'tb1-run' || !(e instanceof RolloutLoadError)) throw e;
      opts.issues.push(...e.issues);
      metadata.stepsError = e.message;
    }
  }
  const id = tr.id ?? tr.uuid ?? `${opts.path}#${opts.index}`;
  return {
    id,
    format: opts.format,
    schemaVersion: null,
    source: { path: opts.path, range: opts.range, line: null },
    task: { id: tr.task_id, instruction: tr.instruction },
    agent: { name: opts.run.agentName, version: null, model: opts.run.model ?? model },
    environment: { image: null, workdir: null },
    outcome: outcomeOf(tr, path.basename(opts.path)),
    // Per-test rewards are read from the parser's "passed" / "failed" (1 / 0), not recorded as numbers.
    ...(tr.parser_results && Object.keys(tr.parser_results).length ? { derived: ['outcome.rewards'] } : {}),
    groupId: tr.task_id,
    steps,
    metadata,
    recording: recording ? { path: recording, kind: 'asciicast' } : null,
  };
}

/** The input's JSON document; throws RolloutLoadError (format `label`) for JSON Lines. */
export function needDoc(input: LoadInput, label: string): JsonDoc {
  if (!input.doc) {
    throw new RolloutLoadError(input.path, label, [{ file: input.path, line: 1, column: 1, pointer: null, expected: 'one JSON object', found: 'JSON Lines' }]);
  }
  return input.doc;
}

/** True for an object with the TrialResults fields the trial loader detects by. */
export function looksLikeTrial(v: unknown): v is Record<string, unknown> {
  return (
    isObject(v) &&
    typeof v.trial_name === 'string' &&
    typeof v.task_id === 'string' &&
    'instruction' in v &&
    ('is_resolved' in v || 'failure_mode' in v || 'parser_results' in v)
  );
}
