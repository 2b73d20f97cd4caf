/**
 * The command tables (src/host/commandTable.ts): registration in one place refuses a duplicate id,
 * and the features' tables together register exactly the commands package.json contributes (plus
 * the internal ones src/host/app.ts lists). The feature modules import `vscode`; here they get an
 * inert stand-in, enough to build their tables (a table's rows call nothing until a command runs).
 */
import * as assert from 'node:assert/strict';
import Module from 'node:module';
import { registerCommandTables, unmatchedCommands, type CommandTable } from '../../../src/host/commandTable';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const pkg = require('../../../package.json');
const contributed: string[] = pkg.contributes.commands.map((c: { command: string }) => c.command);

/** Anything: every property, call and `new` gives itself back. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const inert: any = new Proxy(function () {}, { get: (_t, k) => (k === 'then' ? undefined : k === Symbol.toPrimitive ? () => '' : inert), apply: () => inert, construct: () => inert });

/** Loads `fn`'s modules with `vscode` replaced by the inert stand-in. */
function withVscodeStub<T>(fn: () => T): T {
  const mod = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const load = mod._load;
  mod._load = function (request: string, ...rest: unknown[]) {
    return request === 'vscode' ? inert : load.call(this, request, ...rest);
  };
  try {
    return fn();
  } finally {
    mod._load = load;
  }
}

/** Every feature's table, built as host/app.ts builds them (the dependencies are stand-ins). */
function featureTables(): { tables: Record<string, CommandTable>; internal: readonly string[] } {
  return withVscodeStub(() => {
    /* eslint-disable @typescript-eslint/no-require-imports */
    const { INTERNAL_COMMANDS } = require('../../../src/host/app');
    const { rolloutsCommands, timelineCommands } = require('../../../src/host/commands');
    const { labelCommands } = require('../../../src/host/labelCommands');
    const { compareCommands, searchCommands } = require('../../../src/host/compare/compareCommands');
    const { dumpSearchCommands } = require('../../../src/host/dumpSearch');
    const { scoringCommands } = require('../../../src/host/scoring/commands');
    const { ReplayController } = require('../../../src/host/replay/controller');
    const { BranchController } = require('../../../src/host/branch/controller');
    const { SessionsView } = require('../../../src/host/sessionsView');
    const { stepLinkCommands } = require('../../../src/host/stepLinks');
    const { exportCommands } = require('../../../src/host/exportCommands');
    const { StepFiles } = require('../../../src/host/stepFiles');
    /* eslint-enable @typescript-eslint/no-require-imports */
    return {
      internal: INTERNAL_COMMANDS,
      tables: {
        timeline: timelineCommands(inert),
        rollouts: rolloutsCommands(inert, inert),
        labels: labelCommands(inert),
        replay: ReplayController.prototype.commands.call(inert),
        branch: BranchController.prototype.commands.call(inert),
        compare: compareCommands(inert, inert),
        search: searchCommands(inert),
        scoring: scoringCommands(inert, inert, inert),
        dumpSearch: dumpSearchCommands(inert, inert, null),
        sessions: SessionsView.prototype.commands.call(inert),
        stepLinks: stepLinkCommands(inert, inert, 'p.n'),
        export: exportCommands(inert, inert),
        stepFiles: StepFiles.prototype.commands.call(inert),
      },
    };
  });
}

describe('host/commandTable: one table per feature, registered in one place', () => {
  it('registers every row, and nothing when an id is in two tables', () => {
    const registered: string[] = [];
    const register = (id: string) => (registered.push(id), { dispose: () => undefined });
    const run = () => undefined;
    assert.equal(registerCommandTables({ a: [{ id: 'x.one', run }], b: [{ id: 'x.two', run }, { id: 'x.three', run }] }, register).length, 3);
    assert.deepEqual(registered, ['x.one', 'x.two', 'x.three']);
    registered.length = 0;
    assert.throws(() => registerCommandTables({ a: [{ id: 'x.one', run }], b: [{ id: 'x.one', run }] }, register), /x\.one is in the a and the b command tables/);
    assert.deepEqual(registered, []);
  });

  it('the features register exactly the commands package.json contributes, and the internal ones', () => {
    const { tables, internal } = featureTables();
    const registered: string[] = [];
    registerCommandTables(tables, (id) => (registered.push(id), { dispose: () => undefined }));
    assert.deepEqual(unmatchedCommands(tables, contributed, internal), { notContributed: [], notRegistered: [] });
    for (const id of internal) assert.ok(registered.includes(id), `${id} is registered`);
    assert.equal(registered.length, contributed.length + internal.length);
  });
});
