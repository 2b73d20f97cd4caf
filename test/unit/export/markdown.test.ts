import * as assert from 'node:assert/strict';
import { loadFile } from '../../../src/core/load';
import { makeStep, type Rollout } from '../../../src/core/model';
import { fence, plainText, rolloutMarkdown, stepMarkdownOf } from '../../../src/core/export/markdown';
import { sample } from '../samples';

const MINI = 'mini-swe-agent/harbor-rfc_mini-swe-agent-trajectory.json';

describe('export/markdown: a rollout as a Markdown transcript', () => {
  it('a real mini-swe-agent rollout: header, one section per step, every command in a bash fence, long outputs folded', async () => {
    const f = await loadFile(sample(MINI));
    const r = f.rollouts[0];
    const md = rolloutMarkdown(r, { sourceName: 'traj.json' });
    assert.match(md, /^# .+\n\n- \*\*Rollout\*\*: /);
    assert.match(md, /- \*\*Source\*\*: traj\.json \(mini-swe-agent\)/);
    assert.match(md, new RegExp(`- \\*\\*Steps\\*\\*: ${r.steps.length}\\n`));
    for (const s of r.steps) assert.ok(md.includes(`### #${s.index + 1} · ${s.role}`), `no section for step #${s.index + 1}`);
    const commands = r.steps.flatMap((s) => s.actions.filter((a) => a.kind === 'shell' && a.command).map((a) => a.command!));
    assert.ok(commands.length > 0, 'the sample has shell commands');
    for (const c of commands) assert.ok(md.includes(`\`\`\`bash\n${plainText(c).replace(/\n$/, '')}\n\`\`\``) || md.includes(plainText(c).trim()), `command not exported: ${c.slice(0, 60)}`);
    const longOutputs = r.steps.flatMap((s) => s.observations).filter((o) => o.output.split('\n').length > 20);
    assert.equal((md.match(/<details><summary>Output/g) ?? []).length, longOutputs.length, 'one fold per long output');
  });

  it('exports a range of steps and says which', async () => {
    const r = (await loadFile(sample(MINI))).rollouts[0];
    const md = rolloutMarkdown(r, { from: 1, to: 3 });
    assert.match(md, new RegExp(`- \\*\\*Steps\\*\\*: #2–#3 of ${r.steps.length}`));
    assert.ok(!md.includes('### #1 ·') && md.includes('### #2 ·') && md.includes('### #3 ·') && !md.includes('### #4 ·'));
  });

  it('untrusted text goes out as text: HTML escaped in prose, fences longer than backtick runs inside, ANSI removed', () => {
    const step = makeStep(0, 'agent', {
      message: 'Done <script>alert(1)</script> & <img src=x onerror=alert(2)>',
      actions: [{ kind: 'shell', command: 'echo "```" && printf "\\x1b[31mred\\x1b[0m"', tool: null, callId: null }],
      observations: [{ callId: null, output: '\x1b[31mred\x1b[0m\n````\nend', exitCode: 1, truncated: false }],
    });
    const md = stepMarkdownOf(step, { scores: new Map([[0, 0.25]]), labels: new Map([[0, -1 as const]]) });
    assert.ok(!/<script|<img/i.test(md), md);
    assert.match(md, /Done &lt;script&gt;alert\(1\)&lt;\/script&gt; &amp; &lt;img/);
    assert.match(md, /### #1 · agent · exit 1 · score 0\.25 · label −1 bad/);
    assert.match(md, /`````\nred\n````\nend\n`````/, 'the output fence is longer than the ```` inside it');
    assert.ok(!md.includes('\x1b'), 'no escape characters');
  });

  it('fence() is never closed by its content', () => {
    for (const s of ['plain', '```', 'a ```` b', '`']) {
      const f = fence(s);
      const open = f.split('\n')[0];
      assert.ok(!s.includes(open), `${JSON.stringify(s)} holds its fence ${open}`);
    }
  });

  it('a rollout with no steps and unknown fields still has its header', () => {
    const r: Rollout = {
      id: 'r1', format: 'openai-chat', schemaVersion: null, source: { path: '/x/d.jsonl', range: null, line: 1 },
      task: { id: null, instruction: null }, agent: { name: null, version: null, model: null }, environment: { image: null, workdir: null },
      outcome: { reward: null, rewards: null, resolved: null, status: null, source: null }, groupId: null, steps: [], metadata: {},
    };
    assert.match(rolloutMarkdown(r), /^# d\.jsonl\n\n- \*\*Rollout\*\*: r1\n- \*\*Source\*\*: \/x\/d\.jsonl \(openai-chat\)\n- \*\*Steps\*\*: 0\n/);
  });
});
