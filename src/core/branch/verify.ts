/**
 * Verify a branch: run a verifier command in the branch's own container (the replay session the
 * branch ran in: no network, its limits, its step timeout) and read a reward from it. The reward is
 * Harbor's convention when the command follows it — a number in `/logs/verifier/reward.txt`
 * (harbor-framework/harbor `src/harbor/verifier/verifier.py`: the task's `tests/test.sh` writes it)
 * — else the exit status: 0 → 1, anything else → 0. A command that times out, or cannot run, gives
 * no reward (null) and says why.
 */
import type { ReplaySession } from '../replay/session';

/** Where a Harbor verifier writes the reward, inside the container. */
export const HARBOR_REWARD_FILE = '/logs/verifier/reward.txt';

/** What a verifier run gave. */
export interface VerifyResult {
  command: string;
  /** The reward (module docs); null when the command timed out or could not run. */
  reward: number | null;
  /** Where the reward came from: the reward file, the exit code, or nothing. */
  rewardFrom: 'reward-file' | 'exit-code' | null;
  exitCode: number | null;
  timedOut: boolean;
  /** The command's output, at most OUTPUT_TAIL characters (its end). */
  output: string;
  /** Why no reward, when there is none. */
  error: string | null;
  /** ISO time the run started. */
  at: string;
  durationSec: number;
}

/** Characters of the verifier's output kept (the end: test summaries come last). */
export const OUTPUT_TAIL = 4000;

/**
 * Runs `command` in `session`'s container (started, not busy) and reads the reward (module docs).
 * @throws Error when the session has no container or is busy (ReplaySession.runCommand's errors)
 */
export async function runVerifier(session: ReplaySession, command: string): Promise<VerifyResult> {
  const t0 = Date.now();
  const at = new Date(t0).toISOString();
  // A reward file left by an earlier run must not count for this one.
  await session.runCommand(`rm -f ${HARBOR_REWARD_FILE}; mkdir -p ${HARBOR_REWARD_FILE.replace(/\/[^/]+$/, '')}`);
  const run = await session.runCommand(command);
  const output = run.output.length > OUTPUT_TAIL ? run.output.slice(-OUTPUT_TAIL) : run.output;
  const base = { command, exitCode: run.exitCode, timedOut: run.timedOut, output, at };
  const done = (r: Pick<VerifyResult, 'reward' | 'rewardFrom' | 'error'>): VerifyResult => ({ ...base, ...r, durationSec: (Date.now() - t0) / 1000 });
  if (run.timedOut) return done({ reward: null, rewardFrom: null, error: 'the verifier timed out (the replay step timeout)' });
  if (run.error) return done({ reward: null, rewardFrom: null, error: run.error });
  const file = await session.runCommand(`cat ${HARBOR_REWARD_FILE} 2>/dev/null`);
  const text = file.exitCode === 0 ? file.output.trim() : '';
  if (text !== '') {
    const n = Number(text);
    if (Number.isFinite(n)) return done({ reward: n, rewardFrom: 'reward-file', error: null });
    return done({ reward: null, rewardFrom: null, error: `${HARBOR_REWARD_FILE} holds ${JSON.stringify(text.slice(0, 40))}, not a number` });
  }
  if (run.exitCode === null) return done({ reward: null, rewardFrom: null, error: 'the verifier gave no exit code' });
  return done({ reward: run.exitCode === 0 ? 1 : 0, rewardFrom: 'exit-code', error: null });
}
