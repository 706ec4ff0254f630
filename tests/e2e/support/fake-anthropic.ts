/**
 * A fake Anthropic Messages API for driving the real Claude Code CLI offline.
 *
 * The real client is pointed at it with `ANTHROPIC_BASE_URL=http://127.0.0.1:<port>`. The fake "model" is
 * scripted: it asks for the scenario's tool calls, then answers with a final text once the client has
 * sent back a `tool_result` for every call. Every request is recorded, because the `tool_result` blocks the
 * client sends back are the proof of what the client did with a hook's decision (ran the tool, or reported
 * the hook's deny reason as an error).
 *
 * The scenario step is derived from the conversation in each request (how many of our scripted `tool_use`
 * blocks the client echoes back in its history), not from a request counter. That keeps the server correct
 * when the client retries a request or interleaves side calls (titles, summaries) with the main loop.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One tool call the fake model should make. */
export interface ScriptedToolCall {
  /** Tool name as the client knows it, e.g. `Write`, `Bash`, `Edit`. */
  name: string;
  /** Tool input exactly as the model would send it. */
  input: Record<string, unknown>;
}

export interface AnthropicScenario {
  /** Tool calls to make, in order. */
  toolCalls: ScriptedToolCall[];
  /**
   * `sequential` (default): one tool call per model turn, so hooks fire in a deterministic order.
   * `parallel`: all tool calls in the first model turn (the client may then run hooks concurrently).
   */
  batching?: 'sequential' | 'parallel';
  /** Text of the final answer after all tool results arrived. */
  finalText?: string;
}

/** One HTTP request the client made, as received. */
export interface RecordedRequest {
  method: string;
  /** Path plus query string, e.g. `/v1/messages?beta=true`. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body when the body was JSON, otherwise the raw text (empty string for no body). */
  body: unknown;
  /** What the fake answered: which scenario step, or which side-endpoint. */
  answeredWith: string;
  /** When the request arrived (`performance.now()` ms, monotonic): for step times (support/step-time.ts). */
  receivedAt: number;
  /** When the answer was fully handed to the socket (`performance.now()` ms); unset until then. */
  answeredAt?: number;
}

/** A tool_result block the client sent back, joined to the scripted call it answers. */
export interface ToolResultRecord {
  toolUseId: string;
  /** Index into `scenario.toolCalls`, or -1 when the id is not one of ours. */
  callIndex: number;
  toolName: string | undefined;
  isError: boolean;
  /** All text content of the result, joined with newlines. */
  text: string;
}

export interface FakeAnthropicServer {
  /** Base URL to put into `ANTHROPIC_BASE_URL` (no trailing slash). */
  readonly url: string;
  /** Every request received so far, in arrival order. */
  readonly requests: readonly RecordedRequest[];
  /** The tool results from the latest main-loop request (the one carrying the most results). */
  toolResults(): ToolResultRecord[];
  close(): Promise<void>;
}

/** Prefix of the tool_use ids we issue; the step counter only counts ids carrying it. */
const TOOL_ID_PREFIX = 'toolu_01HookwiseE2E';

export function toolUseId(index: number): string {
  return `${TOOL_ID_PREFIX}${String(index).padStart(4, '0')}`;
}

function callIndexOf(id: string): number {
  return id.startsWith(TOOL_ID_PREFIX) ? Number.parseInt(id.slice(TOOL_ID_PREFIX.length), 10) : -1;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface ContentBlock {
  type: string;
  [key: string]: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The content blocks of every message in a Messages API request body. */
function messageBlocks(body: unknown, role?: 'user' | 'assistant'): ContentBlock[] {
  if (!isRecord(body) || !Array.isArray(body.messages)) return [];
  const blocks: ContentBlock[] = [];
  for (const message of body.messages) {
    if (!isRecord(message) || (role !== undefined && message.role !== role)) continue;
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (isRecord(block) && typeof block.type === 'string') blocks.push(block as ContentBlock);
    }
  }
  return blocks;
}

function toolResultText(block: ContentBlock): string {
  const content = block.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part): part is { type: string; text: string } => isRecord(part) && typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n');
}

/**
 * The main agent loop always offers tools; side calls (session titles, summaries, topic detection) do not.
 * Only the main loop must follow the scenario — side calls just get a harmless text.
 */
function isMainLoopRequest(body: unknown): boolean {
  return isRecord(body) && Array.isArray(body.tools) && body.tools.length > 0;
}

interface PlannedTurn {
  /** Content blocks of the assistant message. */
  content: ContentBlock[];
  stopReason: 'tool_use' | 'end_turn';
  label: string;
}

function planTurn(scenario: AnthropicScenario, body: unknown): PlannedTurn {
  const finalText = scenario.finalText ?? 'All done.';
  if (!isMainLoopRequest(body)) {
    return { content: [{ type: 'text', text: 'Hookwise e2e' }], stopReason: 'end_turn', label: 'side-call' };
  }
  const issued = new Set(
    messageBlocks(body, 'assistant')
      .filter((b) => b.type === 'tool_use' && typeof b.id === 'string' && callIndexOf(b.id) >= 0)
      .map((b) => b.id as string),
  );
  const calls = scenario.toolCalls;
  let next: number[] = [];
  if (issued.size < calls.length) {
    next = scenario.batching === 'parallel' ? calls.map((_, i) => i) : [issued.size];
    // Never re-issue an id the client already has (it would reject duplicate tool_use ids).
    next = next.filter((i) => !issued.has(toolUseId(i)));
  }
  if (next.length === 0) {
    return { content: [{ type: 'text', text: finalText }], stopReason: 'end_turn', label: 'final-text' };
  }
  return {
    content: next.map((i) => ({ type: 'tool_use', id: toolUseId(i), name: calls[i]!.name, input: calls[i]!.input })),
    stopReason: 'tool_use',
    label: `tool-calls:${next.join(',')}`,
  };
}

function sse(res: ServerResponse, event: string, data: Json): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

let messageCounter = 0;

function modelOf(body: unknown): string {
  return isRecord(body) && typeof body.model === 'string' ? body.model : 'claude-fake';
}

function writeStreamingMessage(res: ServerResponse, body: unknown, turn: PlannedTurn): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'request-id': `req_fake_${messageCounter}`,
  });
  const usage = { input_tokens: 10, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  sse(res, 'message_start', {
    type: 'message_start',
    message: {
      id: `msg_fake_${++messageCounter}`,
      type: 'message',
      role: 'assistant',
      model: modelOf(body),
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  });
  turn.content.forEach((block, index) => {
    if (block.type === 'tool_use') {
      sse(res, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: block.id as string, name: block.name as string, input: {} },
      });
      // The real API streams the input as JSON fragments; send it whole in one delta (a valid fragmenting).
      sse(res, 'content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
      });
    } else {
      sse(res, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '' },
      });
      sse(res, 'content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'text_delta', text: String(block.text) },
      });
    }
    sse(res, 'content_block_stop', { type: 'content_block_stop', index });
  });
  sse(res, 'message_delta', {
    type: 'message_delta',
    delta: { stop_reason: turn.stopReason, stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  sse(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

function writeJson(res: ServerResponse, status: number, data: Json): void {
  const text = JSON.stringify(data);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseBody(text: string): unknown {
  if (text === '') return '';
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export async function startFakeAnthropic(scenario: AnthropicScenario): Promise<FakeAnthropicServer> {
  const requests: RecordedRequest[] = [];

  const server = createServer((req, res) => {
    void (async () => {
      const receivedAt = performance.now();
      const raw = await readBody(req);
      const body = parseBody(raw);
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const record: RecordedRequest = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        body,
        answeredWith: '',
        receivedAt,
      };
      res.once('finish', () => (record.answeredAt = performance.now()));
      requests.push(record);

      if (record.method === 'POST' && path.endsWith('/v1/messages')) {
        const turn = planTurn(scenario, body);
        record.answeredWith = turn.label;
        if (isRecord(body) && body.stream === true) {
          writeStreamingMessage(res, body, turn);
        } else {
          writeJson(res, 200, {
            id: `msg_fake_${++messageCounter}`,
            type: 'message',
            role: 'assistant',
            model: modelOf(body),
            content: turn.content as Json,
            stop_reason: turn.stopReason,
            stop_sequence: null,
            usage: { input_tokens: 10, output_tokens: 5 },
          });
        }
        return;
      }
      if (record.method === 'POST' && path.endsWith('/v1/messages/count_tokens')) {
        record.answeredWith = 'count_tokens';
        writeJson(res, 200, { input_tokens: 100 });
        return;
      }
      if (record.method === 'HEAD') {
        record.answeredWith = 'head';
        res.writeHead(200);
        res.end();
        return;
      }
      if (record.method === 'GET' && path.endsWith('/v1/models')) {
        record.answeredWith = 'models';
        writeJson(res, 200, { data: [], has_more: false, first_id: null, last_id: null });
        return;
      }
      // Anything else: answer at once with the API's error shape so the client never waits on us.
      record.answeredWith = 'not-found';
      writeJson(res, 404, { type: 'error', error: { type: 'not_found_error', message: `fake: no route ${path}` } });
    })().catch((error: unknown) => {
      if (!res.headersSent)
        writeJson(res, 500, { type: 'error', error: { type: 'api_error', message: String(error) } });
      else res.end();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    toolResults(): ToolResultRecord[] {
      // The latest main-loop request carries the whole history, so it holds every tool_result sent so far.
      let best: ContentBlock[] = [];
      for (const request of requests) {
        if (!isMainLoopRequest(request.body)) continue;
        const results = messageBlocks(request.body, 'user').filter((b) => b.type === 'tool_result');
        if (results.length >= best.length) best = results;
      }
      return best.map((block) => {
        const id = typeof block.tool_use_id === 'string' ? block.tool_use_id : '';
        const callIndex = callIndexOf(id);
        return {
          toolUseId: id,
          callIndex,
          toolName: scenario.toolCalls[callIndex]?.name,
          isError: block.is_error === true,
          text: toolResultText(block),
        };
      });
    },
    close(): Promise<void> {
      // Keep-alive sockets from the client would keep close() pending; drop them.
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
