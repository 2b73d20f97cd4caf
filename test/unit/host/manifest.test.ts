/**
 * The names package.json contributes: the editor and its commands carry the product's name, never a
 * bare "Timeline" (VS Code has its own Timeline view and *Open Timeline* command beside them), while
 * the command ids stay as keybindings and tests know them.
 */
import * as assert from 'node:assert/strict';

interface Command { command: string; title: string; category?: string; shortTitle?: string }

// eslint-disable-next-line @typescript-eslint/no-require-imports
const pkg = require('../../../package.json');

describe('package.json: the names the product contributes', () => {
  it('names its custom editor after the product', () => {
    const editors = pkg.contributes.customEditors as { viewType: string; displayName: string }[];
    const timeline = editors.find((e) => e.viewType === 'trajectoryInspector.timeline');
    assert.ok(timeline, 'the editor keeps its view type');
    assert.equal(timeline.displayName, pkg.displayName);
  });

  it('uses no bare "Timeline" in a command title, menu label or welcome link', () => {
    const commands = pkg.contributes.commands as Command[];
    for (const c of commands) {
      for (const text of [c.title, c.shortTitle ?? '']) {
        assert.doesNotMatch(text, /\btimeline\b/i, `${c.command}: "${text}" reads like VS Code's own Timeline`);
      }
    }
    for (const w of pkg.contributes.viewsWelcome as { contents: string }[]) {
      for (const [, label] of w.contents.matchAll(/\[([^\]]+)\]\(command:/g)) {
        assert.doesNotMatch(label, /\btimeline\b/i, `welcome link "${label}"`);
      }
    }
  });

  it('opens a file "in Trajectory Inspector", under its old command id', () => {
    const commands = pkg.contributes.commands as Command[];
    const open = commands.find((c) => c.command === 'trajectoryInspector.openWithTimeline');
    assert.ok(open, 'the command id is kept (keybindings, tests)');
    const palette = open.category ? `${open.category}: ${open.title}` : open.title;
    assert.equal(palette, 'Open in Trajectory Inspector');
    const session = commands.find((c) => c.command === 'trajectoryInspector.openSession');
    assert.match(session?.title ?? '', /Trajectory Inspector/);
  });
});
