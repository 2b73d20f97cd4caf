/**
 * Command tables: each feature lists its commands as `{ id, run }` rows (its ids are a contract
 * with package.json, the e2e tests and users' keybindings) and the composition root registers every
 * table in one place. No runtime import of `vscode`: the registration takes the register function,
 * so the tables' shape is checked by unit tests without VS Code.
 */
import type * as vscode from 'vscode';

/** One command: its id (`trajectoryInspector.…`) and what it runs with the command's arguments. */
export interface Command {
  readonly id: string;
  readonly run: (...args: never[]) => unknown;
}

/** The commands of one feature. */
export type CommandTable = readonly Command[];

/** How a command is registered: `vscode.commands.registerCommand` in the extension. */
export type RegisterCommand = (id: string, run: (...args: unknown[]) => unknown) => vscode.Disposable;

/**
 * Registers every command of `tables` (keyed by feature name, for the error message).
 * @returns the registrations, to dispose with the extension
 * @throws Error when an id appears twice, in one table or in two (nothing is registered then)
 */
export function registerCommandTables(tables: Readonly<Record<string, CommandTable>>, register: RegisterCommand): vscode.Disposable[] {
  const owner = new Map<string, string>();
  for (const [feature, table] of Object.entries(tables)) {
    for (const c of table) {
      const before = owner.get(c.id);
      if (before !== undefined) throw new Error(`command ${c.id} is in the ${before} and the ${feature} command tables`);
      owner.set(c.id, feature);
    }
  }
  return Object.values(tables).flatMap((table) => table.map((c) => register(c.id, c.run as (...args: unknown[]) => unknown)));
}

/** The ids of `tables` that package.json does not contribute, and the contributed ids no table has. */
export function unmatchedCommands(tables: Readonly<Record<string, CommandTable>>, contributed: readonly string[], internal: readonly string[] = []): { notContributed: string[]; notRegistered: string[] } {
  const ids = new Set(commandIdsOf(tables));
  const declared = new Set(contributed);
  return {
    notContributed: [...ids].filter((id) => !declared.has(id) && !internal.includes(id)).sort(),
    notRegistered: [...declared].filter((id) => !ids.has(id)).sort(),
  };
}

/** Every id of `tables`, in table order. */
export function commandIdsOf(tables: Readonly<Record<string, CommandTable>>): string[] {
  return Object.values(tables).flatMap((t) => t.map((c) => c.id));
}
