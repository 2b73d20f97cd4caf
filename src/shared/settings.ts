/**
 * Setting defaults, the same lists package.json declares under `contributes.configuration`
 * (a unit test keeps the two equal). No vscode import: the CLI and tests read them too.
 */

/** Default `trajectoryInspector.rollouts.include`: globs of the files the Rollouts view lists. */
export const DEFAULT_INCLUDE = [
  '**/*.traj',
  '**/*.traj.json',
  '**/trajectory.json',
  '**/*.trajectory.json',
  '**/*-trajectory.json',
  '**/*_trajectory.json',
  '**/agent/trajectory.json',
  '**/output.jsonl',
  '**/results.json',
  '**/result.json',
  '**/*rollouts*.jsonl',
  '**/*rollouts*.json',
  '**/*.eval',
];
/** Default `trajectoryInspector.rollouts.exclude`. */
export const DEFAULT_EXCLUDE = ['**/node_modules/**', '**/.git/**', '**/.venv/**'];
/**
 * Default `trajectoryInspector.sessions.roots`: none beyond the tools' own folders (Claude Code's
 * projects folder, Codex's sessions folder), which the Sessions view always reads.
 */
export const DEFAULT_SESSION_ROOTS: string[] = [];
/** Default `trajectoryInspector.timeline.collapseOutputLines`. */
export const DEFAULT_COLLAPSE_LINES = 20;
/**
 * Default `trajectoryInspector.labels.annotator`: empty, which means the OS user name
 * (`os.userInfo().username`).
 */
export const DEFAULT_ANNOTATOR = '';
/** How neutral (0) labels map in the boolean export formats (TRL, ProcessBench): positive, negative or drop. */
export const NEUTRAL_MAPPING_CHOICES = ['negative', 'positive', 'drop'] as const;
/** Default `trajectoryInspector.labels.exportNeutralAs` (TRL's PRM800K converter counts neutral as false). */
export const DEFAULT_EXPORT_NEUTRAL: (typeof NEUTRAL_MAPPING_CHOICES)[number] = 'negative';

/**
 * Defaults of the `trajectoryInspector.replay.*` limits (machine-scoped settings: a workspace's
 * .vscode/settings.json cannot loosen them). Units: MiB, CPUs, processes, seconds, bytes. The same
 * values as core/replay/docker DEFAULT_LIMITS (a unit test keeps the three equal).
 */
export const DEFAULT_REPLAY_LIMITS = { memoryMiB: 2048, cpus: 2, pids: 512, stepTimeoutSec: 60, outputCapBytes: 10 * 1024 * 1024, diskMiB: 4096 };
/** Default `trajectoryInspector.replay.image`: none (the rollout's image, a folder mapping, or a prompt). */
export const DEFAULT_REPLAY_IMAGE = '';
/** Default `trajectoryInspector.replay.snapshots`: snapshot before each step so Step back works. */
export const DEFAULT_REPLAY_SNAPSHOTS = true;
/** Default `trajectoryInspector.scorer.command`: empty = the built-in scorer. */
export const DEFAULT_SCORER_COMMAND: string[] = [];
/** Default `trajectoryInspector.scorer.autoScore`: score a rollout when its timeline opens. */
export const DEFAULT_SCORER_AUTO = true;
/** Default `trajectoryInspector.scorer.requestTimeoutSeconds`: one batch; longer = hung, restarted. */
export const DEFAULT_SCORER_REQUEST_TIMEOUT_S = 120;
/** Default `trajectoryInspector.scorer.startTimeoutSeconds`: `initialize`, model loading included. */
export const DEFAULT_SCORER_START_TIMEOUT_S = 300;
/** Default `trajectoryInspector.scorer.idleShutdownMinutes`: stop an idle scorer (frees its GPU); 0 = never. */
export const DEFAULT_SCORER_IDLE_MINUTES = 15;
/** Default `trajectoryInspector.scorer.inline`: gutter, end-of-line, hover and CodeLens on the raw file. */
export const DEFAULT_SCORER_INLINE = true;
