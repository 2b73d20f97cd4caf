/**
 * Stands in for an extension host in the "killed extension host" test: starts a replay through
 * core with snapshots, runs two steps (so one snapshot image exists), prints `ready <container>`
 * and waits to be SIGKILLed. Args: IMAGE ROLLOUT_FILE SESSION_ID.
 */
import { loadFile } from '../../../src/core/load';
import { connect } from '../../../src/core/replay/docker';
import { buildPlan } from '../../../src/core/replay/plan';
import { ReplaySession } from '../../../src/core/replay/session';
import { testLimits } from './helpers';

(async () => {
  const [image, file, session] = process.argv.slice(2);
  const docker = await connect({});
  const plan = buildPlan((await loadFile(file)).rollouts[0], { image });
  const s = new ReplaySession(plan, docker, { limits: testLimits(), snapshots: true, session });
  await s.start();
  await s.step();
  await s.step();
  process.stdout.write(`ready ${s.containerId}\n`);
  setInterval(() => undefined, 1000);
})().catch((e) => {
  process.stderr.write(String(e?.stack ?? e) + '\n');
  process.exit(1);
});
