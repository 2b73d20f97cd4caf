/**
 * Replay executor overhead: the time one trivial step (`echo`) takes in each mode (exec, shell,
 * tmux) against plain `docker exec` of the same command on the same running container (the docker
 * CLI, as mini-swe-agent and Harbor run it, and one bare dockerode exec), measured in one
 * interleaved run: each repetition runs every way once, in a rotated order; medians and ratios.
 * Target: the persistent shell's per-step time at least 5× lower than `docker exec` per command. Also the snapshot (docker commit)
 * and restore (container from the snapshot + shell restart) costs that Step back pays.
 * Needs a Docker engine (DOCKER_HOST or /var/run/docker.sock) and the host's bash/tmux/busybox
 * (the test image is built offline like the integration tests').
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { connect, ReplayContainer, sweepOrphans } from '../src/core/replay/docker';
import { ExecExecutor, ShellExecutor, TmuxExecutor } from '../src/core/replay/executors';
import type { ReplayPlan, ReplayStep } from '../src/core/replay/plan';
import { fmt, median, REPO_ROOT, timeRuns, writeSection } from './lib';

const IMAGE = `ti-replay-bench:p${process.pid}`;
const RUNS = Number(process.env.BENCH_RUNS) || 30;

function step(input: string): ReplayStep {
  return { stepIndex: 0, input, waitSec: null, recorded: { output: '', exitCode: 0, cwd: null, truncated: false }, replayable: true, reason: null };
}

(async () => {
  const docker = await connect({});
  execFileSync('bash', [path.join(REPO_ROOT, 'test', 'integration', 'replay', 'image.sh'), IMAGE, `trajectory-inspector.bench=${process.pid}`], { stdio: ['ignore', 'ignore', 'inherit'] });
  const limits = { memoryMiB: 512, cpus: 1, pids: 256, stepTimeoutSec: 60, outputCapBytes: 1 << 20, diskMiB: 4096 };
  const plan: ReplayPlan = {
    rolloutId: 'bench', sourcePath: 'bench', format: 'mini-swe-agent', image: IMAGE, imageSource: 'option', mode: 'shell', workdir: '/tmp',
    terminal: { cols: 160, rows: 40 }, truncation: { kind: 'none', limit: Infinity, head: 0, tail: 0 }, ttyOutput: false, steps: [],
  };
  const c = await ReplayContainer.start(docker, IMAGE, { workdir: '/tmp', limits, session: `bench${process.pid}` });
  try {
    let i = 0;
    // Baselines: the same command through plain `docker exec` on the running container — the docker
    // CLI (what mini-swe-agent and Harbor run) and one dockerode exec without an executor around it.
    const viaCli = async () => {
      const r = spawnSync('docker', ['exec', '-w', '/tmp', c.id, 'bash', '-lc', `echo step-${i++}`], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`docker exec failed: ${r.stderr}`);
    };
    const viaRaw = async () => {
      const r = await c.exec(['bash', '-lc', `echo step-${i++}`], { workdir: '/tmp' });
      if (r.exitCode !== 0) throw new Error('raw exec failed');
    };
    const exec = new ExecExecutor(c, { ...plan, mode: 'exec' });
    await exec.start();
    const shell = new ShellExecutor(c, plan);
    await shell.start();
    const tmux = new TmuxExecutor(c, { ...plan, mode: 'tmux' });
    await tmux.start();
    const modes: Array<{ name: string; run: () => Promise<void>; times: number[] }> = [
      { name: '`docker exec … bash -lc` (CLI)', run: viaCli, times: [] },
      { name: 'dockerode exec (no executor)', run: viaRaw, times: [] },
      { name: 'exec mode (mini-swe-agent, Codex, Gemini)', run: async () => void (await exec.run(step(`echo step-${i++}`))), times: [] },
      { name: 'shell mode (persistent bash, nonce markers)', run: async () => void (await shell.run(step(`echo step-${i++}`))), times: [] },
      { name: 'tmux mode (paste buffer, idle and stable 0.2 s, capture-pane)', run: async () => void (await tmux.run(step(`echo step-${i++}\n`))), times: [] },
    ];
    for (const m of modes) await m.run(); // warm-up
    // One interleaved run: every repetition runs each way once, the order rotated per repetition,
    // so load on this shared machine falls on all of them alike.
    for (let r = 0; r < RUNS; r++) {
      for (let k = 0; k < modes.length; k++) {
        const m = modes[(k + r) % modes.length];
        const t0 = process.hrtime.bigint();
        await m.run();
        m.times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }
    await tmux.close();
    await shell.close();

    // Snapshot (docker commit of a container with a 1 MiB change) and restore (fresh container + shell).
    const shell2 = new ShellExecutor(c, plan);
    await shell2.start();
    await shell2.run(step('head -c 1048576 /dev/zero > /tmp/blob'));
    let n = 0;
    const snaps: string[] = [];
    const snapshot = await timeRuns(async () => {
      snaps.push(await c.snapshot(`b${n++}`));
    }, 7, 1);
    const restore = await timeRuns(async () => {
      await shell2.close();
      await c.restore(snaps[0]);
      await shell2.restart();
    }, 5, 1);
    await shell2.close();

    const cliMs = median(modes[0].times);
    const rawMs = median(modes[1].times);
    const rows = modes.map((m) => {
      const ms = median(m.times);
      return `| ${m.name} | ${fmt(ms)} | ${fmt(ms - cliMs)} | ${fmt(ms / cliMs)}× | ${fmt(ms - rawMs)} | ${fmt(ms / rawMs)}× |`;
    });
    const shellRatio = cliMs / median(modes[3].times);
    const body = [
      `Per-step time of a trivial command (\`echo\`) in one running container, ${RUNS} repetitions in one interleaved run (each repetition runs every way once, the order rotated), medians:`,
      '',
      '| how a step runs | ms per step | overhead vs `docker exec` CLI (ms) | ratio to CLI | overhead vs dockerode exec (ms) | ratio to dockerode exec |',
      '|---|---:|---:|---:|---:|---:|',
      ...rows,
      '',
      `Target: the persistent shell's per-step time ≥ 5× lower than \`docker exec\` per command: **${shellRatio >= 5 ? 'met' : 'NOT met'}** (${fmt(shellRatio, 1)}×).`,
      'tmux mode pays the 0.2 s window in which the idle state must hold plus the execs that read the state, stage the keys and capture the pane.',
      '',
      `Snapshot (\`docker commit\`, paused, 1 MiB change): median ${fmt(median(snapshot), 0)} ms over 7. Restore for Step back (new container from the snapshot + shell restart): median ${fmt(median(restore), 0)} ms over 5.`,
      'Snapshots are taken lazily (only before a step that follows a step that ran, and only when snapshots are on: the UI, not the CLI).',
    ].join('\n');
    writeSection('replay', 'Replay executor overhead and snapshot cost', body);
  } finally {
    await c.dispose();
    await sweepOrphans(docker, { session: `bench${process.pid}` }).catch(() => undefined);
    await docker.getImage(IMAGE).remove({ force: true }).catch(() => undefined);
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
