/**
 * In-file search (src/core/scale/fileSearch.ts) over the 1 GB dump against bare ripgrep on the same
 * file, in the same run: a literal case-sensitive and case-insensitive, and a regular expression.
 * Two engines of searchFile: driven by ripgrep (rgPath: what Find in Dump uses, VS Code ships rg)
 * and the built-in scanner (the fallback without rg). Bare ripgrep runs as
 * `rg --no-config -o -b -n [-F|-i] QUERY FILE` (every match with its byte offset and line, output
 * read by the bench): the same work searchFile does, minus mapping hits to rollouts and previews.
 *
 * Input: bench/out/dump-1g.jsonl (bench/genDump.ts; index.bench.ts makes it too).
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { searchFile, searchFileScan } from '../src/core/scale/fileSearch';
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

const RG_PATH = spawnSync('sh', ['-c', 'command -v rg'], { encoding: 'utf8' }).stdout.trim();

async function ours(c: Case, engine: 'rg' | 'scan'): Promise<{ ms: number; hits: number }> {
  const t = process.hrtime.bigint();
  const o = { ...c.opts, maxHits: Number.MAX_SAFE_INTEGER };
  const r = engine === 'rg' ? await searchFile(FILE, c.query, { ...o, rgPath: RG_PATH }) : await searchFileScan(FILE, c.query, o);
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
    { name: 'regex (`def \\w+\\(self`, case-sensitive)', query: 'def \\w+\\(self', rgQuery: 'def \\w+\\(self', rgFlags: ['-s'], opts: { regex: true, caseSensitive: true } },
  ];
  const rowsOut: string[] = [];
  for (const c of cases) {
    await ours(c, 'rg'); // warm-up (page cache, JIT)
    await ours(c, 'scan');
    rg(c);
    const withRg: number[] = [];
    const scan: number[] = [];
    const bare: number[] = [];
    const counts = new Set<number>();
    for (let i = 0; i < RUNS; i++) {
      const o = await ours(c, 'rg');
      const s2 = await ours(c, 'scan');
      const r = rg(c);
      withRg.push(o.ms);
      scan.push(s2.ms);
      bare.push(r.ms);
      counts.add(o.hits).add(s2.hits).add(r.hits);
    }
    if (counts.size !== 1) throw new Error(`${c.name}: the engines found different numbers of matches: ${[...counts].join(', ')}`);
    const rRg = withRg.map((t, i) => bare[i] / t);
    const rScan = scan.map((t, i) => bare[i] / t);
    console.log(`${c.name}: searchFile+rg ${withRg.map((t) => fmt(t, 0)).join(', ')} ms; scanner ${scan.map((t) => fmt(t, 0)).join(', ')} ms; rg ${bare.map((t) => fmt(t, 0)).join(', ')} ms; ${[...counts][0]} matches`);
    const mbs = (xs: number[]): string => `${fmt(median(xs), 0)} ms (${fmt(mb / (median(xs) / 1000), 0)} MB/s)`;
    rowsOut.push(
      `| ${c.name} | ${[...counts][0]} | ${mbs(withRg)} | **${fmt(median(rRg))}×** (${rRg.map((r) => fmt(r)).join(', ')}) | ${mbs(scan)} | ${fmt(median(rScan))}× (${rScan.map((r) => fmt(r)).join(', ')}) | ${mbs(bare)} |`,
    );
  }
  writeSection(
    'search',
    'Streaming search inside a 1 GB dump',
    `
Input: \`bench/out/dump-1g.jsonl\`, ${fmt(mb, 0)} MiB (bench/genDump.ts). ${RUNS} runs each, the three interleaved, after one warm-up of each (file in the page cache); medians. ${version}. "searchFile + rg" is what Find in Dump runs when a ripgrep is found (VS Code ships one): ripgrep finds the matches, searchFile maps each to its line, rollout and preview. "scanner" is the built-in fallback (Buffer.indexOf / RegExp on chunks). Bare ripgrep: \`rg --no-config -o -b -n [-F] [-s|-i] QUERY FILE\`. All three find the same number of matches (checked). Ratio = bare rg time / engine time (target ≥ 0.8×: within 1.25× of bare ripgrep).

| query | matches | searchFile + rg | vs bare rg (per run) | scanner | vs bare rg (per run) | bare ripgrep |
|---|---|---|---|---|---|---|
${rowsOut.join('\n')}
`,
  );
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
