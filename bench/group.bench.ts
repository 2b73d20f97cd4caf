/**
 * Issue 21 item 3: Show Group of a 1,000-rollout dump. Target: the group page's message is ready
 * in under 1 s for a GRPO group of 48 rollouts in a 1,000-row dump.
 *
 * Input (bench/out/group/, reused): 1,000 real NeMo-Gym rows (bench/genDump.ts sampleRows, cycled)
 * in groups of 48 (`_ng_task_index` = row / 48), rewards alternated.
 * Before: the file loaded whole (core loadFile), each member scored one after another (the
 * built-in rules in process: a lower bound of the scorer round-trips the panel made), then
 * groupMessage. After: the dump's index (built once by the Rollouts view; its build is timed apart)
 * gives the members' rows, only those are read (core loadRow), labels once per file, no scores.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadFile } from '../src/core/load';
import { buildIndex } from '../src/core/scale/rolloutIndex';
import { loadRow } from '../src/core/scale/rowLoad';
import { toScoreRollout } from '../src/core/scoring/input';
import { groupMessage } from '../src/host/compare/compareView';
import { scoreRollout } from '../src/scorers/builtin/rules';
import { sampleRows } from './genDump';
import { OUT_DIR, fmt, median, timeRuns, writeSection } from './lib';

const ROWS = 1000;
const GROUP = 48;

function build(): string {
  const file = path.join(OUT_DIR, 'group', `dump_${ROWS}_rollouts.jsonl`);
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const bases = sampleRows();
  const lines: string[] = [];
  for (let i = 0; i < ROWS; i++) {
    const task = Math.floor(i / GROUP);
    const base = bases[task % bases.length];
    lines.push(JSON.stringify({ ...base, instance_id: `${String(base.instance_id ?? 'task')}-${task}`, _ng_task_index: task, _ng_rollout_index: i % GROUP, reward: i % 3 === 0 ? 1 : 0 }));
  }
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

async function main(): Promise<void> {
  const file = build();
  const size = fs.statSync(file).size;
  let groupId: string | null = null;
  let members = 0;
  const before = await timeRuns(async () => {
    const f = await loadFile(file);
    groupId = f.rollouts[GROUP * 2].groupId;
    const ms = f.rollouts.map((rollout, index) => ({ file, index, rollout })).filter((m) => m.rollout.groupId === groupId);
    for (const m of ms) scoreRollout(toScoreRollout(m.rollout));
    members = groupMessage('g', file, groupId, ms).members.length;
  }, 3);
  const indexMs = await timeRuns(() => buildIndex(file), 3);
  const index = await buildIndex(file);
  let afterMembers = 0;
  const after = await timeRuns(async () => {
    const at = index.entries.flatMap((e, i) => (e.groupId === groupId ? [i] : []));
    const ms = [];
    for (let k = 0; k < at.length; k += 8) {
      ms.push(...(await Promise.all(at.slice(k, k + 8).map(async (i) => ({ file, index: i, rollout: await loadRow(file, index.format, index.entries[i]) })))));
    }
    afterMembers = groupMessage('g', file, groupId, ms).members.length;
  }, 5);
  if (members !== afterMembers || members !== GROUP) throw new Error(`members: before ${members}, after ${afterMembers}, want ${GROUP}`);
  const body = [
    `Dump: ${ROWS} real NeMo-Gym rows in groups of ${GROUP}, ${fmt(size / 2 ** 20, 1)} MiB; Show Group of group ${groupId} (${GROUP} rollouts). Medians.`,
    '',
    '| path | ms |',
    '|---|---|',
    `| before: load the file whole, score each member, group message | ${fmt(median(before), 0)} |`,
    `| after: read the ${GROUP} members' rows through the index, group message (target < 1,000) | ${fmt(median(after), 0)} |`,
    `| the dump's index, built once by the Rollouts view (not part of Show Group) | ${fmt(median(indexMs), 0)} |`,
    '',
    'The "before" scoring is the built-in rules in process; the panel asked the scorer process once per member, one after another, so it paid a round-trip each on top.',
  ].join('\n');
  writeSection('group', 'Show Group of a 1,000-rollout dump (issue 21)', body);
  console.log(body);
  if (median(after) >= 1000) process.exitCode = 1;
}

void main();
