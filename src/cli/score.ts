/**
 * CLI commands over the scorer protocol:
 *
 *   trajectory-inspector score <files…> [--json] [--out FILE] [--cache DIR] [--options JSON]
 *                              [--timeout SEC] [--scorer -- <command…>]
 *   trajectory-inspector scorer-check [--options JSON] [--timeout SEC] [--json] -- <command…>
 *
 * `score` writes one JSON line per scored step, `{"rolloutId", "stepIndex", "value", "label",
 * "explanation", "scorer"}` (the shape `agreement --scores` reads), to stdout with --json or to
 * --out; otherwise a table. Without `--scorer` the built-in scorer (dist/scorers/builtin.js) runs.
 * Exit codes: 0 success / conformance passed, 1 a load or scorer failure / conformance failed,
 * 2 usage error.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadPath } from '../core/load';
import { stepNumber } from '../core/naming';
import { builtinScorerCommand, configuredCommand } from '../core/scoring/builtin';
import { ScoreCache } from '../core/scoring/cache';
import { checkScorer } from '../core/scoring/check';
import type { ScorerCommand } from '../core/scoring/client';
import { toScoreRollout } from '../core/scoring/input';
import { ScorerManager } from '../core/scoring/manager';
import { parseOptions, printable, printFailures, UsageError } from './common';
import { partFailures } from './showJson';

export const SCORE_USAGE = `  trajectory-inspector score <files…> [--json] [--out FILE] [--cache DIR] [--options JSON] [--timeout SEC] [--scorer -- <command…>]
                                                        score every step (built-in scorer unless --scorer); JSONL with --json/--out
  trajectory-inspector scorer-check [--options JSON] [--timeout SEC] [--json] (--builtin | -- <command…>)
                                                        run a scorer through the protocol and report what it gets wrong`;

declare const __VERSION__: string | undefined;
const VERSION = typeof __VERSION__ === 'string' ? __VERSION__ : 'dev';

/** Splits argv at the first `--`: options before, the scorer command after (null when there is no `--`). */
function splitCommand(argv: string[]): { before: string[]; command: string[] | null } {
  const i = argv.indexOf('--');
  return i < 0 ? { before: argv, command: null } : { before: argv.slice(0, i), command: argv.slice(i + 1) };
}

function parseJsonOption(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`--options must be a JSON object: ${(e as Error).message}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new UsageError('--options must be a JSON object');
  return v as Record<string, unknown>;
}

function parseTimeout(text: string | undefined, dflt: number): number {
  if (text === undefined) return dflt;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--timeout must be a positive number of seconds, got ${text}`);
  return n * 1000;
}

function builtin(): ScorerCommand {
  return builtinScorerCommand(__dirname);
}

/** `score`. */
export async function runScore(argv: string[]): Promise<number> {
  let files: string[];
  let command: ScorerCommand;
  let p: ReturnType<typeof parseOptions>;
  try {
    const split = splitCommand(argv);
    p = parseOptions(split.before, ['--out', '--cache', '--options', '--timeout'], ['--json', '--scorer', '--help']);
    if (p.flags.has('--help')) {
      process.stdout.write(`Usage:\n${SCORE_USAGE}\n`);
      return 0;
    }
    files = p.positional;
    if (!files.length) throw new UsageError('give the rollout files (or folders) to score');
    if (p.flags.has('--scorer') && !split.command?.length) throw new UsageError('--scorer needs the scorer command after --');
    command = (split.command && configuredCommand(split.command)) || builtin();
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`${e.message}\nUsage:\n${SCORE_USAGE}\n`);
      return 2;
    }
    throw e;
  }
  let options: Record<string, unknown> | undefined;
  let timeoutMs: number;
  try {
    options = parseJsonOption(p.options.get('--options'));
    timeoutMs = parseTimeout(p.options.get('--timeout'), 120_000);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    return 2;
  }
  const cacheDir = p.options.get('--cache');
  const manager = new ScorerManager({
    command,
    options,
    client: { name: 'trajectory-inspector-cli', version: VERSION },
    cache: cacheDir ? new ScoreCache(path.resolve(cacheDir)) : null,
    requestTimeoutMs: timeoutMs,
    // --timeout bounds the start too (model loading included), every retry alike; without it, 120 s.
    initTimeoutMs: p.options.has('--timeout') ? timeoutMs : 120_000,
    maxRestarts: 2,
    log: (l) => {
      if (process.env.TI_SCORER_LOG) process.stderr.write(`${l}\n`);
    },
  });
  manager.onNotice((m, level) => process.stderr.write(`${level}: ${m}\n`));
  let failed = false;
  const lines: string[] = [];
  try {
    for (const target of files) {
      let result;
      try {
        result = await loadPath(target);
      } catch (e) {
        process.stderr.write(`error: ${(e as Error).message}\n`);
        failed = true;
        continue;
      }
      const failures = [...result.failures, ...partFailures(result)];
      printFailures(failures);
      if (failures.length) failed = true;
      for (const f of result.files) {
        const rollouts = f.rollouts;
        if (!rollouts.length) continue;
        const run = await manager.score(rollouts.map(toScoreRollout));
        const byId = new Map(run.results.map((r) => [r.id, r]));
        for (const fl of run.failures) {
          failed = true;
          process.stderr.write(printable(`error: ${f.path}: scoring ${fl.ids.length} rollout(s) failed: ${fl.error.message}`) + '\n');
        }
        const scorer = run.scorer ? { name: run.scorer.name, version: run.scorer.version, model: run.scorer.model } : null;
        for (const r of rollouts) {
          const res = byId.get(r.id);
          if (!res) continue;
          if (!p.flags.has('--json') && !p.options.has('--out')) {
            process.stdout.write(printable(`${f.path}  rollout ${r.id}  (${scorer?.name} ${scorer?.version}${scorer?.model ? `, ${scorer.model}` : ''}${res.fromCache ? ', cached' : ''})`) + '\n');
          }
          const table = !p.flags.has('--json') && !p.options.has('--out');
          // Steps the scorer left unscored with a reason (past the model's context…): said, never blank.
          const unscored = res.steps.filter((s) => s.value === null && s.explanation);
          if (!res.steps.some((s) => s.value !== null)) {
            const why = unscored[0]?.explanation ?? (res.steps.length ? 'no agent step to score' : 'no steps');
            process.stderr.write(printable(`note: ${f.path}: rollout ${r.id} is not scorable: ${why.replace(/^not scored: /, '')}`) + '\n');
          } else if (unscored.length) {
            process.stderr.write(printable(`note: ${f.path}: rollout ${r.id}: ${unscored.length} of ${res.steps.length} steps ${unscored[0].explanation}`) + '\n');
          }
          for (const s of res.steps) {
            if (s.value === null) {
              if (table && s.explanation) process.stdout.write(printable(`  ${stepNumber(s.index).padStart(5)}     —  ${''.padEnd(8)} ${s.explanation}`) + '\n');
              continue;
            }
            lines.push(JSON.stringify({ rolloutId: r.id, stepIndex: s.index, value: s.value, label: s.label ?? null, explanation: s.explanation ?? null, scorer }));
            if (!p.flags.has('--json') && !p.options.has('--out')) {
              process.stdout.write(printable(`  ${stepNumber(s.index).padStart(5)}  ${s.value.toFixed(2)}  ${(s.label ?? '').padEnd(8)} ${s.explanation ?? ''}`) + '\n');
            }
          }
        }
      }
    }
  } finally {
    await manager.dispose();
  }
  const out = p.options.get('--out');
  if (out) {
    try {
      fs.writeFileSync(out, lines.map((l) => l + '\n').join(''));
      process.stderr.write(`wrote ${lines.length} step scores to ${out}\n`);
    } catch (e) {
      process.stderr.write(`error: cannot write ${out}: ${(e as Error).message}\n`);
      return 1;
    }
  }
  if (p.flags.has('--json')) process.stdout.write(lines.map((l) => l + '\n').join(''));
  return failed ? 1 : 0;
}

/** `scorer-check`. */
export async function runScorerCheck(argv: string[]): Promise<number> {
  const split = splitCommand(argv);
  let p: ReturnType<typeof parseOptions>;
  let options: Record<string, unknown> | undefined;
  let timeoutMs: number;
  try {
    p = parseOptions(split.before, ['--options', '--timeout'], ['--json', '--help', '--builtin']);
    if (p.flags.has('--help')) {
      process.stdout.write(`Usage:\n${SCORE_USAGE}\n`);
      return 0;
    }
    if (p.positional.length) throw new UsageError(`unexpected ${p.positional[0]} (the scorer command goes after --)`);
    if (!p.flags.has('--builtin') && !split.command?.length) throw new UsageError('give the scorer command after -- (or --builtin)');
    options = parseJsonOption(p.options.get('--options'));
    timeoutMs = parseTimeout(p.options.get('--timeout'), 60_000);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`${e.message}\nUsage:\n${SCORE_USAGE}\n`);
      return 2;
    }
    throw e;
  }
  const command = p.flags.has('--builtin') || !split.command ? builtin() : configuredCommand(split.command)!;
  const report = await checkScorer(command, {
    options,
    timeoutMs,
    initTimeoutMs: p.options.has('--timeout') ? timeoutMs : 120_000,
    log: (l) => {
      if (process.env.TI_SCORER_LOG || !l.startsWith('[scorer]')) process.stderr.write(`${l}\n`);
    },
  });
  if (p.flags.has('--json')) {
    process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  } else {
    process.stdout.write(printable(`scorer-check: ${report.command.join(' ')}`) + '\n');
    for (const c of report.checks) process.stdout.write(printable(`  ${c.ok ? (c.warning ? 'warn' : 'ok  ') : 'FAIL'}  ${c.name.padEnd(28)} ${c.detail}`) + '\n');
    const failedChecks = report.checks.filter((c) => !c.ok).length;
    process.stdout.write(report.passed ? `passed (${report.checks.length} checks)\n` : `FAILED: ${failedChecks} of ${report.checks.length} checks\n`);
  }
  return report.passed ? 0 : 1;
}
