/**
 * `trajectory-inspector` command line: the headless face of core/.
 *
 *   trajectory-inspector show <file-or-folder> [--json] [--max-inflated-mib N]
 *   trajectory-inspector validate <file-or-folder> [--warnings-ok] [--max-inflated-mib N]
 *   trajectory-inspector export --format trl|agentprocessbench|processbench [options] <files…>
 *   trajectory-inspector agreement [options] <files…>
 *   trajectory-inspector sessions [--cwd DIR] [--json] [--root DIR]…
 *   trajectory-inspector export-rollout <file> [--rollout K] [--steps A-B] --as html|md [--out FILE]
 *   trajectory-inspector branch <file> --from N --model M --url URL [options]
 *
 * `show` of one file of at least 64 MiB (an ATIF trajectory, a JSONL dump of one rollout per line)
 * writes its output as it reads the file, with a warning naming the checks a full load runs that a
 * read by parts does not (showStream.ts; `TRAJECTORY_INSPECTOR_STREAM_MIN_BYTES` sets the threshold).
 *
 * Exit codes: 0 success (validate: every rollout valid and no warning, or warnings with
 * `--warnings-ok`), 1 invalid input, load error (validate: or a warning),
 * 2 usage error.
 */
import * as path from 'node:path';
import { describeJob } from '../core/formats/harborJob';
import { isWarning } from '../core/errors';
import { loadPath, LoadResult, type LoadedFile } from '../core/load';
import { countedSteps, type Rollout } from '../core/model';
import { fileTitle } from '../core/naming';
import { printable, printFailures } from './common';
import { LABEL_USAGE, runAgreement, runExport } from './labels';
import { runScore, runScorerCheck, SCORE_USAGE } from './score';
import { fileWarnings, partFailures, writeShowJson } from './showJson';
import { REPLAY_USAGE, runReplay } from './replay';
import { BRANCH_USAGE, runBranchCommand } from './branch';
import { runSessions, SESSIONS_USAGE } from './sessions';
import { EXPORT_ROLLOUT_USAGE, runExportRollout } from './exportRollout';
import { rolloutHeadText, stepText } from './showText';
import { openStreamed, showStreamed, type Streamed } from './showStream';

const USAGE = `Usage:
  trajectory-inspector show <file-or-folder> [--json]   print the rollouts as steps (or one JSON document)
  trajectory-inspector validate <file-or-folder> [--warnings-ok]
                                                        check every rollout; exit 1 with located errors or
                                                        warnings (--warnings-ok: warnings are printed, exit 0)
    (show, validate) --max-inflated-mib N               most MiB decompressed from one archive (.eval),
                                                        all entries together (default 2048)
${SESSIONS_USAGE}
${EXPORT_ROLLOUT_USAGE}
${LABEL_USAGE}
${REPLAY_USAGE}
${BRANCH_USAGE}
${SCORE_USAGE}
  trajectory-inspector --version | --help`;

declare const __VERSION__: string | undefined;

function printRollout(r: Rollout, title: string): void {
  const counted = countedSteps(r);
  process.stdout.write(rolloutHeadText(r, title, counted, r.steps.length - counted));
  for (const s of r.steps) process.stdout.write(stepText(s));
}

/**
 * A Harbor job result: its stats, then each trial it names with what it says of it and whether the
 * trial's folder is here (read on its own when it is).
 */
function printJob(f: LoadedFile & { job: NonNullable<LoadedFile['job']> }): void {
  const job = f.job;
  process.stdout.write(printable(`Harbor job ${path.basename(path.dirname(f.path))}  [${f.format}]  id ${job.id ?? '—'}`) + '\n');
  for (const l of describeJob(job)) process.stdout.write(printable(`  ${l}`) + '\n');
  for (const t of job.trials) {
    const says = [
      t.rewards ? Object.entries(t.rewards).map(([k, v]) => `${k} ${v}`).join(', ') : 'no reward',
      t.exception,
      t.folder ? `folder ${path.relative(process.cwd(), t.folder) || t.folder}` : 'folder not here',
    ].filter(Boolean);
    process.stdout.write(printable(`  trial ${t.name}: ${says.join(' · ')}`) + '\n');
  }
}

/** Writes to stdout, waiting while a slow reader has not taken what was written (the output of `show --json` has no size limit). */
function stdoutSink(chunk: string): void | Promise<void> {
  // A reader that went away (`show --json … | head`): the rest is not written, and nothing waits for it.
  if (process.stdout.destroyed) return;
  if (process.stdout.write(chunk) || process.stdout.destroyed) return;
  return new Promise((resolve) => {
    const done = () => {
      process.stdout.off('drain', done);
      process.stdout.off('close', done);
      process.stdout.off('error', done);
      resolve();
    };
    process.stdout.once('drain', done);
    process.stdout.once('close', done);
    process.stdout.once('error', done);
  });
}

async function run(argv: string[]): Promise<number> {
  if (argv[0] === 'export') return runExport(argv.slice(1));
  if (argv[0] === 'agreement') return runAgreement(argv.slice(1));
  if (argv[0] === 'replay') return runReplay(argv.slice(1));
  if (argv[0] === 'branch') return runBranchCommand(argv.slice(1));
  if (argv[0] === 'score') return runScore(argv.slice(1));
  if (argv[0] === 'scorer-check') return runScorerCheck(argv.slice(1));
  if (argv[0] === 'sessions') return runSessions(argv.slice(1));
  if (argv[0] === 'export-rollout') return runExportRollout(argv.slice(1));
  // `--max-inflated-mib N` (or `=N`): the inflate budget of an archive, the one option with a value here.
  let maxInflatedBytes: number | undefined;
  const rest0: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a !== '--max-inflated-mib' && !a.startsWith('--max-inflated-mib=')) {
      rest0.push(a);
      continue;
    }
    const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
    const mib = Number(v);
    if (v === undefined || !/^\d+$/.test(v) || mib < 1) {
      process.stderr.write(`--max-inflated-mib takes a whole number of MiB of at least 1, not ${v === undefined ? 'nothing' : JSON.stringify(v)}\n`);
      return 2;
    }
    maxInflatedBytes = mib * 1024 * 1024;
  }
  argv = rest0;
  const args = argv.filter((a) => !a.startsWith('--'));
  const flags = new Set(argv.filter((a) => a.startsWith('--')));
  if (flags.has('--help') || argv.length === 0) {
    process.stdout.write(USAGE + '\n');
    return argv.length === 0 ? 2 : 0;
  }
  if (flags.has('--version')) {
    process.stdout.write((typeof __VERSION__ === 'string' ? __VERSION__ : 'dev') + '\n');
    return 0;
  }
  const [cmd, target, ...rest] = args;
  const known = cmd === 'show' ? ['--json'] : cmd === 'validate' ? ['--warnings-ok'] : [];
  const unknownFlag = [...flags].find((f) => !known.includes(f));
  if (!target || rest.length || unknownFlag || (cmd !== 'show' && cmd !== 'validate')) {
    process.stderr.write((unknownFlag ? `unknown option ${unknownFlag}\n` : '') + USAGE + '\n');
    return 2;
  }
  // A big ATIF or JSONL dump is shown as it is read (showStream.ts): memory follows the window written.
  if (cmd === 'show') {
    let streamed: Streamed | null;
    try {
      streamed = await openStreamed(target);
    } catch (e) {
      process.stderr.write(`error: ${(e as Error).message}\n`);
      return 1;
    }
    if (streamed) return showStreamed(streamed, flags.has('--json'), stdoutSink);
  }
  let result: LoadResult;
  try {
    result = await loadPath(target, undefined, { maxInflatedBytes });
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    return 1;
  }
  // Files that loaded with parts left out (bad JSONL rows) fail like files that did not load.
  const failures = [...result.failures, ...partFailures(result)];
  // Warnings (a missing linked file, a record shown raw) are said, and do not fail the command.
  const warnings = fileWarnings(result);
  for (const w of warnings) process.stderr.write(`warning: ${printable(w.message)}\n`);
  if (cmd === 'show') {
    if (flags.has('--json')) {
      await writeShowJson(result, stdoutSink);
    } else {
      // A job's summary heads its trials.
      const ordered = [...result.files.filter((f) => f.job), ...result.files.filter((f) => !f.job)];
      for (const f of ordered) {
        // A job result is its stats and the trials it names, not rollouts of steps.
        if (f.job) {
          printJob({ ...f, job: f.job });
          continue;
        }
        const tasks = new Set(f.rollouts.map((r) => r.task.id));
        const single = tasks.size === 1 ? [...tasks][0] : null;
        for (const r of f.rollouts) printRollout(r, f.rollouts.length === 1 ? fileTitle(f.path, single) : r.task.id ?? fileTitle(f.path, null));
      }
    }
    printFailures(failures);
    return failures.length ? 1 : 0;
  }
  // validate
  for (const f of result.files) {
    if (f.issues?.some((i) => !isWarning(i))) continue;
    const nWarn = f.issues?.filter(isWarning).length ?? 0;
    const steps = f.rollouts.reduce((n, r) => n + countedSteps(r), 0);
    const what = f.job
      ? `job result, ${f.job.trials.length} trial(s) named, ${f.job.trials.filter((t) => t.folder === null).length} without their folder here`
      : `${f.rollouts.length} rollout(s), ${steps} steps`;
    const head = nWarn ? `warning ${f.path}` : `ok ${f.path}`;
    process.stdout.write(`${head} (${f.format}${f.schemaVersion ? ` ${f.schemaVersion}` : ''}: ${what}${nWarn ? `, ${nWarn} warning${nWarn === 1 ? '' : 's'}` : ''})\n`);
  }
  if (result.skipped.length) {
    const names = result.skipped.slice(0, 5).map((p) => path.relative(process.cwd(), p) || p);
    process.stdout.write(`skipped ${result.skipped.length} file(s) that no format reads: ${names.join(', ')}${result.skipped.length > 5 ? ', …' : ''}\n`);
  }
  printFailures(failures);
  // A warning is something not shown (a trial result not joined, a continuation not read): validate
  // fails on it unless told warnings are fine.
  if (warnings.length && !flags.has('--warnings-ok')) {
    process.stderr.write(`${warnings.length} warning(s); exit 1 (pass --warnings-ok to accept warnings)\n`);
    return 1;
  }
  return failures.length ? 1 : 0;
}

// A closed pipe (`show … | head`) ends the output, not the process: the exit code still tells the result.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EPIPE') throw e;
});

run(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`internal error: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
    process.exitCode = 1;
  },
);
