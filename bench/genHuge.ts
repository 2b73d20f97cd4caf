/**
 * Generates the files of the memory checks (test/hostile/memory.test.ts, bench/RESULTS.md): a valid
 * Harbor ATIF trajectory of many small steps (one JSON document, `trajectory.json`) and a JSONL dump
 * of many tiny OpenAI chat rows. Both are written a part at a time, so generating never holds the
 * file in memory.
 *
 *   npx tsx bench/genHuge.ts atif <steps> <file>
 *   npx tsx bench/genHuge.ts rows <rows> <file>
 */
import * as fs from 'node:fs';

/** Step `i` of the generated trajectory: user, agent with a tool call, agent whose call's result comes back. ~230 bytes each. */
function atifStep(i: number): Record<string, unknown> {
  const id = i + 1;
  const ts = new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString();
  if (i % 3 === 0) return { step_id: id, timestamp: ts, source: 'user', message: `Please run check number ${i} and report.` };
  if (i % 3 === 1) {
    return {
      step_id: id,
      timestamp: ts,
      source: 'agent',
      model_name: 'gen-model',
      message: `Running check ${i}.`,
      tool_calls: [{ tool_call_id: `c${i}`, function_name: 'bash', arguments: { command: `echo ${i}` } }],
      observation: { results: [{ source_call_id: `c${i}`, content: `${i}\n[exit_code] 0` }] },
      metrics: { prompt_tokens: 100 + (i % 50), completion_tokens: 10 },
    };
  }
  return { step_id: id, timestamp: ts, source: 'agent', message: `Check ${i - 1} passed.` };
}

/** Writes an ATIF-v1.5 trajectory of `steps` steps to `file` (one line per step). Returns its size in bytes. */
export function writeBigAtif(file: string, steps: number): number {
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, `{"schema_version":"ATIF-v1.5","session_id":"gen-${steps}","agent":{"name":"gen-agent","version":"1.0"},"steps":[\n`);
    let part: string[] = [];
    for (let i = 0; i < steps; i++) {
      part.push(JSON.stringify(atifStep(i)) + (i + 1 < steps ? ',\n' : '\n'));
      if (part.length >= 10_000) {
        fs.writeSync(fd, part.join(''));
        part = [];
      }
    }
    fs.writeSync(fd, part.join('') + '],"final_metrics":{"total_steps":' + steps + '}}\n');
  } finally {
    fs.closeSync(fd);
  }
  return fs.statSync(file).size;
}

/** Writes a JSONL dump of `rows` tiny OpenAI chat rollouts (one user and one assistant message each). Returns its size in bytes. */
export function writeTinyRows(file: string, rows: number): number {
  const fd = fs.openSync(file, 'w');
  try {
    let part: string[] = [];
    for (let i = 0; i < rows; i++) {
      part.push(JSON.stringify({ id: `r${i}`, messages: [{ role: 'user', content: `q${i}` }, { role: 'assistant', content: `a${i}` }], reward: i % 2 }) + '\n');
      if (part.length >= 10_000) {
        fs.writeSync(fd, part.join(''));
        part = [];
      }
    }
    fs.writeSync(fd, part.join(''));
  } finally {
    fs.closeSync(fd);
  }
  return fs.statSync(file).size;
}

if (require.main === module) {
  const [kind, n, file] = process.argv.slice(2);
  if ((kind !== 'atif' && kind !== 'rows') || !Number(n) || !file) {
    process.stderr.write('usage: tsx bench/genHuge.ts atif|rows <count> <file>\n');
    process.exit(2);
  }
  const size = kind === 'atif' ? writeBigAtif(file, Number(n)) : writeTinyRows(file, Number(n));
  process.stdout.write(`${file}: ${size} bytes\n`);
}
