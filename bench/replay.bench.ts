/**
 * Replay executor overhead: the time one trivial step (`echo`) takes per mode, against the
 * baseline of running the docker CLI's `docker exec` once per command (what mini-swe-agent and
 * Harbor do). Target: the persistent shell's per-step overhead at least 5× lower than `docker exec`
 * per command, measured in the same run on the same container. Also the snapshot (docker commit)
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
const RUNS = 40;

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
    const cli = await timeRuns(() => {
      const r = spawnSync('docker', ['exec', '-w', '/tmp', c.id, 'bash', '-lc', `echo step-${i++}`], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`docker exec failed: ${r.stderr}`);
    }, RUNS, 3);
    const exec = new ExecExecutor(c, { ...plan, mode: 'exec' });
    await exec.start();
    const viaExec = await timeRuns(async () => {
      const r = await exec.run(step(`echo step-${i++}`));
      if (r.exitCode !== 0) throw new Error('exec step failed');
    }, RUNS, 3);
    const shell = new ShellExecutor(c, plan);
    await shell.start();
    const viaShell = await timeRuns(async () => {
      const r = await shell.run(step(`echo step-${i++}`));
      if (r.exitCode !== 0) throw new Error('shell step failed');
    }, RUNS, 3);
    await shell.close();
    const tmux = new TmuxExecutor(c, { ...plan, mode: 'tmux' });
    await tmux.start();
    const viaTmux = await timeRuns(async () => {
      await tmux.run(step(`echo step-${i++}\n`));
    }, 15, 2);
    await tmux.close();

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

    const m = { cli: median(cli), exec: median(viaExec), shell: median(viaShell), tmux: median(viaTmux) };
    const ratio = m.cli / m.shell;
    const body = [
      `Per-step time of a trivial command (\`echo\`), median of ${RUNS} steps in one container (tmux: 15):`,
      '',
      '| how a step runs | ms per step | vs `docker exec` CLI |',
      '|---|---:|---:|',
      `| \`docker exec … bash -lc\` (CLI, once per command; baseline) | ${fmt(m.cli)} | 1.0× |`,
      `| exec mode (dockerode exec per command, mini-swe-agent) | ${fmt(m.exec)} | ${fmt(m.cli / m.exec, 1)}× lower |`,
      `| **shell mode (persistent bash, nonce markers)** | **${fmt(m.shell)}** | **${fmt(ratio, 1)}× lower** |`,
      `| tmux mode (paste buffer, wait until the shell is idle and stable 0.2 s, capture-pane) | ${fmt(m.tmux)} | ${fmt(m.cli / m.tmux, 1)}× |`,
      '',
      `Target: the persistent shell's per-step overhead ≥ 5× lower than \`docker exec\` per command: **${ratio >= 5 ? 'met' : 'NOT met'}** (${fmt(ratio, 1)}×).`,
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
