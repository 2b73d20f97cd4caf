/**
 * The extension's settings as VS Code holds them: `readSettings(scope)` reads every
 * `trajectoryInspector.*` setting into the typed `Settings` (host/readSettings.ts), `SettingsWatcher`
 * is the one listener to their changes, and `updateUserSetting` writes one. Adding a setting: declare
 * it in package.json, give it a default in src/shared/settings.ts `SETTING_DEFAULTS`, read it in
 * host/readSettings.ts.
 */
import * as vscode from 'vscode';
import type { SettingKey } from '../shared/settings';
import { SECTION, readSettingsFrom, type Settings } from './readSettings';

export { SECTION, type Settings, type NeutralMapping } from './readSettings';

/** Reads every setting for `scope` (a rollout file or folder: resource-scoped settings differ per folder). */
export function readSettings(scope?: vscode.ConfigurationScope): Settings {
  const c = vscode.workspace.getConfiguration(SECTION, scope);
  return readSettingsFrom({
    get: (key) => c.get<unknown>(key),
    userValue: (key) => {
      const i = c.inspect<unknown>(key);
      return i?.globalValue ?? i?.defaultValue;
    },
    isSet: (key) => {
      const i = c.inspect<unknown>(key);
      return !!i && (i.globalValue !== undefined || i.workspaceValue !== undefined || i.workspaceFolderValue !== undefined);
    },
    trusted: vscode.workspace.isTrusted,
  });
}

/** Writes `key` in the user settings. */
export function updateUserSetting(key: SettingKey, value: unknown): Thenable<void> {
  return vscode.workspace.getConfiguration(SECTION).update(key, value, vscode.ConfigurationTarget.Global);
}

/** A change to the extension's settings. */
export interface SettingsChange {
  /** Whether the change touches `key` or a group of keys (`'scorer'`, `'labels.annotator'`). */
  affects(key: string): boolean;
}

/** The one listener to the extension's settings: fires once per change of any `trajectoryInspector.*` setting. */
export class SettingsWatcher implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<SettingsChange>();
  private readonly listener: vscode.Disposable;
  /** Fires after a `trajectoryInspector.*` setting changed; read the new values with `readSettings`. */
  readonly onDidChange = this.emitter.event;

  constructor() {
    this.listener = vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration(SECTION)) return;
      this.emitter.fire({ affects: (key) => e.affectsConfiguration(`${SECTION}.${key}`) });
    });
  }

  dispose(): void {
    this.listener.dispose();
    this.emitter.dispose();
  }
}
