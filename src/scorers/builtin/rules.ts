/**
 * The built-in scorer's rules: a deterministic, CPU-only guess at how good each agent step of a
 * terminal agent's rollout is, from the signals the step itself carries. Pure (no I/O); the
 * process around it is ./main.ts. The rules are documented in docs/scoring.md (keep in step).
 *
 * Value = P(the step is good) in [0, 1], read as: start from a base (exit code 0: 0.75; a file edit
 * the tool reports done: 0.7; a tool call that returned output, or that the format says succeeded,
 * with no exit code: 0.65; a finish action: 0.6; no result to judge (no observation, an empty one):
 * 0.5, neutral), then every rule that fires either caps the value (a bad signal: the value becomes
 * at most the cap) or, for test progress, sets it. The lowest cap wins. After the pass, a file edit
 * whose next test run (before another edit) passes or fails fewer tests is raised to 0.8, and one
 * whose next test run fails more tests is capped at 0.3.
 * Label: `good` ≥ 0.6 > `neutral` ≥ 0.4 > `bad`. Steps that are not the agent's (user, system,
 * environment) are not scored (value null).
 *
 * Rules (id — fires when — effect):
 * - `tests-pass`     the output has a test summary with 0 failing and ≥ 1 passing → 0.9
 * - `tests-fewer`    failing tests fewer than at the previous test run of the rollout → 0.8
 * - `tests-more`     failing tests more than at the previous test run → cap 0.2
 * - `tests-same`     the same number (> 0) failing as at the previous test run → cap 0.35
 * - `tests-fail`     the first test run of the rollout has failures → cap 0.45
 * - `edit-verified`  a file edit whose next test run passes or fails fewer tests → 0.8 (after the pass)
 * - `edit-regressed` a file edit whose next test run fails more tests → cap 0.3 (after the pass)
 *   (when a test summary is found, `exit-code` and `error-text` do not fire: the runner's exit
 *   code and tracebacks report the failing tests, not a broken command)
 * - `timeout`        an exit code 124 or 137, or the output says the command timed out → cap 0.15
 * - `exit-code`      any other non-zero exit code → cap 0.2
 * - `tool-error`     the tool reported an error (Claude Code `is_error`, a failed tool call) and no
 *                    exit code says otherwise → cap 0.3
 * - `interrupted`    the call was interrupted before it finished (the user stopped it) → cap 0.35
 * - `denied`         the user denied the call (Cline "The user denied this operation") → cap 0.35
 * - `error-text`     the output has error text (Traceback, `XError:`, command not found, No such
 *                    file or directory, Permission denied, fatal:, Segmentation fault, panic:, an
 *                    `ERROR:` line, a rejected patch, the diagnostics an editor reports after an edit) → cap 0.3
 * - `harness-error`  the observation is the harness's own complaint about the response (Terminus
 *                    "Previous response had parsing errors", SWE-agent "Your output was not
 *                    formatted correctly", mini-swe-agent "EXACTLY ONE action") → cap 0.15
 * - `repeat-failed`  the same action as an earlier step that failed (exit code or error text) → cap 0.25
 * - `repeat`         the same action as an earlier step of the rollout → cap 0.45
 * - `no-op`          an agent step with no action, or only empty commands/keys → cap 0.4
 *                    (with neither action nor message: `empty`, cap 0.3)
 */
import type { ScoreRollout, ScoreStep, StepScore } from '../../core/scoring/protocol';

/** Version of the rules; part of the cache key (bump on every change of a value). */
export const RULES_VERSION = '1.4.0';

/** One rule: its id, what fires it and what it does (shown in docs and tests). */
export interface RuleInfo {
  id: string;
  when: string;
  effect: string;
}

/** The rules in the order they are checked (documentation; `scoreStep` is the implementation). */
export const RULES: readonly RuleInfo[] = [
  { id: 'tests-pass', when: 'a test summary with 0 failing and at least 1 passing', effect: 'value 0.9' },
  { id: 'tests-fewer', when: 'fewer failing tests than at the previous test run', effect: 'value 0.8' },
  { id: 'tests-more', when: 'more failing tests than at the previous test run', effect: 'cap 0.2' },
  { id: 'tests-same', when: 'as many (> 0) failing tests as at the previous test run', effect: 'cap 0.35' },
  { id: 'tests-fail', when: 'the first test run of the rollout has failures', effect: 'cap 0.45' },
  { id: 'edit-verified', when: 'a file edit whose next test run passes or fails fewer tests', effect: 'value 0.8' },
  { id: 'edit-regressed', when: 'a file edit whose next test run fails more tests', effect: 'cap 0.3' },
  { id: 'timeout', when: 'exit code 124 or 137, or the output says it timed out', effect: 'cap 0.15' },
  { id: 'exit-code', when: 'any other non-zero exit code', effect: 'cap 0.2' },
  { id: 'tool-error', when: 'the tool reported an error (and no non-zero exit code already says so)', effect: 'cap 0.3' },
  { id: 'interrupted', when: 'the call was interrupted before it finished', effect: 'cap 0.35' },
  { id: 'denied', when: 'the user denied the call', effect: 'cap 0.35' },
  { id: 'error-text', when: 'error text in the output (Traceback, XError:, command not found, …)', effect: 'cap 0.3' },
  { id: 'harness-error', when: "the observation is the harness's complaint that it could not parse the response", effect: 'cap 0.15' },
  { id: 'repeat-failed', when: 'the same action as an earlier step that failed', effect: 'cap 0.25' },
  { id: 'repeat', when: 'the same action as an earlier step', effect: 'cap 0.45' },
  { id: 'no-op', when: 'no action, or only empty commands / keys', effect: 'cap 0.4 (no message either: cap 0.3)' },
];

/** Base values and caps (see the module comment). */
export const VALUES = {
  baseExitZero: 0.75,
  baseUnknown: 0.5,
  baseFinish: 0.6,
  baseToolOk: 0.65,
  baseEditOk: 0.7,
  editVerified: 0.8,
  editRegressed: 0.3,
  denied: 0.35,
  testsPass: 0.9,
  testsFewer: 0.8,
  testsMore: 0.2,
  testsSame: 0.35,
  testsFail: 0.45,
  timeout: 0.15,
  exitCode: 0.2,
  errorText: 0.3,
  harnessError: 0.15,
  toolError: 0.3,
  interrupted: 0.35,
  repeatFailed: 0.25,
  repeat: 0.45,
  noOp: 0.4,
  empty: 0.3,
} as const;

/** Only the last this many characters of an output are searched (errors and test summaries sit at the end). */
const SCAN_TAIL = 20_000;

const TIMEOUT_RE = /\b(timed out|time(?:d)? ?out after|timeout expired|TimeoutExpired|command timed out|exceeded the time ?limit)\b/i;
const ERROR_RES: [RegExp, string][] = [
  [/Traceback \(most recent call last\)/, 'Traceback'],
  [/\b[A-Z][A-Za-z]*(?:Error|Exception):/, 'an exception'],
  [/command not found/, 'command not found'],
  [/No such file or directory/, 'No such file or directory'],
  [/Permission denied/, 'Permission denied'],
  [/^fatal: /m, 'fatal:'],
  [/^ERROR:(?: |$)/m, 'ERROR:'],
  [/^patch rejected: /m, 'a rejected patch'],
  [/^- \[[\w ]+ Error\] Line \d+: /m, 'new problems reported after the edit'],
  [/Segmentation fault/, 'Segmentation fault'],
  [/^panic: /m, 'panic:'],
  [/^(?:bash|sh|zsh): .*: (?:syntax error|unexpected)/m, 'shell syntax error'],
];

/**
 * The harness's own complaint that it could not read the agent's response (so no action ran), as
 * Terminus 2 (Harbor), SWE-agent (format_error_template) and mini-swe-agent (format_error) write it.
 */
/** The user's refusal of a call, as Cline records it (nothing ran). */
const DENIED_RE = /^The user denied this operation\b/m;

/** A file-editing tool's report that the edit was made (SWE-agent/OpenHands editor, Claude Code, Cline, Gemini CLI). */
const EDIT_DONE_RE = /\b(?:has been (?:edited|updated|created|written)|(?:File|file) created successfully|successfully (?:saved|wrote|written|overwrote|created|modified|edited|updated|applied)|Successfully (?:overwrote|wrote|created|modified|edited|updated|applied)|Success\. Updated)\b/;

const HARNESS_RES: [RegExp, string][] = [
  [/Previous response had parsing errors/, 'the harness could not parse the response'],
  [/Your output was not formatted correctly/, 'the harness could not parse the response'],
  [/Please always provide EXACTLY ONE action/i, 'the harness found no single action'],
];

/** Failing and passing test counts read from a test runner's summary; null when the output has none. */
export interface TestCounts {
  failed: number;
  passed: number;
}

/**
 * Reads the last test summary in `text`: pytest (`== 2 failed, 3 passed in 0.1s ==`, `5 passed`),
 * unittest (`Ran 4 tests` + `FAILED (failures=1, errors=1)` / `OK`), jest/vitest
 * (`Tests: 1 failed, 3 passed, 4 total`), go test (`--- FAIL:` lines, `ok`/`FAIL` package lines),
 * cargo (`test result: FAILED. 3 passed; 1 failed`), ExUnit and RSpec (`14 doctests, 65 tests,
 * 0 failures`, `5 examples, 1 failure`). Errors count as failures.
 */
export function parseTestCounts(text: string): TestCounts | null {
  const t = text.length > SCAN_TAIL ? text.slice(-SCAN_TAIL) : text;
  // cargo
  let m = [...t.matchAll(/test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed/g)].pop();
  if (m) return { passed: +m[1], failed: +m[2] };
  // jest / vitest
  m = [...t.matchAll(/^\s*Tests?:?\s+(.*\d+ (?:passed|failed).*)$/gm)].pop();
  if (m && /total|passed|failed/.test(m[1])) {
    const failed = /(\d+) failed/.exec(m[1]);
    const passed = /(\d+) passed/.exec(m[1]);
    if (failed || passed) return { failed: failed ? +failed[1] : 0, passed: passed ? +passed[1] : 0 };
  }
  // ExUnit / RSpec: "14 doctests, 65 tests, 2 failures", "5 examples, 0 failures"
  m = [...t.matchAll(/^\s*(?:(\d+) doctests?, )?(\d+) (?:tests?|examples?), (\d+) failures?\b/gm)].pop();
  if (m) {
    const total = +(m[1] ?? 0) + +m[2];
    return { failed: +m[3], passed: Math.max(0, total - +m[3]) };
  }
  // pytest summary line: "=== 1 failed, 2 passed, 1 error in 0.12s ===" or "2 passed in 0.01s"
  m = [...t.matchAll(/^(?:=+ )?((?:\d+ (?:failed|passed|errors?|skipped|xfailed|xpassed|warnings?|deselected)(?:, )?)+) in [\d.]+s/gm)].pop();
  if (m) {
    const get = (w: RegExp): number => {
      const x = w.exec(m![1]);
      return x ? +x[1] : 0;
    };
    return { failed: get(/(\d+) failed/) + get(/(\d+) errors?/), passed: get(/(\d+) passed/) };
  }
  // unittest
  const ran = [...t.matchAll(/^Ran (\d+) tests? in/gm)].pop();
  if (ran) {
    const total = +ran[1];
    const f = /^FAILED \(([^)]*)\)/m.exec(t.slice(ran.index));
    if (f) {
      const n = [...f[1].matchAll(/(?:failures|errors)=(\d+)/g)].reduce((a, x) => a + +x[1], 0);
      return { failed: n, passed: Math.max(0, total - n) };
    }
    if (/^OK\b/m.test(t.slice(ran.index))) return { failed: 0, passed: total };
  }
  // go test
  const goFails = (t.match(/^--- FAIL: /gm) ?? []).length;
  const goPass = (t.match(/^--- PASS: /gm) ?? []).length;
  if (goFails || goPass || /^(ok|FAIL)\s+\S+\s+[\d.]+s/m.test(t)) {
    const pkgFail = (t.match(/^FAIL\s+\S+\s+[\d.]+s/gm) ?? []).length;
    const pkgOk = (t.match(/^ok\s+\S+\s+[\d.]+s/gm) ?? []).length;
    return { failed: goFails || pkgFail, passed: goPass || pkgOk };
  }
  return null;
}

function actionKey(s: ScoreStep): string {
  return JSON.stringify(s.actions.filter((a) => a.kind !== 'finish').map((a) => [a.kind, a.command?.trim() ?? null, a.tool, a.arguments]));
}

function isEmptyAction(a: ScoreStep['actions'][number]): boolean {
  if (a.kind === 'finish') return false;
  if (a.kind === 'shell' || a.kind === 'keys') return !a.command || a.command.trim() === '' || a.command.trim() === '\\n';
  return false;
}

/** What the rules carry from one step to the next inside a rollout. */
export interface RolloutState {
  /** Failing tests at the latest test run; null before any. */
  lastFailing: number | null;
  /** Action keys of earlier agent steps → whether that step failed. */
  seen: Map<string, { index: number; failed: boolean }>;
  /** What the test run of the step just scored said against the one before; null when it ran none. */
  lastTests: 'pass' | 'fewer' | 'more' | 'same' | 'fail' | null;
}

/** A fresh state for scoring a rollout from its first step. */
export function newState(): RolloutState {
  return { lastFailing: null, seen: new Map(), lastTests: null };
}

const round = (v: number): number => Math.round(v * 1000) / 1000;

/** The label of a value: good ≥ 0.6 > neutral ≥ 0.4 > bad. */
export function labelOf(value: number): 'good' | 'neutral' | 'bad' {
  return value >= 0.6 ? 'good' : value >= 0.4 ? 'neutral' : 'bad';
}

/**
 * Scores one step given what came before it in the rollout (`state`, updated in place). Returns
 * the protocol's step score: value null for non-agent steps, else value, label and an explanation
 * naming every rule that fired.
 */
export function scoreStep(step: ScoreStep, state: RolloutState): StepScore {
  if (step.role !== 'agent') return { index: step.index, value: null, label: null, explanation: null };
  const reasons: string[] = [];
  let cap = 1;
  const capAt = (v: number, why: string): void => {
    cap = Math.min(cap, v);
    reasons.push(why);
  };

  const exitCodes = step.observations.map((o) => o.exitCode).filter((c): c is number => c !== null);
  const outputs = step.observations.map((o) => o.output ?? '').filter((o) => o !== '');
  const text = outputs.map((o) => (o.length > SCAN_TAIL ? o.slice(-SCAN_TAIL) : o)).join('\n');
  const hasFinish = step.actions.some((a) => a.kind === 'finish');

  // Without an exit code, a call that returned something (or that the format says succeeded) is
  // some evidence it worked; a step with no result at all stays neutral.
  const exitZero = exitCodes.length > 0 && exitCodes.every((c) => c === 0);
  // Keystrokes are not counted: a terminal's screen says nothing of whether they worked.
  const keysOnly = step.actions.length > 0 && step.actions.every((a) => a.kind === 'keys');
  const answered = !keysOnly && exitCodes.length === 0 && step.observations.length > 0 && (outputs.length > 0 || step.observations.every((o) => o.isError === false));
  const editDone = answered && step.actions.some((a) => a.kind === 'edit') && EDIT_DONE_RE.test(text);
  let base: number = hasFinish ? VALUES.baseFinish : exitZero ? VALUES.baseExitZero : editDone ? VALUES.baseEditOk : answered ? VALUES.baseToolOk : VALUES.baseUnknown;
  const baseWhy = hasFinish ? 'finish' : exitZero ? 'exit code 0' : editDone ? 'edit-ok: the tool reports the edit done' : answered ? 'tool-ok: the call returned without an error' : null;
  state.lastTests = null;

  let failed = false;
  const tests = text ? parseTestCounts(text) : null;
  if (tests) {
    const prev = state.lastFailing;
    if (tests.failed === 0 && tests.passed > 0) {
      base = VALUES.testsPass;
      reasons.push(`tests-pass: all ${tests.passed} tests pass`);
      state.lastTests = 'pass';
    } else if (prev !== null && tests.failed < prev) {
      base = VALUES.testsFewer;
      reasons.push(`tests-fewer: failing tests ${prev} → ${tests.failed}`);
      state.lastTests = 'fewer';
    } else if (prev !== null && tests.failed > prev) {
      capAt(VALUES.testsMore, `tests-more: failing tests ${prev} → ${tests.failed}`);
      failed = true;
      state.lastTests = 'more';
    } else if (prev !== null && tests.failed > 0) {
      capAt(VALUES.testsSame, `tests-same: still ${tests.failed} failing`);
      failed = true;
      state.lastTests = 'same';
    } else if (tests.failed > 0) {
      capAt(VALUES.testsFail, `tests-fail: ${tests.failed} failing, ${tests.passed} passing`);
      state.lastTests = 'fail';
    }
    state.lastFailing = tests.failed;
  } else {
    const timedOut = exitCodes.some((c) => c === 124 || c === 137) || TIMEOUT_RE.test(text);
    if (timedOut) {
      const code = exitCodes.find((c) => c === 124 || c === 137);
      capAt(VALUES.timeout, `timeout: ${code !== undefined ? `exit code ${code}` : 'the output says it timed out'}`);
      failed = true;
    }
    const bad = exitCodes.find((c) => c !== 0 && c !== 124 && c !== 137);
    if (bad !== undefined) {
      capAt(VALUES.exitCode, `exit-code: exit code ${bad}`);
      failed = true;
    }
    if (bad === undefined && step.observations.some((o) => o.isError === true)) {
      capAt(VALUES.toolError, 'tool-error: the tool reported an error');
      failed = true;
    }
    const err = ERROR_RES.find(([re]) => re.test(text));
    if (err && !HARNESS_RES.some(([re]) => re.test(text))) {
      capAt(VALUES.errorText, `error-text: ${err[1]} in the output`);
      failed = true;
    }
  }
  const harness = HARNESS_RES.find(([re]) => re.test(text));
  if (harness) {
    capAt(VALUES.harnessError, `harness-error: ${harness[1]}`);
    failed = true;
  }
  if (step.observations.some((o) => o.interrupted === true)) capAt(VALUES.interrupted, 'interrupted: the call was interrupted before it finished');
  if (DENIED_RE.test(text)) capAt(VALUES.denied, 'denied: the user denied the call');

  const real = step.actions.filter((a) => a.kind !== 'finish');
  if (real.length) {
    const key = actionKey(step);
    const earlier = state.seen.get(key);
    if (earlier && !real.every(isEmptyAction)) {
      if (earlier.failed) capAt(VALUES.repeatFailed, `repeat-failed: repeats #${earlier.index + 1}, which failed`);
      else capAt(VALUES.repeat, `repeat: repeats #${earlier.index + 1}`);
    }
    if (!earlier || failed) state.seen.set(key, { index: step.index, failed: failed || (earlier?.failed ?? false) });
  }
  if (!hasFinish && (real.length === 0 || real.every(isEmptyAction))) {
    const noMessage = !step.message?.trim() && !step.reasoning?.trim();
    if (noMessage && real.length === 0) capAt(VALUES.empty, 'empty: no action and no message');
    else capAt(VALUES.noOp, real.length ? 'no-op: only empty commands' : 'no-op: no action');
  }

  const value = round(Math.min(base, cap));
  if (reasons.length === 0 && baseWhy) reasons.push(baseWhy);
  if (reasons.length === 0) reasons.push(keysOnly ? 'no signal (keystrokes: a terminal screen without an exit code or error text)' : step.observations.length ? 'no signal (the call returned nothing to judge)' : 'no signal (no result recorded)');
  return { index: step.index, value, label: labelOf(value), explanation: reasons.join('; ') };
}

/**
 * Scores every step of a rollout, in order, then judges each file edit by the next test run after it
 * (before another edit): a run that passes or fails fewer tests raises the edits before it to
 * `editVerified` (unless a rule already called them bad); a run that fails more caps them at
 * `editRegressed`. The explanation of an edit so judged names the run's step.
 */
export function scoreRollout(r: ScoreRollout): StepScore[] {
  const state = newState();
  const out: StepScore[] = [];
  let pending: number[] = [];
  for (const [i, s] of r.steps.entries()) {
    const sc = scoreStep(s, state);
    out.push(sc);
    if (sc.value === null) continue;
    const t = state.lastTests;
    if (t && pending.length) {
      for (const k of pending) {
        const e = out[k];
        if (e.value === null) continue;
        if ((t === 'pass' || t === 'fewer') && e.label !== 'bad' && e.value < VALUES.editVerified) {
          out[k] = { ...e, value: VALUES.editVerified, label: labelOf(VALUES.editVerified), explanation: `edit-verified: the tests at #${s.index + 1} ${t === 'pass' ? 'pass' : 'fail less'}; ${e.explanation}` };
        } else if (t === 'more' && e.value > VALUES.editRegressed) {
          out[k] = { ...e, value: VALUES.editRegressed, label: labelOf(VALUES.editRegressed), explanation: `edit-regressed: more tests fail at #${s.index + 1}; ${e.explanation}` };
        }
      }
      pending = [];
    }
    if (s.actions.some((a) => a.kind === 'edit')) pending.push(i);
  }
  return out;
}
