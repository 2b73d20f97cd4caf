/**
 * Which image the editor replays a rollout in, and why. The user's explicit
 * choices win over what a rollout names (a recorded image often lives in a registry this engine
 * cannot reach, e.g. SWE-agent's "tiny"): in order, the image picked for this file after a failure
 * (*Use Another Image…*, remembered per file), the longest matching
 * `trajectoryInspector.replay.imageByFolder` entry, the `trajectoryInspector.replay.image` setting,
 * and only then the rollout's own image. Pure (no `vscode`); unit-tested in test/unit/replay/image.test.ts.
 */
import type { Rollout } from '../../core/model';
import { LABEL_MANAGED } from '../../core/replay/docker';
import { chooseImage, type ImageSource } from '../../core/replay/plan';

/** workspaceState key: images the user chose per rollout file after the rollout's own was missing (replay and branch read it). */
export const IMAGE_CHOICES_KEY = 'trajectoryInspector.replay.imageChoices';

/** The image chosen, where it came from, and a sentence saying why (the consent dialog, the terminal). */
export interface ImageChoice {
  image: string;
  source: ImageSource;
  /** E.g. "trajectoryInspector.replay.image (your setting; the rollout names tiny)". */
  why: string;
}

/** The user's inputs to the choice. */
export interface ImageInputs {
  /** Image picked for this file after a failure (workspace memory), if any. */
  chosen?: string | null;
  /** `trajectoryInspector.replay.imageByFolder` (folder → image; folders relative to `baseDir`). */
  imageByFolder?: Record<string, string>;
  /** Workspace folder the mapping's relative folders start from. */
  baseDir?: string;
  /** `trajectoryInspector.replay.image` ('' or null: not set). */
  setting?: string | null;
}

/** Chooses the replay image (order in the module comment); null when nothing names one (ask the user). */
export function replayImage(rollout: Rollout, o: ImageInputs): ImageChoice | null {
  const own = rollout.environment.image || null;
  const over = own ? `; the rollout names ${own}` : '';
  if (o.chosen) return { image: o.chosen, source: 'option', why: `your choice for this file${over}` };
  if (o.imageByFolder && Object.keys(o.imageByFolder).length) {
    // Only the folder mapping: a rollout without an image and no default, so chooseImage answers for the mapping alone.
    const m = chooseImage({ ...rollout, environment: { ...rollout.environment, image: null } }, { imageByFolder: o.imageByFolder, baseDir: o.baseDir });
    if (m) return { image: m.image, source: 'folder-mapping', why: `trajectoryInspector.replay.imageByFolder${over}` };
  }
  if (o.setting?.trim()) return { image: o.setting.trim(), source: 'setting', why: `your setting trajectoryInspector.replay.image${over}` };
  if (own) return { image: own, source: 'rollout', why: 'named by the rollout; set trajectoryInspector.replay.image to use another' };
  return null;
}

/** One image the engine has, as `docker images` lists it (dockerode `listImages`: `RepoTags`, `Size` bytes, `Created` s). */
export interface EngineImage {
  RepoTags?: string[] | null;
  Size?: number;
  Created?: number;
  Labels?: Record<string, string> | null;
}

/**
 * The tagged images of the engine, newest first, as pick items (`<none>` tags and the replay's own
 * snapshot images dropped, each tag once): label the reference, description its size in MB.
 */
export function engineImageItems(images: readonly EngineImage[]): { label: string; description: string }[] {
  const seen = new Set<string>();
  const out: { label: string; description: string; created: number }[] = [];
  for (const im of images) {
    if (im.Labels?.[LABEL_MANAGED]) continue;
    for (const tag of im.RepoTags ?? []) {
      if (!tag || tag.includes('<none>') || seen.has(tag)) continue;
      seen.add(tag);
      out.push({ label: tag, description: im.Size ? `${Math.round(im.Size / 1e6)} MB` : '', created: im.Created ?? 0 });
    }
  }
  out.sort((a, b) => b.created - a.created || a.label.localeCompare(b.label));
  return out.map(({ label, description }) => ({ label, description }));
}
