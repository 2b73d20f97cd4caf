/**
 * Scorer protocol overhead for a MODEL scorer: the Python PRM scorer (scorers/python, ti_scorer) with a
 * small Qwen2-shaped random model on the CPU (bench/scorer_model.py says what it is), scoring the same
 * 1,000-step batch of real sample steps two ways, interleaved, in one run:
 *
 * - in-process: the backend's `score` called directly on the already-parsed batch inside a Python
 *   process, timed there (`scorer_model.py inproc`, one JSON line of timings per run);
 * - protocol: core `ScorerClient` in this Node process → the scorer process (`scorer_model.py serve`:
 *   ti_scorer's own Server, framing, validation and Engine with the same model) → validated results,
 *   timed here around `client.score`.
 *
 * Target (issue 4): protocol overhead ≤ 10 % for 1,000-step batches. Without python3 + torch the
 * section says it was skipped and why (this is a benchmark, not a test). Nothing is downloaded.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { ScorerClient } from '../src/core/scoring/client';
import { ScoreResult, type RolloutScores } from '../src/core/scoring/protocol';
import { asciiJson } from '../src/core/scoring/wire';
import { batch, FILES, pool, procCpuMs, selfCpuMs } from './scorerBatch';
import { fmt, median, OUT_DIR, REPO_ROOT, timeRuns, writeSection } from './lib';

const PYTHON = process.env.TI_PYTHON ?? '/usr/bin/python3';
const HELPER = path.join(REPO_ROOT, 'bench', 'scorer_model.py');
const STEPS = 1_000;
const STEPS_PER_ROLLOUT = 10;
const RUNS = Number(process.env.RUNS ?? 5);
/** The model (bench/scorer_model.py DEFAULT_CONFIG overrides): sized so a step costs milliseconds on this CPU. */
const CONFIG = { layers: 1, hidden: 16, intermediate: 48, heads: 2, kvHeads: 1, window: 64, threads: 1 };
const TITLE = 'Scorer protocol overhead with a model scorer (Python PRM scorer, small Qwen2-shaped model)';

/** The `inproc` helper: one command line in, one JSON line out. */
class InProc {
  private readonly lines: AsyncIterator<string>;
  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    this.lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  }
  async next(): Promise<any> {
    const r = await this.lines.next();
    if (r.done) throw new Error('the in-process helper exited');
    return JSON.parse(r.value);
  }
  ask(cmd: string): Promise<any> {
    this.child.stdin.write(`${cmd}\n`);
    return this.next();
  }
  quit(): void {
    this.child.stdin.end('quit\n');
  }
}

async function main(): Promise<void> {
  const probe = spawnSync(PYTHON, ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8', timeout: 120_000 });
  if (probe.status !== 0) {
    const why = (probe.stderr || String(probe.error ?? '')).trim().split('\n').pop();
    writeSection('scorerModel', TITLE, `**Skipped:** \`${PYTHON}\` cannot import torch (${why}). Install Debian's python3-torch (scripts/setup-test-env.sh does) and run it again.`);
    return;
  }
  const steps = await pool();
  const b = batch(steps, STEPS, 'm', STEPS_PER_ROLLOUT);
  fs.mkdirSync(OUT_DIR, { recursive: true });
  const batchFile = path.join(OUT_DIR, 'scorerModel-batch.json');
  fs.writeFileSync(batchFile, JSON.stringify({ rollouts: b }));
  const config = JSON.stringify(CONFIG);
  const loadBefore = os.loadavg()[0];

  const helper = spawn(PYTHON, [HELPER, 'inproc', '--config', config, '--batch', batchFile], { stdio: ['pipe', 'pipe', 'pipe'] });
  let helperErr = '';
  helper.stderr.on('data', (d: Buffer) => (helperErr = (helperErr + d.toString()).slice(-4000)));
  const inproc = new InProc(helper);
  let client: ScorerClient | null = null;
  try {
    const ready = await inproc.next().catch((e) => {
      throw new Error(`${e.message}: ${helperErr}`);
    });
    // The scorer logs the wall and CPU time of its backend.score call after every request.
    const inScorer: { wall: number; cpu: number }[] = [];
    const log = (line: string): void => {
      const m = /\[bench\] score wall_ms=([\d.]+) cpu_ms=([\d.]+)/.exec(line);
      if (m) inScorer.push({ wall: Number(m[1]), cpu: Number(m[2]) });
    };
    client = await ScorerClient.start({ command: PYTHON, args: [HELPER, 'serve', '--config', config] }, { client: { name: 'bench', version: '0' }, initTimeoutMs: 120_000, log });
    const timeoutMs = 600_000;

    // Warm both, and check they score alike.
    await inproc.ask('run');
    const viaProtocol = await client.score(b, { timeoutMs });
    const direct = (await inproc.ask('results')) as RolloutScores[];
    let maxDiff = 0;
    let compared = 0;
    for (let i = 0; i < b.length; i++) {
      for (let j = 0; j < b[i].steps.length; j++) {
        const p = viaProtocol[i].steps[j].value;
        const d = direct[i].steps[j].value;
        if ((p === null) !== (d === null) || direct[i].id !== viaProtocol[i].id) throw new Error(`rollout ${b[i].id} step ${j}: protocol ${p}, in-process ${d}`);
        if (p !== null && d !== null) {
          maxDiff = Math.max(maxDiff, Math.abs(p - d));
          compared++;
        }
      }
    }

    // Interleaved runs: drift on a shared machine hits both alike. Wall time is what the target is
    // about; CPU time (this process + the scorer process, from /proc) is what contention cannot inflate.
    const inMs: number[] = [];
    const inCpu: number[] = [];
    const encMs: number[] = [];
    const protoMs: number[] = [];
    const protoCpu: number[] = [];
    const scorerWall: number[] = [];
    const scorerCpu: number[] = [];
    const sameRun: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const r = await inproc.ask('run');
      inMs.push(r.ms);
      inCpu.push(r.cpuMs);
      encMs.push(r.encodeMs);
      const seen = inScorer.length;
      const c0 = selfCpuMs() + procCpuMs(client.pid);
      const t0 = process.hrtime.bigint();
      await client.score(b, { timeoutMs });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      await new Promise((res) => setTimeout(res, 50)); // the scorer's stderr line
      protoMs.push(ms);
      protoCpu.push(selfCpuMs() + procCpuMs(client.pid) - c0);
      const own = inScorer[seen];
      if (!own) throw new Error('the scorer did not log its score time');
      scorerWall.push(own.wall);
      scorerCpu.push(own.cpu);
      sameRun.push(ms - own.wall);
      process.stderr.write(`run ${i + 1}/${RUNS}: in-process ${fmt(r.ms, 0)} ms (cpu ${fmt(r.cpuMs, 0)}), protocol ${fmt(ms, 0)} ms (cpu ${fmt(protoCpu[i], 0)}), the scorer's score call ${fmt(own.wall, 0)} ms\n`);
    }
    const mi = median(inMs);
    const mp = median(protoMs);
    const overhead = (mp - mi) / mi;
    const ci = median(inCpu);
    const cp = median(protoCpu);
    const ms = median(scorerWall);
    const same = median(sameRun);
    const sameRatio = same / ms;
    const load = os.loadavg()[0];

    // Where the protocol's time goes (each part timed alone): client side here, scorer side in Python.
    const params = { rollouts: b };
    const pyParts = await inproc.ask('parts');
    const result = { rollouts: viaProtocol };
    const part = async (fn: () => unknown): Promise<number> => median(await timeRuns(fn, 9, 2));
    const stringify = await part(() => Buffer.from(asciiJson({ jsonrpc: '2.0', id: 1, method: 'score', params }), 'latin1'));
    const zodResult = await part(() => ScoreResult.safeParse(result));
    const partsSum = stringify + pyParts.loads + pyParts.validate + pyParts.dumps + zodResult;

    writeSection(
      'scorerModel',
      TITLE,
      `Model: ${ready.model}; float32 on the CPU, torch ${ready.torch}, ${ready.threads} thread in each process, random weights (bench/scorer_model.py: Qwen2 layer layout in plain PyTorch, local attention, a hashing pre-tokenizer; no transformers, no downloads).
Batch: ${STEPS.toLocaleString('en')} real steps of ${FILES.length} sample rollouts in ${b.length} rollouts of ${STEPS_PER_ROLLOUT} steps (${ready.agentSteps} agent steps scored, the rest context); ${(ready.tokens / 1000).toFixed(0)} k tokens (${fmt(ready.tokens / STEPS, 0)} per step, longest rollout ${ready.longest}); request ${fmt(pyParts.requestBytes / 2 ** 20, 2)} MiB.
"In-process" = the scorer backend's \`score\` (render, tokenise, batched forward passes) on the already-parsed batch, timed inside a Python process; "protocol" = core \`ScorerClient.score\` in Node → the scorer process (bench/scorer_model.py serve: ti_scorer's Server, framing, validation and Engine, same model) → validated results, timed in Node. ${RUNS} interleaved runs each, medians. CPU = user + system time of the processes involved (Node client + scorer for the protocol), which a busy machine does not inflate the way it does wall time.

| 1,000 steps | wall ms | CPU ms |
|---|---:|---:|
| in-process: backend \`score\` (of which render + tokenise: ${fmt(median(encMs), 0)} ms wall) | ${fmt(mi, 0)} | ${fmt(ci, 0)} |
| protocol: \`ScorerClient.score\`, request to validated result | ${fmt(mp, 0)} | ${fmt(cp, 0)} |
| — of which the scorer's backend \`score\` call, same runs | ${fmt(ms, 0)} | ${fmt(median(scorerCpu), 0)} |
| overhead of the medians: (protocol − in-process) / in-process | ${fmt(overhead * 100, 1)} % | ${fmt(((cp - ci) / ci) * 100, 1)} % |
| **overhead in the same runs**: (protocol − the scorer's own \`score\` call) / that call, median of the runs | **${fmt(sameRatio * 100, 1)} %** (${fmt(same, 0)} ms) | |

Protocol overhead for a 1,000-step batch with this model: **${fmt(sameRatio * 100, 1)} %** measured around the same work in the same runs (target ≤ 10 %: ${sameRatio <= 0.1 ? 'met' : 'NOT met'}). The ratio of the interleaved medians (${fmt(overhead * 100, 1)} % wall, ${fmt(((cp - ci) / ci) * 100, 1)} % CPU) carries the noise of runs this long on a shared machine (load average ${fmt(loadBefore, 1)} at the start, ${fmt(load, 1)} at the end, on ${os.cpus().length} cores: single runs of the same work took ${fmt(Math.min(...inMs, ...scorerWall) / 1000, 1)}–${fmt(Math.max(...inMs, ...scorerWall) / 1000, 1)} s); that the scorer process does the work no slower than the in-process call shows in the CPU column (its \`score\` call ${fmt(median(scorerCpu), 0)} ms CPU vs ${fmt(ci, 0)} ms in-process). Scores through the protocol equal the in-process ones (${compared} values, largest difference ${maxDiff.toExponential(1)}).

Where the protocol's time goes, each part timed alone:

| part (1,000 steps) | ms |
|---|---:|
| JSON.stringify + encode the request (client, ASCII JSON) | ${fmt(stringify, 1)} |
| decode + json.loads the request (scorer) | ${fmt(pyParts.loads, 1)} |
| validate_score_params (scorer) | ${fmt(pyParts.validate, 1)} |
| json.dumps the result (scorer) | ${fmt(pyParts.dumps, 1)} |
| zod ScoreResult (client) | ${fmt(zodResult, 1)} |
| sum | ${fmt(partsSum, 1)} |

So the protocol's own work is ~${fmt((partsSum / STEPS) * 1000, 0)} µs per step, and the 10 % target holds for any scorer whose work costs more than ~${fmt((partsSum / STEPS) * 10, 2)} ms per step (plus the pipe and scheduling, which the same-run row shows). This model costs ${fmt(ci / STEPS, 1)} ms of CPU per step (${fmt(mi / STEPS, 1)} ms wall on this busy machine) with this machine's PyTorch (Debian build with a generic BLAS: ~1.6 GFLOP/s per thread for float32 matmuls), the order of a real PRM on a GPU: at ~${fmt(ready.tokens / STEPS, 0)} tokens per step and 2 FLOP per parameter per token, a 1.5B model at 40 % of an H100/H200's 990 bf16 TFLOPS needs ~5 ms per step and a 7B one ~24 ms.`,
    );
  } finally {
    inproc.quit();
    await client?.shutdown();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
