/**
 * `trajectory-inspector replay <file> [--image IMG] [--to N] [--json] [options]`: re-runs a
 * rollout's commands in a fresh hardened container (core/replay) and prints each step's status and
 * the first divergence.
 *
 * Exit codes: 0 every replayed step matches, 2 a step diverged, 1 error (no engine, no image, bad
 * file, bad options: unlike the other commands, usage errors exit 1 here, because 2 means
 * divergence and CI jobs rely on it), 130 interrupted (SIGINT, Ctrl-C) and 143 terminated
 * (SIGTERM): the report says "interrupted at step N" (`--json`: `interrupted: {step, signal}`,
 * the steps replayed before it) and never counts the stopped step as a divergence.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import type Docker from 'dockerode';
import { loadPath } from '../core/load';
import { compileRules, DEFAULT_RULES, type NormalizationRule } from '../core/replay/normalize';
import { buildPlan, ReplayPlanError } from '../core/replay/plan';
import { connect, DEFAULT_LIMITS, sweepOrphans, type ReplayLimits } from '../core/replay/docker';
import { ReplaySession } from '../core/replay/session';
import { unifiedDiff, type StepComparison } from '../core/replay/compare';
import { stepNumber } from '../core/naming';
import { parseOptions, printable, UsageError } from './common';

/** Usage lines of the replay command (joined into the CLI's usage). */
export const REPLAY_USAGE = `  trajectory-inspector replay <file> [--image IMG] [--to N] [--json]
        [--workdir DIR] [--rollout K] [--step-timeout SEC] [--output-cap BYTES] [--memory MIB] [--cpus N]
        [--pids N] [--disk MIB] [--rules FILE.json] [--docker-host URL] [--copy-workspace DIR]
                                                        re-run the commands in a fresh container (no network) and
                                                        compare with the recording; exit 0 same, 2 diverged, 1 error;
                                                        --docker-host (or DOCKER_HOST): unix:///path or tcp://host:port,
                                                        TLS with DOCKER_TLS_VERIFY=1 and DOCKER_CERT_PATH`;

function statusWord(c: StepComparison): string {
  return c.status === 'same' ? 'same' : c.status === 'differs' ? 'DIFFERS' : 'not replayable';
}

/** Reads user rules from a JSON file: an array of {name, pattern, flags?, replacement}. */
function readRules(file: string): NormalizationRule[] {
  const data: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (!Array.isArray(data) || !data.every((r) => r && typeof r.name === 'string' && typeof r.pattern === 'string' && typeof r.replacement === 'string')) {
    throw new Error(`${file}: expected a JSON array of {"name", "pattern", "replacement", "flags"?} rules`);
  }
  const { errors } = compileRules(data);
  if (errors.length) throw new Error(`${file}: rule ${errors[0].name}: ${errors[0].message}`);
  return data as NormalizationRule[];
}

function num(v: string | undefined, name: string, min: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < min) throw new UsageError(`${name} needs a number ≥ ${min}`);
  return n;
}

/** Runs `replay`; resolves to the exit code. */
export async function runReplay(argv: string[]): Promise<number> {
  let opts;
  try {
    opts = parseOptions(argv, ['--image', '--to', '--workdir', '--rollout', '--step-timeout', '--output-cap', '--memory', '--cpus', '--pids', '--disk', '--rules', '--docker-host', '--copy-workspace'], ['--json']);
    if (opts.positional.length !== 1) throw new UsageError('replay takes one rollout file');
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\nUsage:\n${REPLAY_USAGE}\n`);
    return 1;
  }
  const json = opts.flags.has('--json');
  const o = opts.options;
  let session: ReplaySession | null = null;
  let docker: Docker | null = null;
  const sessionId = randomBytes(6).toString('hex');
  // What the interrupt report needs: the rollout step running now and the results so far.
  let current: number | null = null;
  const done: StepComparison[] = [];
  let report: ((interruptedAt: { step: number | null; signal: string } | null, results: StepComparison[]) => void) | null = null;
  let interrupted = false;
  const cleanup = async () => {
    await session?.dispose();
    // A container created while the session was still starting (not yet tracked) carries the session label.
    if (docker) await sweepOrphans(docker, { session: sessionId }).catch(() => undefined);
  };
  const onSignal = (sig: NodeJS.Signals) => {
    if (interrupted) return;
    interrupted = true;
    const at = { step: current, signal: sig };
    if (report) report(at, done);
    else if (json) process.stdout.write(JSON.stringify({ interrupted: at, steps: [], firstDivergence: null }, null, 2) + '\n');
    else process.stdout.write(`interrupted (${sig}) before the first step\n`);
    void cleanup().finally(() => process.exit(sig === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const limits: ReplayLimits = {
      stepTimeoutSec: num(o.get('--step-timeout'), '--step-timeout', 1) ?? DEFAULT_LIMITS.stepTimeoutSec,
      outputCapBytes: num(o.get('--output-cap'), '--output-cap', 1024) ?? DEFAULT_LIMITS.outputCapBytes,
      memoryMiB: num(o.get('--memory'), '--memory', 16) ?? DEFAULT_LIMITS.memoryMiB,
      cpus: num(o.get('--cpus'), '--cpus', 0.1) ?? DEFAULT_LIMITS.cpus,
      pids: num(o.get('--pids'), '--pids', 16) ?? DEFAULT_LIMITS.pids,
      diskMiB: num(o.get('--disk'), '--disk', 16) ?? DEFAULT_LIMITS.diskMiB,
    };
    const to = num(o.get('--to'), '--to', 1);
    const rules = o.has('--rules') ? [...DEFAULT_RULES, ...readRules(o.get('--rules')!)] : DEFAULT_RULES;
    const loaded = await loadPath(opts.positional[0]);
    const rollouts = loaded.files.flatMap((f) => f.rollouts);
    if (!rollouts.length) {
      const why = loaded.failures[0]?.error.message ?? 'no rollout found';
      throw new Error(`${opts.positional[0]}: ${why}`);
    }
    const k = num(o.get('--rollout'), '--rollout', 1) ?? 1;
    const rollout = rollouts[k - 1];
    if (!rollout) throw new UsageError(`--rollout ${k}: the file holds ${rollouts.length} rollout(s)`);
    const copy = o.get('--copy-workspace');
    if (copy !== undefined && !fs.statSync(copy, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`--copy-workspace ${copy}: not a folder`);
    const plan = buildPlan(rollout, { image: o.get('--image'), workdir: o.get('--workdir'), copyWorkspace: copy });
    docker = await connect({ dockerHost: o.get('--docker-host') });
    if (interrupted) return 130;
    await sweepOrphans(docker).catch(() => undefined);
    // --to N: rollout step N (1-based, as `show` prints it); the last plan step of that rollout step.
    let last = plan.steps.length - 1;
    if (to !== undefined) {
      last = plan.steps.reduce((acc, s, i) => (s.stepIndex <= to - 1 ? i : acc), -1);
      if (last < 0) throw new UsageError(`--to ${to}: no command at or before step ${to}`);
    }
    if (!json) {
      process.stdout.write(printable(`replay ${rollout.source.path} [${plan.mode} mode] in ${plan.image} (${plan.imageSource})`) + '\n');
      for (const n of plan.notes ?? []) process.stdout.write(printable(`  note: ${n}`) + '\n');
    }
    const print = (results: StepComparison[], first: StepComparison | null, interruptedAt: { step: number | null; signal: string } | null) => {
      if (json) {
        process.stdout.write(
          JSON.stringify(
            {
              file: rollout.source.path,
              rolloutId: rollout.id,
              image: plan.image,
              mode: plan.mode,
              notes: plan.notes ?? [],
              steps: results.map((r) => ({
                step: r.stepIndex + 1,
                kind: plan.steps[r.planIndex].kind ?? 'command',
                status: r.status,
                diffKind: r.diffKind,
                summary: r.summary,
                stateMayDiffer: r.stateMayDiffer,
                recorded: r.recorded,
                replayed: r.replayed ? { exitCode: r.replayed.exitCode, cwd: r.replayed.cwd, text: r.replayed.text } : null,
                ...(r.edit ? { edit: { applied: r.edit.applied, written: r.edit.written, files: r.edit.changes.map((c) => c.path) } } : {}),
              })),
              firstDivergence: first ? { step: first.stepIndex + 1, diffKind: first.diffKind, summary: first.summary } : null,
              ...(interruptedAt ? { interrupted: interruptedAt } : {}),
            },
            null,
            2,
          ) + '\n',
        );
      } else if (interruptedAt) {
        process.stdout.write(interruptedAt.step === null ? `interrupted (${interruptedAt.signal}) before the first step\n` : `interrupted at step ${interruptedAt.step} (${interruptedAt.signal}); ${results.length} step(s) replayed before it\n`);
      } else if (first) {
        process.stdout.write(printable(`first divergence: step ${first.stepIndex + 1}: ${first.summary}`) + '\n');
        process.stdout.write(unifiedDiff(first).split('\n').map(printable).join('\n') + '\n');
      } else {
        const n = results.filter((r) => r.status === 'same').length;
        process.stdout.write(`all ${n} replayed step(s) match the recording\n`);
      }
    };
    report = (at, results) => print(results, results.find((r) => r.status === 'differs') ?? null, at);
    session = new ReplaySession(plan, docker, {
      limits,
      rules,
      session: sessionId,
      onEvent: (e) => {
        if (interrupted) return;
        if (e.type === 'step-start') current = e.stepIndex + 1;
        if (e.type === 'step-end') {
          done.push(e.result);
          current = null;
        }
        if (!json && e.type === 'workspace') {
          process.stdout.write(printable(`  copied ${e.files} file(s), ${(e.bytes / 2 ** 20).toFixed(1)} MiB into ${e.dest}${e.skippedDirs.length ? ` (left out: ${e.skippedDirs.slice(0, 5).join(', ')}${e.skippedDirs.length > 5 ? ', …' : ''})` : ''}`) + '\n');
        }
        if (json || e.type !== 'step-end') return;
        const c = e.result;
        process.stdout.write(printable(`  ${stepNumber(c.stepIndex).padStart(5)} ${statusWord(c).padEnd(14)} ${c.summary}${c.stateMayDiffer ? ' (state may differ)' : ''}`) + '\n');
      },
    });
    await session.start();
    if (interrupted) return 130;
    const results = await session.runTo(last);
    if (interrupted) return 130;
    const first = results.find((r) => r.status === 'differs') ?? null;
    print(results, first, null);
    return first ? 2 : 0;
  } catch (e) {
    // The container went away under a step because of the interrupt: the handler has reported.
    if (interrupted) return 130;
    const msg = e instanceof ReplayPlanError || e instanceof UsageError ? e.message : (e as Error).message ?? String(e);
    process.stderr.write(`error: ${msg}\n`);
    return 1;
  } finally {
    await cleanup();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
