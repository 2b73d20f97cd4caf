// Finds (and, when missing, installs via scripts/setup-test-env.sh) what the browser-based tiers need:
// Chromium at /usr/bin/chromium and code-server 4.100.3 in the cache folder.
// Never skips: when something is still missing after setup, it throws.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SETUP = path.join(REPO_ROOT, 'scripts', 'setup-test-env.sh');

/** Path of the code-server binary when a valid install is in the cache, else undefined. */
export function findCodeServer() {
  const r = spawnSync('bash', [SETUP, '--print-code-server'], { encoding: 'utf8' });
  const p = r.status === 0 ? r.stdout.trim() : '';
  return p && fs.existsSync(p) ? p : undefined;
}

/**
 * Makes sure Chromium (and, when `codeServer` is true, code-server) are there; runs the setup
 * script when not. Returns { chromium, codeServer }.
 */
export function ensureTestEnv({ codeServer = true } = {}) {
  let cs = codeServer ? findCodeServer() : undefined;
  const haveChromium = fs.existsSync(CHROMIUM);
  if (!haveChromium || (codeServer && !cs)) {
    const what = [!haveChromium && `Chromium (${CHROMIUM})`, codeServer && !cs && 'code-server'].filter(Boolean);
    console.log(`[test-env] missing: ${what.join(', ')}; running scripts/setup-test-env.sh`);
    const r = spawnSync('bash', [SETUP], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`scripts/setup-test-env.sh failed (exit ${r.status}); cannot run the browser tests`);
    cs = codeServer ? findCodeServer() : undefined;
  }
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium is missing at ${CHROMIUM} after setup`);
  if (codeServer && !cs) throw new Error('code-server is missing after setup (see the setup output above)');
  return { chromium: CHROMIUM, codeServer: cs };
}

/** Runs a command in the repository root with inherited stdio; throws on a non-zero exit. */
export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: REPO_ROOT, stdio: 'inherit', ...opts });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed with exit ${r.status ?? r.signal}`);
}

export const VSIX = path.join(REPO_ROOT, 'dist', 'trajectory-inspector.vsix');

/** Builds the production bundles and packages them into dist/trajectory-inspector.vsix. */
export function packageVsix() {
  fs.rmSync(VSIX, { force: true });
  // stdin closed: vsce asks y/N questions on some problems; they must fail, not hang.
  run('npm', ['run', '--silent', 'package'], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (!fs.existsSync(VSIX)) throw new Error(`npm run package did not produce ${VSIX}`);
  return VSIX;
}

/**
 * What the unit tier's integration tests need besides Node: a reachable Docker engine (replay) and
 * PyTorch under /usr/bin/python3 (the Python scorer). When either is missing and we run as root,
 * runs scripts/setup-test-env.sh --with-docker (Debian packages, dockerd); otherwise says what is
 * missing (the tests then fail in CI and skip with a warning locally).
 */
export function ensureUnitEnv() {
  const docker = spawnSync('docker', ['info'], { stdio: 'ignore', timeout: 20_000 }).status === 0;
  const torch = spawnSync('/usr/bin/python3', ['-c', 'import torch'], { stdio: 'ignore', timeout: 60_000 }).status === 0;
  if (docker && torch) return;
  const what = [!docker && 'a Docker engine', !torch && 'python3-torch'].filter(Boolean).join(' and ');
  if (process.getuid?.() !== 0) {
    console.log(`[test-env] missing ${what}; run scripts/setup-test-env.sh --with-docker as root to install them`);
    return;
  }
  console.log(`[test-env] missing ${what}; running scripts/setup-test-env.sh --with-docker`);
  const r = spawnSync('bash', [SETUP, '--with-docker'], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`scripts/setup-test-env.sh --with-docker failed (exit ${r.status})`);
}
