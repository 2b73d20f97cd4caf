#!/usr/bin/env node
// `npm run bench [-- NAME…]`: builds, runs every bench/<name>.bench.ts (or only the named ones) one
// after another with tsx, then composes bench/RESULTS.md from bench/results/*.md (sections of
// benchmarks not run this time are kept from their last run). Exit status 1 when a benchmark failed.
// `npm run bench -- --compose` only rewrites bench/RESULTS.md from the sections already there.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(BENCH);
const all = fs.readdirSync(BENCH).filter((f) => f.endsWith('.bench.ts')).map((f) => f.slice(0, -'.bench.ts'.length)).sort();
const compose = process.argv.includes('--compose');
const wanted = compose ? [] : process.argv.slice(2);
const unknown = wanted.filter((w) => !all.includes(w));
if (unknown.length) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')} (known: ${all.join(', ') || 'none'})`);
  process.exit(2);
}
const names = compose ? [] : wanted.length ? wanted : all;

if (names.length) {
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) process.exit(1);
}

let failed = 0;
for (const name of names) {
  console.log(`\n######## bench: ${name} ########\n`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', path.join(BENCH, `${name}.bench.ts`)], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) { failed++; console.error(`bench ${name} failed (exit ${r.status ?? r.signal})`); }
}

const sections = fs.existsSync(path.join(BENCH, 'results'))
  ? fs.readdirSync(path.join(BENCH, 'results')).filter((f) => f.endsWith('.md')).sort()
  : [];
const out = [
  '# Benchmark results',
  '',
  'Written by `npm run bench` (bench/run.mjs) from bench/results/*.md; each section names the machine',
  'and the command that reproduces it. Targets are ratios measured in one run on one machine; figures',
  'are medians of several runs. These machines are shared and noisy: compare ratios, not absolute times.',
  '',
  ...sections.map((f) => fs.readFileSync(path.join(BENCH, 'results', f), 'utf8')),
].join('\n');
fs.writeFileSync(path.join(BENCH, 'RESULTS.md'), out);
console.log(`\nwrote bench/RESULTS.md (${sections.length} sections)`);
process.exit(failed ? 1 : 0);
