/**
 * One run of bench/timelineMemory.bench.ts, in a child process of its own (`node --expose-gc
 * --import tsx bench/timelineMemoryChild.ts MODE FILE`): opens the big ATIF FILE for the timeline
 * as the host would and answers the webview's requests for steps spread over the rollout, printing
 * the heap and RSS (after a full GC) at each stage as one JSON line. MODE `whole`: the file loaded
 * whole (core loadFile) and its `rollout` message built by StepSlices (paged: no heads); `stepped`:
 * src/host/steppedSource.ts over the step index; `panel`: the path the timeline panel takes
 * (src/host/timeline/readSource.ts readTimelineSource at its default threshold: a
 * SteppedRolloutSource), its message with the header warnings, and after the requests the label
 * session the panel opens, with a label set on the last step (a journal in a temp folder).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadFile } from '../src/core/load';
import { rolloutMessage } from '../src/host/rolloutMessage';
import { LoadedSource } from '../src/host/rolloutSource';
import { LabelSession } from '../src/host/labelSession';
import { inThreadFiles } from '../src/host/rolloutFiles';
import { SteppedRolloutSource, SteppedSource } from '../src/host/steppedSource';
import { readTimelineSource } from '../src/host/timeline/readSource';
import { StepSlices } from '../src/host/stepSlices';
import type { LoadStepsMessage, RolloutMessage, StepsMessage } from '../src/shared/protocol';
import { answerStepSlice } from '../src/shared/stepHeads';

const CONFIG = { collapseOutputLines: 20 };
/** Requests for steps: 25-step chunks at this many places spread over the rollout (as scrolling and Go to Step ask). */
const PLACES = 40;

interface Stage {
  stage: string;
  heapMb: number;
  rssMb: number;
  ms: number;
}

async function main(): Promise<void> {
  const [mode, file] = process.argv.slice(2);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const t0 = performance.now();
  const stages: Stage[] = [];
  const mark = (stage: string): void => {
    gc();
    const m = process.memoryUsage();
    stages.push({ stage, heapMb: m.heapUsed / 2 ** 20, rssMb: m.rss / 2 ** 20, ms: performance.now() - t0 });
  };
  mark('start');
  let msg: RolloutMessage;
  let answer: (r: LoadStepsMessage) => Promise<StepsMessage | null>;
  // Kept alive to the end, as the panel keeps its source.
  let keep: unknown;
  if (mode === 'whole') {
    const loaded = await loadFile(file);
    mark('opened');
    const r = loaded.rollouts[0];
    msg = rolloutMessage(new LoadedSource(loaded), 0, null, CONFIG, { slices: new StepSlices() });
    answer = async (req) => answerStepSlice(req, 0, r);
    keep = loaded;
  } else if (mode === 'panel') {
    const { source, error } = await readTimelineSource(file, { files: inThreadFiles(), show: 0 });
    if (!(source instanceof SteppedRolloutSource)) throw new Error(`not read by windows: ${error?.title ?? 'read whole'}`);
    mark('opened');
    msg = await source.message(null, CONFIG);
    answer = (req) => source.stepped.answer(req);
    keep = source;
  } else {
    const src = await SteppedSource.open(file);
    mark('opened');
    msg = await src.message(null, CONFIG);
    answer = (req) => src.answer(req);
    keep = src;
  }
  const msgChars = JSON.stringify(msg).length;
  const count = msg.sliced?.paged?.count ?? msg.rollout.steps.length;
  mark('message');
  let got = 0;
  for (let k = 0; k < PLACES; k++) {
    const from = Math.floor((k * (count - 25)) / (PLACES - 1));
    const a = await answer({ type: 'loadSteps', rolloutIndex: 0, rolloutId: msg.rollout.id, from, to: from + 25, seq: k + 1 });
    got += a?.steps.length ?? 0;
  }
  mark('answered');
  if (keep instanceof SteppedRolloutSource) {
    // The panel's labels: the session over the label view, a label on the last step (read for its hash).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ti-bench-labels-'));
    try {
      const session = await LabelSession.open(path.join(dir, 'labels.jsonl'), 'bench', [keep.labelRollout]);
      if (await keep.keepForLabels([count - 1])) session.setRollouts([keep.labelRollout]);
      await session.run({ kind: 'apply', changes: [{ rolloutId: msg.rollout.id, stepIndex: count - 1, value: -1 }] });
      if (session.error || !session.message(0, msg.rollout.id, null).labels.some((l) => l.stepIndex === count - 1)) throw new Error(`label not set: ${session.error}`);
      mark('labelled');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  if (!keep) throw new Error('nothing opened');
  console.log(JSON.stringify({ mode, count, msgChars, answered: got, stages }));
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
