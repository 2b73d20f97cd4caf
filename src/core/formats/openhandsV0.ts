/**
 * The OpenHands V0 event list loader: a `<sid>.json` list of events or the UI download
 * `{"trajectory": [...]}` (sources and mapping in the module docs of openhandsEvents.ts; steps built
 * by openhandsV0Steps.ts).
 *
 * This module never imports `vscode`.
 */
import { z } from 'zod';
import { RolloutLoadError } from '../errors';
import { unknownOutcome, type Rollout } from '../model';
import { looksLikeV0Event, metadataOf, V0EventSchema, v0EventsPath } from './openhandsEvents';
import { buildV0Steps } from './openhandsV0Steps';
import type { Detection, FormatLoader, LoadInput } from './types';
import { isObject } from './util';

const V0_LABEL = 'OpenHands V0 event list';

// ---------------------------------------------------------------------------------------------
// V0 loader

function v0Detect(input: LoadInput): Detection {
  if (!input.doc) return { accept: false, reason: 'not a single JSON document (a V0 event list is one JSON list)' };
  const at = v0EventsPath(input.doc.value);
  if (!at) return { accept: false, reason: 'neither a JSON list nor an object with a "trajectory" list' };
  const list = input.doc.get(at) as unknown[];
  if (list.length === 0) return { accept: false, reason: 'the event list is empty' };
  // Structure is checked by load(); detection needs the list to be made of objects and to contain events.
  const sample = list.slice(0, 3);
  if (!sample.every(isObject) || !sample.some(looksLikeV0Event)) {
    return { accept: false, reason: 'list items are not OpenHands events ({id, source, action|observation})' };
  }
  return { accept: true, confidence: 0.8 };
}

/**
 * OpenHands V0 event list: `<sid>.json` from `save_trajectory_path` (a JSON list of events) or the
 * UI/API download `{"trajectory": [...]}`. One rollout per file, id `<path>#0`.
 * @throws RolloutLoadError listing every event that does not match the event shape.
 */
export const openHandsV0Loader: FormatLoader = {
  id: 'openhands-v0',
  label: V0_LABEL,
  detect: v0Detect,
  async load(input: LoadInput): Promise<Rollout[]> {
    const doc = input.doc;
    const at = doc ? v0EventsPath(doc.value) : null;
    if (!doc || !at) {
      throw new RolloutLoadError(input.path, V0_LABEL, [
        { file: input.path, line: 1, column: 1, pointer: '', expected: 'a JSON list of events or {"trajectory": [...]}', found: doc ? 'another value' : 'JSON Lines' },
      ]);
    }
    const events = doc.validate(z.array(V0EventSchema), V0_LABEL, at);
    const { steps, info } = buildV0Steps(events, (i) => doc.rangeOf([...at, i]), null);
    const outcome = unknownOutcome();
    const lastState = info.agentStates[info.agentStates.length - 1];
    if (lastState) {
      outcome.status = lastState.state;
      outcome.source = 'last agent_state_changed event';
    }
    return [
      {
        id: `${input.path}#0`,
        format: 'openhands-v0',
        schemaVersion: null,
        source: { path: input.path, range: null, line: null },
        task: { id: null, instruction: info.firstUserMessage },
        agent: { name: 'OpenHands', version: info.version, model: info.model },
        environment: { image: null, workdir: info.workdir },
        outcome,
        groupId: null,
        steps,
        metadata: metadataOf(info, events.length, at.length ? { wrapper: 'trajectory' } : {}),
      },
    ];
  },
};
