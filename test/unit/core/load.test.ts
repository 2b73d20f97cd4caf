import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RolloutLoadError, UnknownFormatError } from '../../../src/core/errors';
import { decodeUtf8, loadFile, loadPath, makeInput } from '../../../src/core/load';
import { nodeFiles } from '../../../src/core/nodeFiles';
import { LOADERS } from '../../../src/core/formats/registry';
import { censusFile, sample, tmpDir } from '../samples';


describe('core/load', () => {
  it('rejects invalid UTF-8 with the position of the bad byte', () => {
    const bytes = Buffer.concat([Buffer.from('{\n "a": "ok",\n "b": "'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    assert.throws(() => decodeUtf8('/bad.json', bytes), (e: unknown) => {
      assert.ok(e instanceof RolloutLoadError);
      assert.equal(e.issues[0].line, 3);
      assert.equal(e.issues[0].expected, 'UTF-8 text');
      return true;
    });
  });

  it('rejects binary data', () => {
    assert.throws(() => decodeUtf8('/b.bin', Buffer.from([0x7b, 0x00, 0x01, 0x02])), /binary data/);
  });

  it('treats multi-line JSON as one document and one-object-per-line as JSONL', () => {
    const json = makeInput('/a.json', '{\n  "a": 1\n}\n', nodeFiles);
    assert.ok(json.doc && json.lines === null);
    const jsonl = makeInput('/a.json', '{"a": 1}\n{"a": 2}\n', nodeFiles);
    assert.ok(jsonl.doc === null && jsonl.lines?.length === 2);
    assert.deepEqual(jsonl.firstLineValue, { a: 1 });
  });

  it('reads pretty-printed JSON values back to back as several values, also under a .jsonl name', () => {
    const one = JSON.stringify({ a: 1, b: [1, 2] }, null, 2);
    for (const name of ['/x.json', '/x.jsonl']) {
      const input = makeInput(name, `${one}\n${one}\n`, nodeFiles);
      assert.equal(input.linesKind, 'concatenated', name);
      assert.deepEqual(input.lines?.map((l) => l.line), [1, one.split('\n').length + 1]);
      assert.deepEqual(input.firstLineValue, { a: 1, b: [1, 2] });
    }
  });

  it('names every format tried when no loader accepts a file', async () => {
    const dir = tmpDir();
    const f = path.join(dir, 'other.json');
    fs.writeFileSync(f, JSON.stringify({ hello: 'world' }));
    await assert.rejects(loadFile(f), (e: unknown) => {
      assert.ok(e instanceof UnknownFormatError);
      assert.equal(e.declined.length, LOADERS.length);
      for (const l of LOADERS) assert.ok(e.message.includes(l.label), `message names ${l.label}`);
      return true;
    });
  });

  it('reports an empty file and a missing file with located errors', async () => {
    const dir = tmpDir();
    fs.writeFileSync(path.join(dir, 'empty.traj'), '');
    await assert.rejects(loadFile(path.join(dir, 'empty.traj')), /expected a JSON value, found an empty file/);
    await assert.rejects(loadFile(path.join(dir, 'nope.traj')), /expected a readable file/);
  });

  it('loads every good file of a folder and reports each bad one without stopping', async () => {
    const dir = tmpDir();
    fs.copyFileSync(sample('swe-agent/6e44b9__sweagenttestrepo-1c2844.traj'), path.join(dir, 'good.traj'));
    const text = fs.readFileSync(sample('swe-agent/6e44b9__sweagenttestrepo-1c2844.traj'), 'utf8');
    fs.writeFileSync(path.join(dir, 'broken.traj'), text.slice(0, Math.floor(text.length / 2)));
    fs.writeFileSync(path.join(dir, 'settings.json'), '{"editor.fontSize": 12}'); // not a rollout: skipped quietly
    const res = await loadPath(dir);
    assert.deepEqual(res.files.map((f) => path.basename(f.path)), ['good.traj']);
    assert.deepEqual(res.failures.map((f) => path.basename(f.path)), ['broken.traj']);
    assert.deepEqual(res.skipped.map((f) => path.basename(f)), ['settings.json']);
    assert.ok(res.failures[0].error instanceof RolloutLoadError);
  });

  it('says so when a folder holds no rollout', async () => {
    const res = await loadPath(tmpDir());
    assert.equal(res.files.length, 0);
    assert.match(res.failures[0].error.message, /none in this folder/);
  });
});

describe('core/load: folders of coding-agent sessions', () => {
  it('a Claude Code session folder lists the session only: its subagent transcript and meta file are reached from it, not skipped', async () => {
    const sid = '258c7280-ae70-4798-800f-63464d01a85d';
    const dir = tmpDir('ti-load-claude-');
    fs.copyFileSync(censusFile(`claude-code/${sid}.jsonl`), path.join(dir, `${sid}.jsonl`));
    const subs = path.join(dir, sid, 'subagents');
    fs.mkdirSync(subs, { recursive: true });
    fs.copyFileSync(censusFile('claude-code/258c7280_subagents_agent-a881341.jsonl'), path.join(subs, 'agent-a881341.jsonl'));
    fs.writeFileSync(path.join(subs, 'agent-a881341.meta.json'), JSON.stringify({ toolUseId: 'toolu_x' }));
    const res = await loadPath(dir);
    assert.deepEqual(res.files.map((f) => path.relative(dir, f.path)), [`${sid}.jsonl`]);
    assert.deepEqual(res.skipped, []);
    assert.deepEqual(res.failures, []);
    const link = res.files[0].rollouts[0].steps.flatMap((s) => s.links ?? [])[0];
    assert.equal(link.path, path.join(subs, 'agent-a881341.jsonl'));
  });

  it('a Cline task folder: ui_messages.json is joined into the history, not counted as skipped', async () => {
    const dir = tmpDir('ti-load-cline-');
    fs.copyFileSync(censusFile('cline-roo/api_conversation_history.json'), path.join(dir, 'api_conversation_history.json'));
    fs.writeFileSync(path.join(dir, 'ui_messages.json'), '[]');
    const res = await loadPath(dir);
    assert.deepEqual(res.files.map((f) => [path.basename(f.path), f.format]), [['api_conversation_history.json', 'cline']]);
    assert.deepEqual(res.skipped, []);
  });
});
