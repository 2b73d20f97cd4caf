/**
 * A client of an OpenAI-compatible chat-completions endpoint (`POST <base>/chat/completions`,
 * non-streaming), with plain `fetch`: a local vLLM / SGLang / llama.cpp / Ollama server or a hosted
 * API. Shapes follow the OpenAI API reference (Chat Completions: `messages[{role, content,
 * tool_calls?, tool_call_id?}]`, response `choices[0].message{content, tool_calls[{id, type:
 * "function", function{name, arguments: JSON string}}]}`, `usage{prompt_tokens,
 * completion_tokens, prompt_tokens_details.cached_tokens}`; some servers add `usage.cost`).
 *
 * Every failure is a `ModelCallError` whose `kind` says what went wrong: the endpoint could not be
 * reached (`network`), answered with an HTTP error (`http`, the status and the start of its body),
 * took longer than the timeout to answer completely (`timeout`: the whole request, body included,
 * runs under one AbortSignal), was stopped by the caller (`aborted`), or answered something that is
 * not a chat completion (`bad-response`). Nothing here hangs past the timeout and nothing retries.
 *
 * The API key is passed in by the caller (read from an environment variable, never from a file);
 * it is sent only as `Authorization: Bearer …` and never appears in an error message.
 */

/** One chat message as the API takes it. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
}

/** A tool call of an assistant message (`arguments` is the JSON text the model wrote). */
export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** What the model answered, with its usage when the server reported it (each count null when not). */
export interface ChatReply {
  content: string;
  reasoning: string | null;
  toolCalls: ChatToolCall[];
  finishReason: string | null;
  usage: { prompt: number | null; completion: number | null; cached: number | null; costUsd: number | null };
  /** The response's `model` field (the server's own name for the model), or null. */
  model: string | null;
}

/** Where and how to call the model. */
export interface ChatEndpoint {
  /** Base URL (`http://127.0.0.1:8000/v1`) or the full `…/chat/completions` URL. */
  url: string;
  model: string;
  /** Bearer token; none sent when null or empty. */
  apiKey?: string | null;
  /** Milliseconds for the whole request, body included (default 120 000). */
  timeoutMs?: number;
  temperature?: number | null;
  /** `max_tokens` of each reply; not sent when null. */
  maxTokens?: number | null;
}

/** A model call that failed; `kind` in the module docs. The message never holds the API key. */
export class ModelCallError extends Error {
  constructor(message: string, readonly kind: 'network' | 'http' | 'timeout' | 'aborted' | 'bad-response', readonly status: number | null = null) {
    super(message);
    this.name = 'ModelCallError';
  }
}

/** Most bytes of a response body read (a larger answer is `bad-response`). */
const MAX_BODY_CHARS = 32 * 1024 * 1024;

/** The chat-completions URL of an endpoint: `url` itself when it ends in `/chat/completions`, else `url` + `/chat/completions`. */
export function completionsUrl(url: string): string {
  const u = url.replace(/\/+$/, '');
  return /\/chat\/completions$/.test(u) ? u : `${u}/chat/completions`;
}

/**
 * The URL as it may be written down (a branch's metadata, a message): user and password removed,
 * query parameters whose name says key / token / secret / signature replaced by `REDACTED`.
 * A string that is not a URL is returned as `(not a URL)`.
 */
export function redactUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return '(not a URL)';
  }
  u.username = '';
  u.password = '';
  for (const k of [...u.searchParams.keys()]) if (/key|token|secret|sig|auth/i.test(k)) u.searchParams.set(k, 'REDACTED');
  return u.toString();
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Text of a message `content`: a string, or the text parts of a content-part list. */
function contentText(c: unknown): string {
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((p) => (isObj(p) && typeof p.text === 'string' ? p.text : '')).join('');
  return '';
}

/**
 * Reads a chat-completions response body into a ChatReply.
 * @throws ModelCallError `bad-response` when it is not JSON or has no `choices[0].message`
 */
export function parseChatResponse(body: string): ChatReply {
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch {
    throw new ModelCallError(`the endpoint answered something that is not JSON: ${JSON.stringify(body.slice(0, 120))}`, 'bad-response');
  }
  if (isObj(v) && isObj(v.error)) {
    throw new ModelCallError(`the endpoint answered an error: ${String(v.error.message ?? JSON.stringify(v.error)).slice(0, 300)}`, 'bad-response');
  }
  const choice = isObj(v) && Array.isArray(v.choices) ? v.choices[0] : undefined;
  const msg = isObj(choice) ? choice.message : undefined;
  if (!isObj(v) || !isObj(msg)) throw new ModelCallError('the endpoint answered JSON without choices[0].message: not a chat completion', 'bad-response');
  const calls: ChatToolCall[] = [];
  for (const [i, c] of (Array.isArray(msg.tool_calls) ? msg.tool_calls : []).entries()) {
    const f = isObj(c) ? c.function : undefined;
    if (!isObj(f) || typeof f.name !== 'string') throw new ModelCallError(`tool call ${i + 1} of the reply has no function name`, 'bad-response');
    const args = typeof f.arguments === 'string' ? f.arguments : JSON.stringify(f.arguments ?? {});
    calls.push({ id: isObj(c) && typeof c.id === 'string' && c.id ? c.id : `call_${i + 1}`, type: 'function', function: { name: f.name, arguments: args } });
  }
  const usage = isObj(v.usage) ? v.usage : {};
  const details = isObj(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const reasoning = typeof msg.reasoning_content === 'string' && msg.reasoning_content.trim() ? msg.reasoning_content : null;
  return {
    content: contentText(msg.content),
    reasoning,
    toolCalls: calls,
    finishReason: isObj(choice) && typeof choice.finish_reason === 'string' ? choice.finish_reason : null,
    usage: { prompt: num(usage.prompt_tokens), completion: num(usage.completion_tokens), cached: num(details.cached_tokens), costUsd: num(usage.cost) },
    model: typeof v.model === 'string' ? v.model : null,
  };
}

/**
 * Asks the model for one reply.
 * @param tools OpenAI function tool definitions to offer (none sent when empty)
 * @param signal stops the call (kind `aborted`)
 * @throws ModelCallError (module docs)
 */
export async function chatCompletion(endpoint: ChatEndpoint, messages: ChatMessage[], tools: unknown[] = [], signal?: AbortSignal): Promise<ChatReply> {
  const timeoutMs = endpoint.timeoutMs ?? 120_000;
  const timeout = AbortSignal.timeout(timeoutMs);
  const both = signal ? AbortSignal.any([timeout, signal]) : timeout;
  const body: Record<string, unknown> = { model: endpoint.model, messages, stream: false };
  if (tools.length) body.tools = tools;
  if (endpoint.temperature !== undefined && endpoint.temperature !== null) body.temperature = endpoint.temperature;
  if (endpoint.maxTokens) body.max_tokens = endpoint.maxTokens;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
  const where = redactUrl(completionsUrl(endpoint.url));
  const failed = (e: unknown): ModelCallError => {
    if (e instanceof ModelCallError) return e;
    if (timeout.aborted) return new ModelCallError(`${where} did not answer within ${timeoutMs / 1000} s`, 'timeout');
    if (signal?.aborted) return new ModelCallError('the model call was stopped', 'aborted');
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    return new ModelCallError(`${where} could not be reached: ${cause?.code ?? cause?.message ?? (e as Error).message}`, 'network');
  };
  try {
    const res = await fetch(completionsUrl(endpoint.url), { method: 'POST', headers, body: JSON.stringify(body), signal: both, redirect: 'error' });
    const text = await res.text();
    if (text.length > MAX_BODY_CHARS) throw new ModelCallError(`${where} answered more than ${MAX_BODY_CHARS / 2 ** 20} MiB`, 'bad-response');
    if (!res.ok) throw new ModelCallError(`${where} answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}: ${text.slice(0, 300).trim()}`, 'http', res.status);
    return parseChatResponse(text);
  } catch (e) {
    throw failed(e);
  }
}
