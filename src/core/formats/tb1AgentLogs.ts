/**
 * Terminal-Bench 1 `agent-logs/` of a trial folder: the model's responses per episode, attached to
 * the agent steps read from commands.txt. Sources and mapping: module docs of tb1Results.ts.
 *
 * This module never imports `vscode`.
 */
import * as path from 'node:path';
import type { Step } from '../model';
import type { FileAccess } from './types';
import { isObject, str } from './util';

// ---------------------------------------------------------------------------------------------
// agent-logs
// ---------------------------------------------------------------------------------------------

interface LogRecord {
  /** Path relative to the trial folder. */
  name: string;
  commands: string[];
  message: string | null;
  reasoning: string | null;
}

/** JSON object of a response file (a `.txt` may hold text around the JSON object), or null. */
function responseObject(text: string): Record<string, unknown> | null {
  const tryParse = (t: string) => {
    try {
      const v = JSON.parse(t);
      return isObject(v) ? v : null;
    } catch {
      return null;
    }
  };
  const direct = tryParse(text);
  if (direct) return direct;
  const a = text.indexOf('{');
  const b = text.lastIndexOf('}');
  return a >= 0 && b > a ? tryParse(text.slice(a, b + 1)) : null;
}

/** Reads `agent-logs/` responses in episode order (see the module docs). */
export async function readAgentLogs(trialDir: string, files: FileAccess, wantModel: boolean): Promise<{ records: LogRecord[]; model: string | null } | null> {
  const dir = path.join(trialDir, 'agent-logs');
  if (!(await files.isDirectory(dir))) return null;
  const names = await files.list(dir);
  const episodes = names
    .map((n) => ({ n, m: /^episode-(\d+)$/.exec(n) }))
    .filter((e) => e.m)
    .sort((a, b) => Number(a.m![1]) - Number(b.m![1]))
    .map((e) => e.n);
  const folders = episodes.length ? episodes.map((e) => path.join(dir, e)) : [dir];
  const records: LogRecord[] = [];
  for (const f of folders) {
    for (const fname of ['response.json', 'response.txt']) {
      const p = path.join(f, fname);
      const text = await files.readText(p);
      if (text === null) continue;
      const o = responseObject(text);
      const cmds = o && Array.isArray(o.commands) ? o.commands : [];
      records.push({
        name: path.relative(trialDir, p),
        commands: cmds
          .map((c) => (typeof c === 'string' ? c : isObject(c) && typeof c.keystrokes === 'string' ? c.keystrokes : null))
          .filter((c): c is string => c !== null),
        message: o ? (str(o.explanation) ?? str(o.plan)) : null,
        reasoning: o ? (str(o.state_analysis) ?? str(o.analysis)) : null,
      });
      break;
    }
  }
  let model: string | null = null;
  const debug = wantModel ? await files.readText(path.join(folders[0], 'debug.json')) : null;
  if (debug !== null) {
    const o = responseObject(debug);
    model = o ? str(o.model) : null;
  }
  return { records, model };
}

function normCommand(s: string): string {
  return s.replace(/\r\n?/g, '\n').replace(/\s+$/, '');
}

/** Attaches agent-log responses to agent steps; returns what was done, for metadata. */
export function attachAgentLogs(records: LogRecord[], agentSteps: { step: Step; text: string }[]): Record<string, unknown> {
  let cursor = 0;
  let matched = 0;
  const unmatched: string[] = [];
  const attach = (r: LogRecord, s: Step) => {
    if (r.message !== null && s.message === '') s.message = r.message;
    if (r.reasoning !== null && s.reasoning === null) s.reasoning = r.reasoning;
  };
  for (const r of records) {
    let first: number | null = null;
    for (const c of r.commands) {
      const want = normCommand(c);
      for (let j = cursor; j < agentSteps.length; j++) {
        if (normCommand(agentSteps[j].text) === want) {
          if (first === null) first = j;
          cursor = j + 1;
          break;
        }
      }
    }
    if (first !== null) {
      attach(r, agentSteps[first].step);
      matched++;
    } else unmatched.push(r.name);
  }
  let matchedBy = 'command';
  if (matched === 0 && records.length === 1 && records[0].commands.length > 0 && records[0].commands.length === agentSteps.length) {
    attach(records[0], agentSteps[0].step);
    matched = 1;
    unmatched.length = 0;
    matchedBy = 'position';
  }
  return { responses: records.length, matched, matchedBy, unmatched };
}
