/**
 * Host memory of opening a 700,000-step Harbor ATIF in the timeline (issue 18 item 3): the file
 * loaded whole (what the timeline does today) against src/host/steppedSource.ts (read by windows
 * over core/scale/stepIndex.ts), each in a child process of its own (bench/timelineMemoryChild.ts):
 * heap and RSS after a full GC when opened, when its `rollout` message is built, and after
 * answering the webview's requests for 25 steps at 40 places spread over the rollout; peak RSS is
 * the child's own maxRSS (test/hostile/maxRss.cjs, preloaded). A third run takes the timeline
 * panel's own path (src/host/timeline/readSource.ts at its default 64 MiB threshold) and sets a
 * label on the last step through the panel's label session. One run each: the peak is a
 * high-water mark (the machine is shared; times are noisy, memory much less so).
 * Input: bench/genHuge.ts writeBigAtif (the file bench/showStream.bench.ts shows).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeBigAtif } from './genHuge';
import { fmt, OUT_DIR, REPO_ROOT, writeSection } from './lib';

const STEPS = 700_000;

interface Result {
  mode: string;
  count: number;
  msgChars: number;
  answered: number;
  stages: { stage: string; heapMb: number; rssMb: number; ms: number }[];
  peakMb: number;
  seconds: number;
}

function runChild(mode: 'whole' | 'stepped' | 'panel', file: string): Result {
  const rss = path.join(OUT_DIR, `timelineMemory-${mode}-maxrss`);
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['-r', path.join(REPO_ROOT, 'test', 'hostile', 'maxRss.cjs'), '--expose-gc', '--max-old-space-size=8192', '--import', 'tsx', path.join(REPO_ROOT, 'bench', 'timelineMemoryChild.ts'), mode, file], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...process.env, TI_MAXRSS_FILE: rss },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`${mode} run failed (exit ${r.status ?? r.signal})`);
  const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as Omit<Result, 'peakMb' | 'seconds'>;
  const peakMb = Number(fs.readFileSync(rss, 'utf8')) / 1024;
  fs.rmSync(rss, { force: true });
  return { ...out, peakMb, seconds: (performance.now() - t0) / 1000 };
}

async function main(): Promise<void> {
  fs.mkdirSync(OUT_DIR, { recursive: true });
  const file = path.join(OUT_DIR, `atif-${STEPS}.trajectory.json`);
  const bytes = fs.existsSync(file) ? fs.statSync(file).size : writeBigAtif(file, STEPS);
  const results = [runChild('whole', file), runChild('stepped', file), runChild('panel', file)];
  const at = (r: Result, stage: string) => r.stages.find((s) => s.stage === stage)!;
  const mb = (x: number) => `${fmt(x, 0)} MB`;
  const rows = results.map((r) => {
    const cells = ['opened', 'message', 'answered'].map((s) => `${mb(at(r, s).heapMb)} / ${mb(at(r, s).rssMb)}`);
    const name = r.mode === 'whole' ? 'loaded whole (before the panel read by windows)' : r.mode === 'stepped' ? '**read by windows (SteppedSource)**' : '**the panel\'s path (readTimelineSource)**';
    return `| ${name} | ${mb(at(r, 'start').heapMb)} / ${mb(at(r, 'start').rssMb)} | ${cells.join(' | ')} | **${mb(r.peakMb)}** | ${fmt(at(r, 'message').ms / 1000, 1)} s | ${fmt(r.msgChars / 1e3, 0)} K chars |`;
  });
  for (const row of rows) console.log(row);
  const [w, s, p] = results;
  const labelled = p.stages.find((x) => x.stage === 'labelled');
  writeSection(
    'timelineMemory',
    `Host memory of a ${STEPS.toLocaleString('en-US')}-step ATIF in the timeline: loaded whole vs read by windows`,
    `
Input: bench/genHuge.ts \`writeBigAtif\`, ${STEPS.toLocaleString('en-US')} steps, ${fmt(bytes / 1e6, 0)} MB. Each mode in a child process
of its own (bench/timelineMemoryChild.ts): "loaded whole" is core \`loadFile\` and the timeline's \`rollout\` message from
StepSlices (paged: no step heads, src/shared/pagedSteps.ts); "read by windows" is src/host/steppedSource.ts over
core/scale/stepIndex.ts (the column built ${'1,000'} steps at a time, requests answered through at most 8 kept windows
of 200 steps). Heap used / RSS after a full GC (\`--expose-gc\`) once the file is open, once the message is built, and after
answering requests for 25 steps at 40 places spread over the rollout (${s.answered} steps); peak RSS is the child's own
maxRSS (test/hostile/maxRss.cjs). "The panel's path" is what the timeline panel runs: src/host/timeline/readSource.ts
\`readTimelineSource\` at its default threshold (64 MiB, the CLI's streaming size) gives a SteppedRolloutSource, whose
message carries the header's warnings; after the requests it opens the panel's label session and sets a label on the last
step (${labelled ? `${mb(labelled.heapMb)} heap / ${mb(labelled.rssMb)} RSS after it` : 'not reached'}). "Ready" is the time from the child's start until the message is built. One run each.

| timeline source | at start | opened | message built | requests answered | peak RSS | ready | message |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Read by windows, the host holds **${fmt(at(w, 'answered').heapMb / at(s, 'answered').heapMb, 0)}× less heap** once the
requests are answered (${mb(at(s, 'answered').heapMb)} instead of ${mb(at(w, 'answered').heapMb)}) and peaks at
${mb(s.peakMb)} of RSS instead of ${mb(w.peakMb)}: what stays is the step index (40 bytes a step), the column (2 characters a step
and the sparse fields) and the kept windows. The peak of the windowed read is the index pass, which holds the file's bytes in
one Buffer while it runs (core/scale/stepIndex.ts). The timeline panel opens an ATIF of 64 MiB or more this way (src/host/timeline/readSource.ts);
scores, replay, Mark First Error and Export Rollout are off for it, said in its header.
`,
  );
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
