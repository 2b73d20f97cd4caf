/**
 * Activation (src/extension.ts → src/host/app.ts `App.create`): when building the extension
 * fails, the user is told (`reportError`: an error message with *Show Log*, the error in the log),
 * what was built is disposed, the output channel stays, and `activate` does not throw. The host
 * modules import `vscode`; here they get a stand-in whose window records what is shown and logged,
 * and everything else is inert (as in commandTable.test.ts).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import Module from 'node:module';
import * as path from 'node:path';

/** Anything: every property, call and `new` gives itself back. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const inert: any = new Proxy(function () {}, { get: (_t, k) => (k === 'then' ? undefined : k === Symbol.toPrimitive ? () => '' : inert), apply: () => inert, construct: () => inert });

interface Recorded {
  shown: string[];
  logged: string[];
  disposed: number;
}

const SRC = path.resolve(__dirname, '../../../src');

/** Every `vscode.<name>` the extension's sources use (the compiled `import * as vscode` copies the module's own names). */
function apiNames(): string[] {
  const names = new Set<string>();
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts')) for (const m of fs.readFileSync(p, 'utf8').matchAll(/\bvscode\.([A-Za-z]+)/g)) names.add(m[1]);
    }
  };
  walk(path.join(SRC, 'host'));
  return [...names];
}

/** A `vscode` whose window records error messages and the output channel's error lines; the rest is inert. */
function fakeVscode(rec: Recorded): unknown {
  const channel = new Proxy(
    {
      error: (m: string) => void rec.logged.push(m),
      dispose: () => void rec.disposed++,
    },
    { get: (t, k) => (k in t ? t[k as keyof typeof t] : k === 'then' ? undefined : () => undefined) },
  );
  const window = new Proxy(
    {
      createOutputChannel: () => channel,
      showErrorMessage: (m: string) => (rec.shown.push(m), Promise.resolve(undefined)),
    },
    { get: (t, k) => (k in t ? t[k as keyof typeof t] : inert) },
  );
  const api: Record<string, unknown> = {};
  for (const name of apiNames()) api[name] = inert;
  api.window = window;
  return api;
}

/** Forgets the loaded src/host modules and the entry, so each load binds the `vscode` given. */
function forgetHostModules(): void {
  for (const k of Object.keys(require.cache)) {
    if (k.startsWith(path.join(SRC, 'host')) || k === path.join(SRC, 'extension.ts')) delete require.cache[k];
  }
}

/** Loads src/extension.ts with `vscode` replaced by `vscode`. */
function loadEntry(vscode: unknown): { activate: (c: unknown) => void; deactivate: () => unknown } {
  const mod = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const load = mod._load;
  forgetHostModules();
  mod._load = function (request: string, ...rest: unknown[]) {
    return request === 'vscode' ? vscode : load.call(this, request, ...rest);
  };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('../../../src/extension');
  } finally {
    mod._load = load;
  }
}

describe('host/app: a failed activation is told to the user and does not throw', () => {
  after(forgetHostModules);

  it('activate: a part of the build throws → an error message with Show Log, the error logged, nothing thrown', async () => {
    const rec: Recorded = { shown: [], logged: [], disposed: 0 };
    const { activate, deactivate } = loadEntry(fakeVscode(rec));
    const subscriptions: { dispose(): unknown }[] = [];
    const context = {
      subscriptions,
      // The load workers' script path is asked for early in the build: this part of activation fails.
      asAbsolutePath: (p: string) => {
        throw new Error(`no ${p} in this test`);
      },
      globalStorageUri: { fsPath: path.join(SRC, '..', '.test-artifacts', 'activation') },
      extensionUri: inert,
      workspaceState: inert,
      extension: { packageJSON: {} },
    };
    assert.doesNotThrow(() => activate(context));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(rec.shown, ['Trajectory Inspector: the extension could not start: no dist/loadWorker.js in this test']);
    assert.equal(rec.logged.length, 1);
    assert.match(rec.logged[0], /^the extension could not start: Error: no dist\/loadWorker\.js in this test\n\s+at /, 'logged with its stack');
    // Only the output channel is left to VS Code (its log can still be read); no App was registered.
    assert.equal(subscriptions.length, 1);
    assert.equal(rec.disposed, 0, 'the output channel is not disposed');
    assert.equal(deactivate(), undefined, 'nothing to wait for after a failed start');
  });
});
