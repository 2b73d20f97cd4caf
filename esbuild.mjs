// Builds the three bundles: the extension host (node, cjs, vscode external), the webview (browser, esm) and the CLI.
// Usage: node esbuild.mjs [--production] [--watch]
import * as esbuild from 'esbuild';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
// mainFields: prefer ESM builds; jsonc-parser's UMD main does dynamic requires esbuild cannot follow.
const common = { bundle: true, mainFields: ['module', 'main'], minify: production, sourcemap: !production, sourcesContent: false, logLevel: 'warning' };

const STYLE_NONCE_MODULE = fileURLToPath(new URL('./webview/styleNonce.ts', import.meta.url));

/**
 * Makes xterm.js's DOM renderer fit the webview's strict CSP (no 'unsafe-inline' for styles).
 * xterm 6 writes CSS at runtime in two ways the CSP blocks:
 *   - three `<style>` elements (DomRenderer theme + dimensions, Viewport scrollbar) filled through
 *     textContent: they are created through `styleElement()` from webview/styleNonce.ts,
 *     which gives them the page's CSP nonce (the policy allows `style-src 'nonce-…'`);
 *   - `setAttribute('style', …)` for 24-bit colours (DomRendererRowFactory._addStyle): rewritten to
 *     append to `element.style.cssText` (CSSOM, which CSP does not govern).
 * Each rewrite must match exactly as often as expected, else the build fails: an xterm upgrade
 * that changes these spots has to be looked at again (the webview tier asserts zero CSP violations).
 */
const xtermCspPlugin = {
  name: 'xterm-csp',
  setup(build) {
    build.onLoad({ filter: /[\\/]@xterm[\\/]xterm[\\/]lib[\\/]xterm\.mjs$/ }, (args) => {
      let src = readFileSync(args.path, 'utf8');
      let styles = 0;
      src = src.replace(/([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\.createElement\("style"\)/g, (_m, doc) => {
        styles++;
        return `__tiStyleElement(${doc})`;
      });
      let attrs = 0;
      src = src.replace(
        /_addStyle\(([\w$]+),([\w$]+)\)\{\1\.setAttribute\("style",`\$\{\1\.getAttribute\("style"\)\|\|""\}\$\{\2\};`\)\}/g,
        (_m, el, style) => {
          attrs++;
          return `_addStyle(${el},${style}){${el}.style.cssText+=${style}+";"}`;
        },
      );
      const left = (src.match(/setAttribute\("style"/g) ?? []).length;
      if (styles !== 3 || attrs !== 1 || left !== 0) {
        return {
          errors: [{ text: `xterm-csp: expected 3 createElement("style") and 1 _addStyle setAttribute("style") in ${args.path}, found ${styles} and ${attrs} (${left} setAttribute("style") left); re-check the CSP patch for this xterm version` }],
        };
      }
      src = `import { styleElement as __tiStyleElement } from ${JSON.stringify(STYLE_NONCE_MODULE)};\n${src}`;
      return { contents: src, loader: 'js', resolveDir: fileURLToPath(new URL('.', import.meta.url)) };
    });
  },
};

// docker-modem (dockerode) requires ssh2 for ssh:// hosts; ssh2 loads native addons: stub it.
const nodeAlias = { ssh2: fileURLToPath(new URL('./src/core/replay/ssh2Stub.ts', import.meta.url)) };

const targets = [
  { ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js',
    platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'], alias: nodeAlias },
  { ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js',
    platform: 'node', format: 'cjs', target: 'node20', alias: nodeAlias, banner: { js: '#!/usr/bin/env node' },
    define: { __VERSION__: JSON.stringify(pkg.version) } },
  // The load worker (issue 7): core loadFile in a worker thread of the extension host (src/host/loadWorker.ts).
  { ...common, entryPoints: ['src/core/loadWorkerMain.ts'], outfile: 'dist/loadWorker.js',
    platform: 'node', format: 'cjs', target: 'node20' },
  // The built-in scorer: its own process speaking the scorer protocol (docs/scorer-protocol.md).
  { ...common, entryPoints: ['src/scorers/builtin/main.ts'], outfile: 'dist/scorers/builtin.js',
    platform: 'node', format: 'cjs', target: 'node20' },
  // CSS imported by the webview (xterm.css) becomes a string that components adopt as a constructed
  // stylesheet (Lit unsafeCSS): no <style> element, no extra file to serve.
  { ...common, entryPoints: ['webview/main.ts'], outfile: 'dist/webview.js',
    platform: 'browser', format: 'esm', target: 'es2022', tsconfig: 'tsconfig.webview.json',
    loader: { '.css': 'text' }, plugins: [xtermCspPlugin] },
  // The compare / group page (issue 8): its own small bundle (no xterm).
  { ...common, entryPoints: ['webview/compare-main.ts'], outfile: 'dist/compare.js',
    platform: 'browser', format: 'esm', target: 'es2022', tsconfig: 'tsconfig.webview.json' },
];

const contexts = await Promise.all(targets.map((t) => esbuild.context(t)));
if (watch) {
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  await Promise.all(contexts.map((c) => c.rebuild()));
  await Promise.all(contexts.map((c) => c.dispose()));
}
