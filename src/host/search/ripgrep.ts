/**
 * Where the ripgrep executable is: the one VS Code ships (`@vscode/ripgrep` under the app root,
 * packed apps under `node_modules.asar.unpacked`; code-server under its `lib/vscode`), else `rg` on
 * PATH. No vscode import: the app root is a parameter (host code passes `vscode.env.appRoot`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The candidate paths of VS Code's own rg for an app root, in the order tried. */
export function ripgrepCandidates(appRoot: string, platform: NodeJS.Platform = process.platform): string[] {
  const exe = platform === 'win32' ? 'rg.exe' : 'rg';
  const out: string[] = [];
  for (const nm of ['node_modules', 'node_modules.asar.unpacked']) {
    out.push(path.join(appRoot, nm, '@vscode', 'ripgrep', 'bin', exe));
    out.push(path.join(appRoot, nm, 'vscode-ripgrep', 'bin', exe)); // older VS Code builds
  }
  return out;
}

function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** `rg` on PATH, or null. */
export function ripgrepOnPath(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string | null {
  const exe = platform === 'win32' ? 'rg.exe' : 'rg';
  for (const dir of (env.PATH ?? env.Path ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, exe);
    if (isExecutable(p)) return p;
  }
  return null;
}

/** The rg to use: VS Code's (under `appRoot`), else PATH's, else null (search then loads every file). */
export function findRipgrep(appRoot: string | null): string | null {
  if (appRoot) for (const p of ripgrepCandidates(appRoot)) if (isExecutable(p)) return p;
  return ripgrepOnPath();
}
