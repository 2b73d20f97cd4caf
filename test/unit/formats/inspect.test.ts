/**
 * Inspect AI loader on the real logs in `../shared/samples/inspect/` (`log_read_sample.{json,eval}`,
 * `log_tool_call_error.json`, from inspect_ai `tests/log/test_eval_log/`). Variants (zstd entries,
 * the chunked per-sample layout, several epochs, cut or corrupt archives, wrong types) are generated
 * from those files in the tests; expected values are read out of the files themselves.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RolloutLoadError } from '../../../src/core/errors';
import { inspectLoader, scoreValueToNumber } from '../../../src/core/formats/inspect';
import { loadFile, makeInput } from '../../../src/core/load';
import { nodeFiles } from '../../../src/core/nodeFiles';
import { ZipArchive, type ZipEntry } from '../../../src/core/zip';
import type { Rollout, Step } from '../../../src/core/model';
import { position, sample, sampleJson, tmpDir } from '../samples';
import { writeZip, type Entry } from '../zipWriter';

const READ_JSON = 'inspect/log_read_sample.json';
const READ_EVAL = 'inspect/log_read_sample.eval';
const TOOL_ERR = 'inspect/log_tool_call_error.json';

// ---------------------------------------------------------------------------------------------
// Helpers: ZIP entries of the real .eval, and a small ZIP writer for generated variants

/** The entries of a real .eval, decompressed, in archive order. */
async function evalEntries(rel = READ_EVAL): Promise<Entry[]> {
  const zip = await ZipArchive.open(fs.readFileSync(sample(rel)));
  return Promise.all(zip.names.map(async (name) => ({ name, data: Buffer.from(await zip.bytes(name)) })));
}

/** The central directory of an archive (names, offsets, sizes, CRCs), to corrupt generated variants. */
async function readZipDirectory(b: Buffer): Promise<readonly ZipEntry[]> {
  return (await ZipArchive.open(b)).entries;
}

function entryJson(entries: Entry[], name: string): any {
  const e = entries.find((x) => x.name === name);
  assert.ok(e, `entry ${name}`);
  return JSON.parse(e.data.toString('utf8'));
}

function write(name: string, data: Buffer | string): string {
  const f = path.join(tmpDir(), name);
  fs.writeFileSync(f, data);
  return f;
}

async function loadOne(file: string): Promise<Rollout> {
  const r = await loadFile(file);
  assert.equal(r.format, 'inspect');
  assert.equal(r.rollouts.length, 1);
  return r.rollouts[0];
}

/** What two loads of the same conversation must agree on (ids, times and ranges differ between runs/files). */
function conversation(r: Rollout) {
  return r.steps.map((s: Step) => ({ role: s.role, message: s.message, reasoning: s.reasoning, actions: s.actions, observations: s.observations }));
}

/** 1-based line of the first occurrence of `needle` in `text`. */
function lineOf(text: string, needle: string): number {
  const at = text.indexOf(needle);
  assert.ok(at >= 0, `${needle} occurs in the text`);
  return position(text, at).line;
}

// ---------------------------------------------------------------------------------------------

describe('formats/inspect .json logs', () => {
  it('reads log_read_sample.json: one rollout per sample, steps from messages, score "C" → reward 1', async () => {
    const log = sampleJson(READ_JSON);
    const text = fs.readFileSync(sample(READ_JSON), 'utf8');
    const s = log.samples[0];
    const loaded = await loadFile(sample(READ_JSON));
    assert.equal(loaded.format, 'inspect');
    assert.equal(loaded.schemaVersion, String(log.version));
    assert.equal(loaded.rollouts.length, log.samples.length);
    const r = loaded.rollouts[0];
    assert.equal(r.id, `${log.eval.eval_id}:${s.id}_epoch_${s.epoch}`);
    assert.equal(r.groupId, `${log.eval.eval_id}:${s.id}`);
    assert.equal(r.task.id, `${log.eval.task}/${s.id}`);
    assert.equal(r.task.instruction, s.input);
    assert.equal(r.agent.model, log.eval.model);
    assert.equal(r.agent.version, log.eval.packages.inspect_ai);
    assert.equal(r.agent.name, log.plan.steps.map((x: any) => x.solver).join(', '));

    // Steps are the messages, in order, with their ids and ranges.
    assert.deepEqual(r.steps.map((x) => x.role), ['system', 'user', 'agent']);
    assert.deepEqual(r.steps.map((x) => x.sourceId), s.messages.map((m: any) => m.id));
    assert.deepEqual(r.steps.map((x) => x.message), s.messages.map((m: any) => m.content));
    r.steps.forEach((x, k) => assert.deepEqual(JSON.parse(text.slice(x.range!.start, x.range!.end)), s.messages[k]));
    assert.deepEqual(JSON.parse(text.slice(r.source.range!.start, r.source.range!.end)), s);

    // The model event gives the agent step's time, tokens and duration.
    const model = s.events.find((e: any) => e.event === 'model');
    assert.equal(model.output.choices[0].message.id, s.messages[2].id);
    const agent = r.steps[2];
    assert.equal(agent.timestamp, model.timestamp);
    assert.equal(agent.durationSec, model.working_time);
    assert.deepEqual(agent.tokens, { prompt: model.output.usage.input_tokens, completion: model.output.usage.output_tokens, cached: null });
    // System and user steps: the event in which the message entered the conversation.
    const init = s.events.find((e: any) => e.event === 'sample_init');
    assert.equal(init.state.messages[0].id, s.messages[1].id);
    assert.equal(r.steps[1].timestamp, init.timestamp);
    const stateEv = s.events.find((e: any) => e.event === 'state' && e.changes.some((c: any) => c.path === '/messages/0/id' && c.value === s.messages[0].id));
    assert.equal(r.steps[0].timestamp, stateEv.timestamp);

    // Outcome: the match scorer's "C".
    assert.equal(s.scores.match.value, 'C');
    assert.equal(r.outcome.reward, 1);
    assert.deepEqual(r.outcome.rewards, { match: 1 });
    assert.equal(r.outcome.resolved, true);
    assert.equal(r.outcome.status, null);
    assert.equal(r.outcome.source, 'samples[0] scores.match');
    assert.deepEqual(r.metadata.scores, { match: { value: 'C', answer: s.scores.match.answer, explanation: s.scores.match.explanation } });
    assert.equal(r.metadata.workingTime, s.working_time);
  });

  it('reads log_tool_call_error.json: each tool message with its error type and text, the output-limit one truncated', async () => {
    const log = sampleJson(TOOL_ERR);
    const s = log.samples[0];
    const r = await loadOne(sample(TOOL_ERR));
    assert.equal(r.id, `${log.eval.run_id}:${s.id}_epoch_${s.epoch}`);
    assert.equal(r.metadata.epoch, 4);
    // No assistant message in this log: every tool message answers no call, so each is an environment step.
    assert.equal(r.steps.length, s.messages.length);
    assert.ok(r.steps.every((x) => x.role === 'environment' && x.observations.length === 1));
    assert.deepEqual(r.steps.map((x) => x.observations[0].callId), s.messages.map((m: any) => m.tool_call_id));
    const types = r.steps.map((x) => /^(?:[\s\S]*\n\n)?Error \(([a-z_]+)\): /.exec(x.observations[0].output)?.[1]);
    assert.deepEqual(types, s.messages.map((m: any) => m.error.type));
    // The timeout: content and error message are the same text, shown once with its type.
    const timeout = s.messages.findIndex((m: any) => m.error.type === 'timeout');
    assert.equal(r.steps[timeout].observations[0].output, `Error (timeout): ${s.messages[timeout].error.message}`);
    // The output limit: the truncated tool output, then the error text.
    const limit = s.messages.findIndex((m: any) => m.error.type === 'output_limit');
    const obs = r.steps[limit].observations[0];
    assert.equal(obs.output, `${s.messages[limit].content}\n\nError (output_limit): ${s.messages[limit].error.message}`);
    assert.match(obs.output, /The tool output limit of 10 MiB was exceeded\./);
    assert.equal(obs.truncated, true);
    assert.equal(r.steps.filter((x) => x.observations[0].truncated).length, 1);
    // Either sign of truncation suffices: the output_limit error alone, or Inspect's notice alone.
    const edited = sampleJson(TOOL_ERR);
    edited.samples[0].messages[limit].content = 'partial output';
    edited.samples[0].messages[0].content = s.messages[limit].content;
    delete edited.samples[0].messages[0].error;
    const r2 = await loadOne(write('log.json', JSON.stringify(edited)));
    assert.equal(r2.steps[limit].observations[0].truncated, true);
    assert.equal(r2.steps[0].observations[0].truncated, true);
    assert.equal(r2.steps[0].observations[0].output, s.messages[limit].content);
    assert.ok(r.steps.every((x) => x.observations[0].exitCode === null));
    // No scores in this log.
    assert.equal(r.outcome.reward, null);
    assert.equal(r.outcome.rewards, null);
    assert.equal(r.outcome.resolved, null);
  });

  it('maps score values as value_to_float does and keeps every scorer in rewards', async () => {
    assert.equal(scoreValueToNumber('C'), 1);
    assert.equal(scoreValueToNumber('P'), 0.5);
    assert.equal(scoreValueToNumber('I'), 0);
    assert.equal(scoreValueToNumber('N'), 0);
    assert.equal(scoreValueToNumber('Yes'), 1);
    assert.equal(scoreValueToNumber('false'), 0);
    assert.equal(scoreValueToNumber('0.25'), 0.25);
    assert.equal(scoreValueToNumber(true), 1);
    assert.equal(scoreValueToNumber(7), 7);
    assert.equal(scoreValueToNumber('c'), null);
    assert.equal(scoreValueToNumber('maybe'), null);
    assert.equal(scoreValueToNumber(null), null);
    assert.equal(scoreValueToNumber([1, 2]), null);

    const log = sampleJson(READ_JSON);
    const match = log.samples[0].scores.match;
    const cases: [unknown, number | null, boolean | null][] = [
      ['I', 0, false],
      ['P', 0.5, null],
      ['N', 0, false],
      [0.75, 0.75, null],
      [null, null, null],
    ];
    for (const [value, reward, resolved] of cases) {
      log.samples[0].scores = { match: { ...match, value }, judge: { value: { accuracy: 1, note: 'x', bonus: 'C' } } };
      const r = await loadOne(write('log.json', JSON.stringify(log, null, 2)));
      assert.equal(r.outcome.reward, reward, `reward of ${JSON.stringify(value)}`);
      assert.equal(r.outcome.resolved, resolved, `resolved of ${JSON.stringify(value)}`);
      assert.deepEqual(r.outcome.rewards, { ...(reward === null ? {} : { match: reward }), 'judge/accuracy': 1, 'judge/bonus': 1 });
    }
  });

  it('resolves attachment:// references from the sample attachments, counting unresolved ones', async () => {
    const log = sampleJson(READ_JSON);
    const s = log.samples[0];
    // The events of this sample refer to the system and user texts by hash; refer to them the same way from the messages.
    const modelEv = s.events.find((e: any) => e.event === 'model');
    const [sysRef, userRef] = modelEv.input.map((m: any) => m.content);
    assert.match(sysRef, /^attachment:\/\/[0-9a-f]{32}$/);
    const sysText = s.attachments[sysRef.slice('attachment://'.length)];
    assert.equal(sysText, s.messages[0].content);
    s.messages[0].content = sysRef;
    s.messages[1].content = [{ type: 'text', text: userRef }];
    s.input = userRef;
    s.messages[2].content = 'attachment://0123456789abcdef0123456789abcdef';
    const r = await loadOne(write('log.json', JSON.stringify(log, null, 2)));
    assert.equal(r.steps[0].message, sysText);
    assert.equal(r.steps[1].message, s.attachments[userRef.slice('attachment://'.length)]);
    assert.equal(r.task.instruction, r.steps[1].message);
    assert.equal(r.steps[2].message, 'attachment://0123456789abcdef0123456789abcdef');
    assert.deepEqual(r.metadata.attachments, { resolved: 3, unresolved: 1 });
  });

  it('reports samples[0].messages of the wrong type with pointer and line', async () => {
    const log = sampleJson(READ_JSON);
    log.samples[0].messages = 'not a list';
    const text = JSON.stringify(log, null, 2);
    await assert.rejects(loadFile(write('log.json', text)), (e: unknown) => {
      assert.ok(e instanceof RolloutLoadError);
      assert.equal(e.format, 'Inspect AI eval log');
      assert.equal(e.issues.length, 1);
      assert.equal(e.issues[0].pointer, '/samples/0/messages');
      assert.equal(e.issues[0].line, lineOf(text, '"messages": "not a list"'));
      assert.equal(e.issues[0].expected, 'array');
      assert.equal(e.issues[0].found, 'string "not a list"');
      return true;
    });
  });

  it('locates a bad message role and a tool event without a string id, all issues at once', async () => {
    const log = sampleJson(READ_JSON);
    log.samples[0].messages[1].role = 'robot';
    log.samples[0].events.push({ event: 'tool', id: 42, function: 'bash', timestamp: log.samples[0].events[0].timestamp });
    const j = log.samples[0].events.length - 1;
    const text = JSON.stringify(log, null, 2);
    await assert.rejects(loadFile(write('log.json', text)), (e: unknown) => {
      assert.ok(e instanceof RolloutLoadError);
      assert.deepEqual(e.issues.map((i) => i.pointer), ['/samples/0/messages/1/role', `/samples/0/events/${j}/id`]);
      assert.equal(e.issues[0].line, lineOf(text, '"role": "robot"'));
      assert.equal(e.issues[1].line, lineOf(text, '"id": 42'));
      assert.equal(e.issues[1].found, 'number 42');
      return true;
    });
  });

  it('says so when a log holds no samples', async () => {
    const log = sampleJson(READ_JSON);
    delete log.samples;
    const text = JSON.stringify(log, null, 2);
    await assert.rejects(loadFile(write('log.json', text)), (e: unknown) => {
      assert.ok(e instanceof RolloutLoadError);
      assert.equal(e.issues[0].pointer, '/samples');
      assert.match(e.issues[0].expected, /at least one sample/);
      return true;
    });
  });
});

describe('formats/inspect .eval logs', () => {
  it('reads log_read_sample.eval: the same conversation as the .json, ids from header.json, no text ranges', async () => {
    const entries = await evalEntries();
    const header = entryJson(entries, 'header.json');
    const s = entryJson(entries, 'samples/1_epoch_1.json');
    const loaded = await loadFile(sample(READ_EVAL));
    assert.equal(loaded.format, 'inspect');
    assert.equal(loaded.rollouts.length, entries.filter((e) => /^samples\/.+_epoch_\d+\.json$/.test(e.name)).length);
    const r = loaded.rollouts[0];
    assert.equal(r.id, `${header.eval.eval_id}:${s.id}_epoch_${s.epoch}`);
    assert.equal(r.metadata.logStatus, header.status);
    assert.equal(r.metadata.sampleSource, 'samples/1_epoch_1.json');
    assert.deepEqual(r.steps.map((x) => x.sourceId), s.messages.map((m: any) => m.id));
    assert.ok(r.steps.every((x) => x.range === null));
    assert.equal(r.source.range, null);
    const model = s.events.find((e: any) => e.event === 'model');
    assert.equal(r.steps[2].timestamp, model.timestamp);
    assert.equal(r.steps[2].tokens!.prompt, model.output.usage.input_tokens);
    assert.equal(r.outcome.reward, scoreValueToNumber(s.scores.match.value));

    // The .json of the same log gives the same steps.
    const fromJson = await loadOne(sample(READ_JSON));
    assert.deepEqual(conversation(r), conversation(fromJson));
    assert.deepEqual(r.steps.map((x) => x.role), fromJson.steps.map((x) => x.role));
    assert.deepEqual(r.outcome, { ...fromJson.outcome, source: 'samples/1_epoch_1.json scores.match' });
    assert.equal(r.task.id, fromJson.task.id);
  });

  it('decompresses only the header and sample entries (a corrupt summaries.json is never read)', async () => {
    const entries = (await evalEntries()).map((e) => (e.name === 'summaries.json' || e.name === 'reductions.json' ? { ...e, data: Buffer.from('{ not json') } : e));
    const zip = writeZip(entries, 8);
    // And a wrong CRC on summaries.json: reading it would fail.
    const dir = await readZipDirectory(zip);
    const sum = dir.find((e) => e.name === 'summaries.json')!;
    zip.writeUInt32LE((sum.crc32 ^ 1) >>> 0, sum.localOffset + 14);
    let cdAt = zip.readUInt32LE(zip.length - 22 + 16);
    for (const e of dir) {
      if (e.name === 'summaries.json') zip.writeUInt32LE((e.crc32 ^ 1) >>> 0, cdAt + 16);
      cdAt += 46 + Buffer.byteLength(e.name);
    }
    const r = await loadOne(write('log.eval', zip));
    assert.deepEqual(conversation(r), conversation(await loadOne(sample(READ_EVAL))));
  });

  it('reads zstd (method 93) entries, as current Inspect writes them', async function () {
    const entries = await evalEntries();
    const expected = conversation(await loadOne(sample(READ_EVAL)));
    const raw = await loadOne(write('log.eval', writeZip(entries, 93)));
    assert.deepEqual(conversation(raw), expected);
    // With a real zstd compressor when one is installed.
    if (spawnSync('zstd', ['--version']).status !== 0) return this.skip();
    const cli = (b: Buffer) => {
      const out = spawnSync('zstd', ['-q', '-c'], { input: b });
      assert.equal(out.status, 0);
      return out.stdout;
    };
    const compressed = writeZip(entries, 93, cli);
    assert.notEqual(compressed.indexOf(Buffer.from([0x28, 0xb5, 0x2f, 0xfd])), -1);
    assert.deepEqual(conversation(await loadOne(write('log.eval', compressed))), expected);
  });

  it('reads a log that is still running (only _journal/start.json, no header.json)', async () => {
    const entries = (await evalEntries()).filter((e) => e.name !== 'header.json');
    const start = entryJson(entries, '_journal/start.json');
    const r = await loadOne(write('log.eval', writeZip(entries, 8)));
    assert.equal(r.id.split(':')[0], start.eval.eval_id);
    assert.equal(r.metadata.logStatus, null);
    assert.equal(r.steps.length, 3);
  });

  it('reads several epochs in Inspect sample order with a shared group id', async () => {
    const entries = await evalEntries();
    const s = entryJson(entries, 'samples/1_epoch_1.json');
    const epoch2 = { ...s, epoch: 2, scores: { match: { ...s.scores.match, value: 'I' } } };
    const zip = writeZip([{ name: 'samples/1_epoch_2.json', data: Buffer.from(JSON.stringify(epoch2)) }, ...entries], 8);
    const loaded = await loadFile(write('log.eval', zip));
    assert.deepEqual(loaded.rollouts.map((r) => r.metadata.epoch), [1, 2]);
    assert.equal(loaded.rollouts[0].groupId, loaded.rollouts[1].groupId);
    assert.deepEqual(loaded.rollouts.map((r) => r.outcome.reward), [1, 0]);
  });

  it('reads the chunked per-sample layout (shell, message pool, events, indexed attachments)', async () => {
    const entries = await evalEntries();
    const s = entryJson(entries, 'samples/1_epoch_1.json');
    // As chunked/convert.py writes it: attachments become a sequence referenced by index, the
    // final conversation becomes message_refs into the messages sequence.
    const hashes = Object.keys(s.attachments);
    const renumber = (json: string) => json.replace(/attachment:\/\/([0-9a-f]{32})/g, (m, h) => (hashes.includes(h) ? `attachment://${hashes.indexOf(h)}` : m));
    const pool = s.messages.map((m: any) => {
      const ref = hashes.find((h) => s.attachments[h] === m.content);
      return ref ? { ...m, content: `attachment://${hashes.indexOf(ref)}` } : m;
    });
    const { messages: _m, events, attachments: _a, metadata, ...rest } = s;
    const shell = { ...rest, message_refs: [[0, pool.length]], sequences: { messages: [pool.length], events: [events.length], calls: [], attachments: [hashes.length] } };
    const prefix = 'samples/1_epoch_1';
    const chunked: Entry[] = [
      ...entries.filter((e) => !e.name.startsWith('samples/')),
      { name: `${prefix}/sample.json`, data: Buffer.from(JSON.stringify(shell)) },
      { name: `${prefix}/metadata.json`, data: Buffer.from(JSON.stringify(metadata)) },
      { name: `${prefix}/messages/0.json`, data: Buffer.from(renumber(JSON.stringify(pool))) },
      // events split in two chunks named by their first index
      { name: `${prefix}/events/0.json`, data: Buffer.from(renumber(JSON.stringify(events.slice(0, 5)))) },
      { name: `${prefix}/events/5.json`, data: Buffer.from(renumber(JSON.stringify(events.slice(5)))) },
      { name: `${prefix}/attachments/0.json`, data: Buffer.from(JSON.stringify(hashes.map((h) => s.attachments[h]))) },
    ];
    assert.ok(pool.some((m: any) => /^attachment:\/\/\d+$/.test(m.content)), 'some message text is an indexed attachment');
    const r = await loadOne(write('chunked.eval', writeZip(chunked, 93)));
    assert.equal(r.metadata.sampleLayout, 'chunked');
    assert.equal(r.metadata.sampleSource, `${prefix}/sample.json`);
    const monolith = await loadOne(sample(READ_EVAL));
    assert.deepEqual(conversation(r), conversation(monolith));
    assert.deepEqual(r.steps.map((x) => x.timestamp), monolith.steps.map((x) => x.timestamp));
    assert.ok((r.metadata.attachments as any).resolved >= 2);
  });

  it('names the entry a cut .eval ends in', async () => {
    const bytes = fs.readFileSync(sample(READ_EVAL));
    const dir = await readZipDirectory(bytes);
    const entry = dir.find((e) => e.name === 'samples/1_epoch_1.json')!;
    const dataStart = entry.localOffset + 30 + Buffer.byteLength(entry.name);
    const cut = dataStart + Math.floor(entry.compressedSize / 2);
    const f = write('cut.eval', bytes.subarray(0, cut));
    await assert.rejects(loadFile(f), (e: unknown) => {
      assert.ok(e instanceof RolloutLoadError);
      assert.equal(e.format, 'Inspect AI eval log');
      assert.equal(e.issues[0].file, f);
      assert.match(e.issues[0].expected, /complete ZIP archive/);
      assert.match(e.issues[0].found, new RegExp(`ends at byte ${cut} inside entry "samples/1_epoch_1\\.json"`));
      assert.match(e.issues[0].found, /complete entries before it: _journal\/start\.json/);
      return true;
    });
    // Cut inside the central directory: every entry is whole, the directory is not.
    const inDir = write('cut2.eval', bytes.subarray(0, bytes.length - 30));
    await assert.rejects(loadFile(inDir), (e: unknown) => {
      assert.ok(e instanceof RolloutLoadError);
      assert.match(e.issues[0].found, /no end-of-central-directory record/);
      assert.match(e.issues[0].found, /header\.json/);
      return true;
    });
  });

  it('names the entry whose data is corrupt', async () => {
    const bytes = Buffer.from(fs.readFileSync(sample(READ_EVAL)));
    const entry = (await readZipDirectory(bytes)).find((e) => e.name === 'samples/1_epoch_1.json')!;
    const dataStart = entry.localOffset + 30 + Buffer.byteLength(entry.name);
    for (let i = 0; i < 40; i++) bytes[dataStart + 100 + i] ^= 0x5a;
    await assert.rejects(loadFile(write('bad.eval', bytes)), (e: unknown) => {
      assert.ok(e instanceof RolloutLoadError);
      assert.match(e.issues[0].found, /^in entry "samples\/1_epoch_1\.json": (corrupt deflate data|a CRC-32 mismatch|\d+ bytes after decompression)/);
      return true;
    });
  });

  it('checks the CRC-32 of the entries it reads', async () => {
    const zip = writeZip(await evalEntries(), 0);
    const entry = (await readZipDirectory(zip)).find((e) => e.name === 'samples/1_epoch_1.json')!;
    const dataStart = entry.localOffset + 30 + Buffer.byteLength(entry.name);
    const at = zip.indexOf('"Yes', dataStart);
    assert.ok(at > dataStart && at < dataStart + entry.compressedSize);
    zip.write('"Yup', at);
    await assert.rejects(loadFile(write('crc.eval', zip)), (e: unknown) => {
      assert.ok(e instanceof RolloutLoadError);
      assert.equal(e.issues[0].found, 'in entry "samples/1_epoch_1.json": a CRC-32 mismatch (the entry is corrupt)');
      return true;
    });
  });

  it('locates a wrong type inside a sample entry by pointer, entry and entry line', async () => {
    const entries = await evalEntries();
    const s = entryJson(entries, 'samples/1_epoch_1.json');
    s.messages = { not: 'a list' };
    const text = JSON.stringify(s, null, 2);
    const bad = entries.map((e) => (e.name === 'samples/1_epoch_1.json' ? { ...e, data: Buffer.from(text) } : e));
    const f = write('bad.eval', writeZip(bad, 8));
    await assert.rejects(loadFile(f), (e: unknown) => {
      assert.ok(e instanceof RolloutLoadError);
      assert.equal(e.issues[0].file, f);
      assert.equal(e.issues[0].pointer, '/messages');
      assert.equal(e.issues[0].expected, 'array');
      const line = lineOf(text, '"messages": {');
      assert.equal(e.issues[0].found, `object {not} (in entry "samples/1_epoch_1.json", line ${line}, column 15)`);
      return true;
    });
  });

  it('loads the good samples of a log with one bad sample entry and reports the bad one', async () => {
    const entries = await evalEntries();
    const s = entryJson(entries, 'samples/1_epoch_1.json');
    const bad = { name: 'samples/2_epoch_1.json', data: Buffer.from(JSON.stringify({ ...s, id: 2, epoch: 'one' })) };
    const loaded = await loadFile(write('log.eval', writeZip([...entries, bad], 8)));
    assert.equal(loaded.rollouts.length, 1);
    assert.equal(loaded.issues?.length, 1);
    assert.equal(loaded.issues![0].pointer, '/epoch');
    assert.match(loaded.issues![0].found, /in entry "samples\/2_epoch_1\.json"/);
    assert.equal((loaded.rollouts[0].metadata.warnings as string[]).length, 1);
  });

  it('declines a ZIP that is not an Inspect log, and JSON that is not one', () => {
    const zip = writeZip([{ name: 'readme.txt', data: Buffer.from('hello') }], 8);
    const input = { path: '/x.zip', text: '', bytes: zip, doc: null, lines: null, parseLine: () => { throw new Error('no'); }, files: null as any };
    const d = inspectLoader.detect(input);
    assert.equal(d.accept, false);
    const cut = fs.readFileSync(sample(READ_EVAL)).subarray(0, 3000);
    assert.deepEqual(inspectLoader.detect({ ...input, bytes: cut }), { accept: true, confidence: 0.9 });
    assert.deepEqual(inspectLoader.detect({ ...input, bytes: fs.readFileSync(sample(READ_EVAL)) }), { accept: true, confidence: 1 });

    const log = sampleJson(READ_JSON);
    assert.deepEqual(inspectLoader.detect(makeInput('/log.json', JSON.stringify(log), nodeFiles)), { accept: true, confidence: 0.95 });
    delete log.eval;
    assert.deepEqual(inspectLoader.detect(makeInput('/log.json', JSON.stringify(log), nodeFiles)), { accept: false, reason: 'no "eval" object (EvalSpec)' });
    const events = sampleJson<any>(READ_JSON).samples[0].events;
    assert.equal(inspectLoader.detect(makeInput('/events.json', JSON.stringify(events), nodeFiles)).accept, false);
  });
});

describe('formats/inspect tool calls and sandbox exit codes', () => {
  /**
   * The shared samples have no tool-using agent, so these tests give the real tool_call_error
   * conversation the assistant turns that made its calls and the tool/sandbox events Inspect
   * records for them, in the two span layouts of real logs: 2025 writers open the `tool` span
   * beside the tool event (tests/analysis/test_logs/2025-05-12T20-27-36-04-00_browser.json), current
   * writers put the tool event inside it (tests/log/test_skeleton/basic.json).
   */
  function withCalls(layout: 'beside' | 'inside') {
    const log = sampleJson(TOOL_ERR);
    const s = log.samples[0];
    const [m1, m2] = s.messages;
    const t0 = log.stats.started_at;
    const calls = [
      { id: m1.tool_call_id, function: 'bash', arguments: { cmd: 'ls -la /tmp' } },
      { id: m2.tool_call_id, function: 'bash', arguments: { cmd: 'sleep 999' } },
    ];
    const assistant = { id: 'a1', role: 'assistant', content: [{ type: 'reasoning', reasoning: 'list then wait' }, { type: 'text', text: 'Running two commands.' }], tool_calls: calls, model: 'm' };
    s.messages = [{ id: 'u1', role: 'user', content: s.input }, assistant, m1, m2, ...s.messages.slice(2)];
    const ev = (x: object) => ({ timestamp: t0, working_start: 0, ...x });
    const events: object[] = [
      ev({ event: 'span_begin', id: 'agent', name: 'agent', type: 'agent' }),
      ev({ span_id: 'agent', event: 'model', model: 'm', input: [], tools: [], tool_choice: 'auto', config: {}, output: { choices: [{ message: assistant }], usage: { input_tokens: 120, output_tokens: 30, input_tokens_cache_read: 100, total_tokens: 150 } }, working_time: 1.5 }),
    ];
    for (const [i, c] of calls.entries()) {
      const span = ev({ span_id: 'agent', event: 'span_begin', id: `tool${i}`, parent_id: 'agent', type: 'tool', name: c.function });
      const tool = ev({ span_id: layout === 'inside' ? `tool${i}` : 'agent', event: 'tool', type: 'function', id: c.id, function: c.function, arguments: c.arguments, result: '', events: [], working_time: 0.25 });
      const exec = ev({ span_id: `tool${i}`, event: 'sandbox', action: 'exec', cmd: `bash --login -c '${c.arguments.cmd}'`, options: {}, result: i === 0 ? 0 : 124, output: 'x' });
      events.push(...(layout === 'inside' ? [span, tool, exec] : [tool, span, exec]));
    }
    // An exec outside any tool span belongs to no call.
    events.push(ev({ span_id: 'agent', event: 'sandbox', action: 'exec', cmd: 'which inspect-tool-support', result: 1 }));
    s.events = events;
    return { log, s, calls };
  }

  for (const layout of ['beside', 'inside'] as const) {
    it(`attaches tool messages and sandbox exit codes to their calls (tool span ${layout} the tool event)`, async () => {
      const { log, s, calls } = withCalls(layout);
      const r = await loadOne(write('log.json', JSON.stringify(log, null, 2)));
      assert.deepEqual(r.steps.map((x) => x.role), ['user', 'agent', ...Array(s.messages.length - 4).fill('environment')]);
      const agent = r.steps[1];
      assert.equal(agent.message, 'Running two commands.');
      assert.equal(agent.reasoning, 'list then wait');
      assert.deepEqual(agent.actions.map((a) => [a.kind, a.command, a.tool, a.callId]), calls.map((c) => ['shell', c.arguments.cmd, 'bash', c.id]));
      assert.deepEqual(agent.observations.map((o) => o.callId), calls.map((c) => c.id));
      assert.deepEqual(agent.observations.map((o) => o.exitCode), [0, 124]);
      assert.equal(agent.observations[1].output, `Error (timeout): ${s.messages[3].error.message}`);
      assert.deepEqual(agent.tokens, { prompt: 120, completion: 30, cached: 100 });
      assert.equal(agent.durationSec, 1.5 + 0.25 + 0.25);
      assert.deepEqual(r.metadata.sandboxExecs, { total: 3, withExitCodeOnStep: 2 });
    });
  }

  it('leaves the exit code null when a call ran several execs and none holds its command', async () => {
    const { log, s, calls } = withCalls('beside');
    s.events.push({ timestamp: log.stats.started_at, span_id: 'tool0', event: 'sandbox', action: 'exec', cmd: 'which inspect-tool-support', result: 0 });
    s.events.push({ timestamp: log.stats.started_at, span_id: 'tool1', event: 'sandbox', action: 'exec', cmd: 'true', result: 0 });
    calls[1].arguments.cmd = 'not in any cmd';
    const r = await loadOne(write('log.json', JSON.stringify(log, null, 2)));
    // Call 0: two execs, one holds "ls -la /tmp". Call 1: two execs, none holds the command.
    assert.deepEqual(r.steps[1].observations.map((o) => o.exitCode), [0, null]);
  });

  it('maps submit, text_editor and python calls', async () => {
    const { log, s } = withCalls('inside');
    s.messages[1].tool_calls = [
      { id: 'bash_1', function: 'python', arguments: { code: 'print(1)' } },
      { id: 'bash_2', function: 'text_editor', arguments: { command: 'str_replace', path: '/app/a.py', old_str: 'a', new_str: 'b' } },
      { id: 'c3', function: 'text_editor', arguments: { command: 'view', path: '/app/a.py' } },
      { id: 'c4', function: 'submit', arguments: { answer: '42' } },
    ];
    const r = await loadOne(write('log.json', JSON.stringify(log, null, 2)));
    assert.deepEqual(r.steps[1].actions.map((a) => [a.kind, a.command, a.path ?? null]), [
      ['tool', null, null],
      ['file_edit', null, '/app/a.py'],
      ['tool', null, null],
      ['finish', null, null],
    ]);
    assert.deepEqual(r.steps[1].actions[0].arguments, { code: 'print(1)' });
  });
});
