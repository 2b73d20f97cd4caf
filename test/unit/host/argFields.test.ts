/**
 * Tool arguments as fields (webview/argFields.ts), on real tool calls of the formats in
 * ../shared/samples that record them: a string argument (an OpenHands edit's `file_text`,
 * `new_str`) is its own text with real line breaks, never an escaped JSON string; serialised
 * arguments (a JSON string) read the same; what is not a key → value object is left as it was.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadFile } from '../../../src/core/load';
import type { Action, Rollout } from '../../../src/core/model';
import { argFields } from '../../../webview/argFields';
import { SAMPLES_DIR } from '../samples';

function toolCalls(rs: readonly Rollout[]): Action[] {
  return rs.flatMap((r) => r.steps.flatMap((s) => s.actions.filter((a) => a.command === null && a.arguments !== undefined && a.arguments !== null)));
}

describe('tool arguments as fields', () => {
  it('shows a multi-line string argument as a text block with real line breaks', () => {
    const args = { command: 'create', path: '/testbed/a.py', file_text: 'def f():\n    return "x"\n' };
    const f = argFields(args);
    assert.deepEqual(f?.map((x) => [x.name, x.block]), [['command', false], ['path', false], ['file_text', true]]);
    assert.equal(f?.[2].value, 'def f():\n    return "x"\n');
    assert.deepEqual(argFields(JSON.stringify(args)), f, 'serialised arguments read the same');
    assert.deepEqual(argFields({ n: 3, ok: true, none: null, list: [1, 2] })?.map((x) => x.value), ['3', 'true', 'null', '[\n  1,\n  2\n]']);
    assert.equal(argFields('ls -la'), null);
    assert.equal(argFields([1, 2]), null);
    assert.equal(argFields({}), null);
    assert.equal(argFields('{not json'), null);
  });

  it('every string argument of a real tool call is shown as written', async function () {
    this.timeout(120_000);
    const dirs = ['openhands', 'atif', 'openai-chat', 'openai-responses', 'inspect'].map((d) => path.join(SAMPLES_DIR, d)).filter((d) => fs.existsSync(d));
    let calls = 0;
    let blocks = 0;
    for (const dir of dirs) {
      for (const name of fs.readdirSync(dir).slice(0, 40)) {
        const file = path.join(dir, name);
        if (!fs.statSync(file).isFile() || fs.statSync(file).size > 20_000_000) continue;
        let rollouts: Rollout[];
        try {
          rollouts = (await loadFile(file)).rollouts;
        } catch {
          continue;
        }
        for (const a of toolCalls(rollouts)) {
          const fields = argFields(a.arguments);
          if (!fields) continue;
          calls++;
          const raw = (typeof a.arguments === 'string' ? JSON.parse(a.arguments) : a.arguments) as Record<string, unknown>;
          for (const fl of fields) {
            if (fl.block) blocks++;
            if (typeof raw[fl.name] === 'string') assert.equal(fl.value, raw[fl.name], `${name} ${a.tool} ${fl.name}: the string as it is`);
            assert.ok(!(fl.value.includes('\\n') && !String(JSON.stringify(raw[fl.name])).includes('\\\\n')), `${name} ${a.tool} ${fl.name}: no escaped line break`);
          }
        }
      }
    }
    assert.ok(calls >= 10, `real tool calls seen: ${calls}`);
    assert.ok(blocks > 0, 'some argument is a multi-line text block');
  });
});
