/**
 * In-file search (src/core/scale/search.ts) over the 1 GB dump against ripgrep on the same file, in
 * the same run: a literal (a command the agent ran) case-sensitive and case-insensitive, and a
 * regular expression. ripgrep runs as `rg --no-config -o -b -n [-F|-i] QUERY FILE` (every match
 * with its byte offset and line, output discarded): the same work searchFile does.
 *
 * Input: bench/out/dump-1g.jsonl (bench/genDump.ts; index.bench.ts makes it too).
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { searchFile } from '../src/core/scale/search';
import { generateDump } from './genDump';
import { fmt, median, OUT_DIR, writeSection } from './lib';

const RUNS = 3;
const FILE = path.join(OUT_DIR, 'dump-1g.jsonl');
const BYTES = 1024 * 1024 * 1024;

interface Case {
  name: string;
  query: string;
  /** What ripgrep gets (the JSON-escaped literal: searchFile matches literals as written in the file). */
  rgQuery: string;
  rgFlags: string[];
  opts: { regex?: boolean; caseSensitive?: boolean };
}

function rg(c: Case): { ms: number; hits: number } {
  const t = process.hrtime.bigint();
  const r = spawnSync('rg', ['--no-config', '-o', '-b', '-n', ...c.rgFlags, '--', c.rgQuery, FILE], { encoding: 'utf8', maxBuffer: 1024 * 1024 * 1024 });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.error) throw new Error(`ripgrep not available: ${r.error.message} (install ripgrep)`);
  if (r.status !== 0 && r.status !== 1) throw new Error(`rg failed: ${r.stderr}`);
  return { ms, hits: r.stdout.split('\n').filter(Boolean).length };
}

async function ours(c: Case): Promise<{ ms: number; hits: number }> {
  const t = process.hrtime.bigint();
  const r = await searchFile(FILE, c.query, { ...c.opts, maxHits: Number.MAX_SAFE_INTEGER });
  return { ms: Number(process.hrtime.bigint() - t) / 1e6, hits: r.hits.length };
}

async function main(): Promise<void> {
  const gen = generateDump(FILE, BYTES);
  const mb = gen.size / 2 ** 20;
  const version = spawnSync('rg', ['--version'], { encoding: 'utf8' }).stdout?.split('\n')[0] ?? 'rg (unknown version)';
  // A command from the sample rows (find . -type f -name "*.py" …) appears JSON-in-JSON: `\\\"` in the file.
  const cases: Case[] = [
    { name: 'literal, case-sensitive (`show_versions`)', query: 'show_versions', rgQuery: 'show_versions', rgFlags: ['-F', '-s'], opts: { caseSensitive: true } },
    { name: 'literal, case-insensitive (`Traceback`)', query: 'Traceback', rgQuery: 'Traceback', rgFlags: ['-F', '-i'], opts: {} },
    { name: 'regex (`exit code:? \\d+`, case-insensitive)', query: 'exit code:? \\d+', rgQuery: 'exit code:? \\d+', rgFlags: ['-i'], opts: { regex: true } },
  ];
  const rowsOut: string[] = [];
  for (const c of cases) {
    await ours(c); // warm-up (page cache, JIT)
    rg(c);
    const a: number[] = [];
    const b: number[] = [];
    let hitsOurs = 0;
    let hitsRg = 0;
    for (let i = 0; i < RUNS; i++) {
      const o = await ours(c);
      const r = rg(c);
      a.push(o.ms);
      b.push(r.ms);
      hitsOurs = o.hits;
      hitsRg = r.hits;
    }
    if (hitsOurs !== hitsRg) throw new Error(`${c.name}: searchFile found ${hitsOurs} matches, rg ${hitsRg}`);
    const ratios = a.map((t, i) => b[i] / t);
    console.log(`${c.name}: ours ${a.map((t) => fmt(t, 0)).join(', ')} ms; rg ${b.map((t) => fmt(t, 0)).join(', ')} ms; ${hitsOurs} matches`);
    rowsOut.push(
      `| ${c.name} | ${hitsOurs} | ${fmt(median(a), 0)} ms (${fmt(mb / (median(a) / 1000), 0)} MB/s) | ${fmt(median(b), 0)} ms (${fmt(mb / (median(b) / 1000), 0)} MB/s) | **${fmt(median(ratios))}×** (${ratios.map((r) => fmt(r)).join(', ')}) |`,
    );
  }
  writeSection(
    'search',
    'Streaming search inside a 1 GB dump',
    `
Input: \`bench/out/dump-1g.jsonl\`, ${fmt(mb, 0)} MiB (bench/genDump.ts). ${RUNS} runs each, alternating with ripgrep, after one warm-up of each (file in the page cache); medians. ${version}, run as \`rg --no-config -o -b -n [-F] [-s|-i] QUERY FILE\` (every match with byte offset and line, as searchFile returns them); both find the same number of matches (checked).

| query | matches | searchFile | ripgrep | throughput vs ripgrep (rg time / ours; target ≥ 0.5×; per run) |
|---|---|---|---|---|
${rowsOut.join('\n')}
`,
  );
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
