/**
 * `trajectory-inspector branch` (cli/branch.ts) usage errors, which exit 2 before any engine or
 * model is contacted: missing options, a bad URL, a key variable that is not set or not a name, a
 * step outside the rollout. (The branch itself runs in test/integration/branch.)
 */
import * as assert from 'node:assert/strict';
import { runBranchCommand } from '../../../src/cli/branch';
import { sample } from '../samples';

const MINI = sample('mini-swe-agent/harbor-rfc_mini-swe-agent-trajectory.json');

/** Runs the command with stdout / stderr captured. */
async function branchCli(args: string[]): Promise<{ code: number; stderr: string; stdout: string }> {
  const err = process.stderr.write.bind(process.stderr);
  const out = process.stdout.write.bind(process.stdout);
  let stderr = '';
  let stdout = '';
  process.stderr.write = ((s: string) => ((stderr += s), true)) as typeof process.stderr.write;
  process.stdout.write = ((s: string) => ((stdout += s), true)) as typeof process.stdout.write;
  try {
    return { code: await runBranchCommand(args), stderr, stdout };
  } finally {
    process.stderr.write = err;
    process.stdout.write = out;
  }
}

describe('CLI branch: usage errors (exit 2, nothing contacted)', () => {
  const base = ['--model', 'm', '--url', 'http://127.0.0.1:9/v1'];
  for (const [args, msg] of [
    [[MINI, '--model', 'm', '--url', 'http://127.0.0.1:9/v1'], /^branch needs --from/],
    [[MINI, '--from', '2', '--url', 'http://127.0.0.1:9/v1'], /^branch needs --model/],
    [[MINI, '--from', '2.5', ...base], /^--from needs a whole number ≥ 1/],
    [[MINI, '--from', '2', '--model', 'm', '--url', 'file:///etc/passwd'], /^--url file:\/\/\/etc\/passwd: an http\(s\) URL/],
    [[MINI, '--from', '2', ...base, '--api-key-env', 'TI_BRANCH_SURELY_UNSET'], /TI_BRANCH_SURELY_UNSET: the environment variable is not set/],
    [[MINI, '--from', '2', ...base, '--api-key-env', 'sk-abc=1'], /takes the name of an environment variable \(letters, digits, _\), never the key itself \(not shown\)$/m],
    [[MINI, '--from', '2', ...base, '--max-steps', '0'], /--max-steps needs a whole number ≥ 1/],
    [[MINI, '--from', '2', ...base, '--bogus'], /unknown option --bogus/],
    [['--from', '2', ...base], /branch takes one rollout file/],
    [[MINI, '--from', '9', ...base], /--from 9: step 9 is not in the rollout \(steps 1–5\)/],
  ] as const) {
    it(`${args.filter((a) => a !== MINI).join(' ')} → ${msg.source}`, async () => {
      const r = await branchCli([...args]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, msg);
      assert.match(r.stderr, /Usage:\n {2}trajectory-inspector branch <file>/);
      assert.doesNotMatch(r.stderr, /sk-abc/);
    });
  }
});
