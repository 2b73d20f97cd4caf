/**
 * Generates large Inspect AI `.json` eval logs for bench/inspectLog.bench.ts, written a sample at a
 * time (generating never holds the file): the header of the real `inspect/log_read_sample.json`,
 * then its one sample repeated with new ids (`<id>-<k>`, ~9 KB each) up to the size asked for, with
 * `big` samples of about `bigBytes` each spread over the list (first, middle, last, …): the real
 * sample's system and user messages followed by assistant `bash` tool calls and their tool results
 * (~8 KB of output each), the shape of a long agent run.
 *
 *   npx tsx bench/genInspectLog.ts <MiB> <file> [big] [bigMiB]
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { samplesDir } from './genDump';

const SAMPLE = 'inspect/log_read_sample.json';

/** What a generated log holds: its size, its samples and the byte length of its largest sample. */
export interface GeneratedLog {
  file: string;
  size: number;
  samples: number;
  largestSampleBytes: number;
}

/** A sample of about `bytes` bytes: the real sample with `n` tool-call turns after its system and user messages. */
function bigSample(base: any, k: number, bytes: number): any {
  const output = Array.from({ length: 100 }, (_, j) => `line ${j} of the command output: ${'x'.repeat(60)}`).join('\n');
  const turn = JSON.stringify([{ role: 'assistant', content: 'Running the next check.' }, { role: 'tool', content: output }]).length + 200;
  const n = Math.max(1, Math.floor(bytes / turn));
  const head = (base.messages as any[]).filter((m) => m.role === 'system' || m.role === 'user');
  const messages = [...head];
  for (let j = 0; j < n; j++) {
    messages.push({ id: `a${k}-${j}`, role: 'assistant', content: `Running check ${j}.`, source: 'generate', tool_calls: [{ id: `c${k}-${j}`, function: 'bash', arguments: { cmd: `./check.sh ${j}` } }] });
    messages.push({ id: `t${k}-${j}`, role: 'tool', content: output, tool_call_id: `c${k}-${j}`, function: 'bash' });
  }
  return { ...base, id: `${String(base.id)}-big-${k}`, uuid: `${String(base.uuid)}-big-${k}`, messages };
}

/**
 * Writes (or reuses, when a file of that name and at least that size is there) an Inspect log of at
 * least `mib` MiB with `big` samples of about `bigMib` MiB among the others. Returns what it holds.
 */
export function writeInspectLog(file: string, mib: number, big = 0, bigMib = 0): GeneratedLog {
  const meta = `${file}.meta.json`;
  if (fs.existsSync(file) && fs.existsSync(meta)) {
    const m = JSON.parse(fs.readFileSync(meta, 'utf8')) as GeneratedLog;
    if (m.size === fs.statSync(file).size) return m;
  }
  const d = JSON.parse(fs.readFileSync(`${samplesDir()}/${SAMPLE}`, 'utf8'));
  const base = d.samples[0];
  const { samples: _s, reductions, ...header } = d;
  const target = mib * 1024 * 1024;
  const one = Buffer.byteLength(JSON.stringify(base));
  const normal = Math.max(1, Math.ceil((target - big * bigMib * 1024 * 1024) / (one + 2)));
  const total = normal + big;
  const bigAt = new Set(Array.from({ length: big }, (_, j) => (big === 1 ? 0 : Math.round((j * (total - 1)) / (big - 1)))));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fd = fs.openSync(file, 'w');
  let size = 0;
  let largest = 0;
  const put = (s: string): void => {
    size += fs.writeSync(fd, s);
  };
  try {
    const h = JSON.stringify(header, null, 2);
    put(`${h.slice(0, -2)},\n  "samples": [\n`);
    let part: string[] = [];
    let bigs = 0;
    for (let k = 0; k < total; k++) {
      const s = bigAt.has(k) ? bigSample(base, bigs++, bigMib * 1024 * 1024) : { ...base, id: `${String(base.id)}-${k}`, uuid: `${String(base.uuid)}-${k}` };
      const text = JSON.stringify(s);
      largest = Math.max(largest, Buffer.byteLength(text));
      part.push(`    ${text}${k + 1 < total ? ',' : ''}\n`);
      if (part.length >= 1000 || bigAt.has(k)) {
        put(part.join(''));
        part = [];
      }
    }
    put(part.join(''));
    put(`  ],\n  "reductions": ${JSON.stringify(reductions ?? null)}\n}\n`);
  } finally {
    fs.closeSync(fd);
  }
  const out: GeneratedLog = { file, size, samples: total, largestSampleBytes: largest };
  fs.writeFileSync(meta, JSON.stringify(out));
  return out;
}

if (require.main === module) {
  const [mib, file, big, bigMib] = process.argv.slice(2);
  console.log(JSON.stringify(writeInspectLog(file, Number(mib), Number(big ?? 0), Number(bigMib ?? 0))));
}
