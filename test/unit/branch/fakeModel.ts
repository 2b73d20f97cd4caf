/**
 * A scripted fake OpenAI chat-completions server on 127.0.0.1 (node:http) for branch tests: each
 * POST to `/v1/chat/completions` takes the next answer of the script — a reply text (a chat
 * completion with that content), a tool call, an HTTP error, a body that is not JSON, or no answer
 * at all (the request hangs until the server closes); a reply text may come `delayMs` late (a model
 * that takes its time, so that a live view can be seen filling). Every request body is kept for assertions.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer. */
export type FakeAnswer =
  | { text: string; usage?: { prompt_tokens: number; completion_tokens: number; cost?: number }; delayMs?: number }
  | { toolCall: { name: string; arguments: string; id?: string }; text?: string }
  | { status: number; body: string }
  | { raw: string }
  | { hang: true };

/** A running fake server. */
export interface FakeModel {
  /** Base URL, e.g. `http://127.0.0.1:PORT/v1`. */
  url: string;
  /** Parsed JSON bodies of the requests received, in order. */
  requests: any[];
  /** Authorization headers received, in order. */
  auth: (string | undefined)[];
  close(): Promise<void>;
}

/** A reply text in mini-swe-agent's format: a THOUGHT and one bash block. */
export function bashReply(command: string, thought = 'Next step.'): string {
  return `THOUGHT: ${thought}\n\n\`\`\`bash\n${command}\n\`\`\``;
}

/** Starts the server; answers past the end of the script are HTTP 500 "script exhausted". */
export async function startFakeModel(script: FakeAnswer[]): Promise<FakeModel> {
  const requests: any[] = [];
  const auth: (string | undefined)[] = [];
  const hanging = new Set<http.ServerResponse>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let n = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (b) => (body += b));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404).end('not found');
        return;
      }
      requests.push(JSON.parse(body));
      auth.push(req.headers.authorization);
      const a = script[n++];
      if (!a) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end('script exhausted');
        return;
      }
      if ('hang' in a) {
        hanging.add(res);
        return;
      }
      if ('status' in a) {
        res.writeHead(a.status, { 'content-type': 'application/json' }).end(a.body);
        return;
      }
      if ('raw' in a) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(a.raw);
        return;
      }
      const message =
        'toolCall' in a
          ? { role: 'assistant', content: a.text ?? null, tool_calls: [{ id: a.toolCall.id ?? `call_fake_${n}`, type: 'function', function: { name: a.toolCall.name, arguments: a.toolCall.arguments } }] }
          : { role: 'assistant', content: a.text };
      const usage = 'usage' in a && a.usage ? a.usage : { prompt_tokens: 100 + n, completion_tokens: 10 + n };
      const answer = JSON.stringify({ id: `chatcmpl-fake-${n}`, object: 'chat.completion', created: 1, model: 'fake-model', choices: [{ index: 0, message, finish_reason: 'toolCall' in a ? 'tool_calls' : 'stop' }], usage });
      const send = () => res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
      if ('delayMs' in a && a.delayMs) {
        const t = setTimeout(() => {
          timers.delete(t);
          send();
        }, a.delayMs);
        timers.add(t);
      } else send();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    auth,
    close: () =>
      new Promise<void>((r) => {
        for (const res of hanging) res.destroy();
        for (const t of timers) clearTimeout(t);
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
