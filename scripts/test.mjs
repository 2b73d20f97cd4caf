#!/usr/bin/env node
// `npm test`: every tier, in order, even when an earlier one fails (so one run shows all failures):
//   lint (eslint.config.mjs: layers, no import cycles) → typecheck → build → unit (mocha, .mocharc.json) → hostile (test/hostile: untrusted input of any
//   size, each case under a time and heap watchdog) → webview (test/webview, Chromium)
//   → e2e (packaged .vsix in code-server + Chromium).
// The webview and e2e tiers install Chromium/code-server when missing (scripts/setup-test-env.sh)
// and fail, never skip, when they cannot; before the unit tier (whose integration tests replay in
// Docker and run the Python scorer) a missing Docker engine or python3-torch is installed the same
// way (scripts/setup-test-env.sh --with-docker, as root). Exit status: 0 only when every tier passed.
// TEST_TIERS=unit,e2e runs a subset (default: all).
import { spawnSync } from 'node:child_process';
import { REPO_ROOT, ensureUnitEnv } from './lib/test-env.mjs';

const TIERS = [
  { name: 'lint', script: 'lint' },
  { name: 'typecheck', script: 'typecheck' },
  { name: 'build', script: 'build' },
  { name: 'unit', script: 'test:unit' },
  { name: 'hostile', script: 'test:hostile' },
  { name: 'webview', script: 'test:webview' },
  { name: 'e2e', script: 'test:e2e' },
];
const only = process.env.TEST_TIERS?.split(',').map((s) => s.trim()).filter(Boolean);
if (only) {
  const unknown = only.filter((n) => !TIERS.some((t) => t.name === n));
  if (unknown.length) {
    console.error(`unknown TEST_TIERS entries: ${unknown.join(', ')} (known: ${TIERS.map((t) => t.name).join(', ')})`);
    process.exit(2);
  }
}

const results = [];
let envChecked = false;
for (const tier of TIERS) {
  if (only && !only.includes(tier.name)) continue;
  if ((tier.name === 'unit' || tier.name === 'e2e') && !envChecked) {
    envChecked = true; // the e2e tier replays in Docker too
    try {
      ensureUnitEnv();
    } catch (e) {
      console.error(String(e));
    }
  }
  const t0 = Date.now();
  console.log(`\n######## ${tier.name}: npm run ${tier.script} ########\n`);
  const r = spawnSync('npm', ['run', '--silent', tier.script], { cwd: REPO_ROOT, stdio: 'inherit' });
  results.push({ name: tier.name, ok: r.status === 0, code: r.status ?? r.signal, secs: Math.round((Date.now() - t0) / 1000) });
}

console.log('\n######## summary ########');
for (const r of results) console.log(`  ${r.ok ? 'PASS' : 'FAIL'}  ${r.name.padEnd(10)} ${String(r.secs).padStart(4)} s${r.ok ? '' : `  (exit ${r.code})`}`);
const failed = results.filter((r) => !r.ok).length;
console.log(`tiers: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
