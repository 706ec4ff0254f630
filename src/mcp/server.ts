/**
 * `hookwise mcp`: a Model Context Protocol server over stdio (newline-delimited JSON-RPC 2.0) that gives the
 * team's lead session two tools on hookwise's queue (issue 15):
 *
 *   pending_requests   what waits: supervise items (tier 3, `supervisor.backend: agent`) and human asks (tier 4)
 *   answer_request     {id, decision: allow|deny|ask, confidence 0..1, reason} — the supervisor's own schema
 *
 * Only the subset of MCP it needs: initialize, notifications/initialized, ping, tools/list, tools/call.
 * Written here rather than taking the SDK: five methods over one framing, no new dependency in the hook's
 * install, and the server starts in the time Node takes to start.
 *
 * Who may call the tools is not decided here: the gate decides (policy/queue-tools.ts), from the session the
 * host names — only a lead session may answer. This server answers through the daemon when one runs (its
 * token, in the private runtime directory), else through the queue files, as `hookwise approve/deny` do.
 * Everything it prints is sanitized again on the way out (the items are already; a file may have been edited).
 */
import { createInterface } from 'node:readline';
import { VERSION } from '../core/version.js';
import { shownError } from '../sanitize/shown.js';
import type { QueueSnapshot } from '../queue/combined.js';
import { ID_PATTERN, unknownId, type AnswerResult, type HumanAnswer } from '../queue/types.js';
import { sanitize } from '../sanitize/index.js';
import { parseAnswer, MAX_REASON_CHARS } from '../supervisor/backend.js';

/** A line longer than this is not a request we read (limits count bytes). */
export const MAX_LINE_BYTES = 1 << 20;
const PROTOCOL_VERSIONS = ['2025-06-18', '2025-03-26', '2024-11-05'] as const;

export interface QueueAccess {
  snapshot(): Promise<QueueSnapshot>;
  answer(id: string, answer: HumanAnswer): Promise<AnswerResult>;
}

type Id = string | number | null;
interface JsonRpcResponse {
  jsonrpc: '2.0';
  id: Id;
  result?: unknown;
  error?: { code: number; message: string };
}

const TOOLS = [
  {
    name: 'pending_requests',
    description:
      "Lists the permission requests waiting in hookwise's queue: `supervise` items wait for the supervisor's judgement (yours), `human` items for a human's. Each has an id, the sessions waiting, their role and task, the call (sanitized: secrets are <REDACTED>), why it waits, the supervisor's recommendation if any, its age in seconds and how many identical calls wait on it.",
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  },
  {
    name: 'answer_request',
    description:
      "Answers one queue item. decision: allow | deny | ask; confidence: 0..1 (below the configured threshold the call goes to a human with your answer as a recommendation); reason: one or two sentences a human will read. When unsure, answer ask with a low confidence. A human item is answered as the human's decision (allow or deny only; ask leaves it for a human).",
    inputSchema: {
      type: 'object',
      properties: {
        id: { type: 'string', description: 'the item id from pending_requests (10 letters and digits)' },
        decision: { type: 'string', enum: ['allow', 'deny', 'ask'] },
        confidence: { type: 'number', minimum: 0, maximum: 1 },
        reason: { type: 'string', minLength: 1, maxLength: MAX_REASON_CHARS },
      },
      required: ['id', 'decision', 'confidence', 'reason'],
      additionalProperties: false,
    },
  },
] as const;

const textResult = (text: string, isError = false): { content: { type: 'text'; text: string }[]; isError?: true } => ({
  content: [{ type: 'text', text: sanitize(text).text }],
  ...(isError ? { isError: true as const } : {}),
});

const age = (created: string, now: number): number => Math.max(0, Math.round((now - Date.parse(created)) / 1000));

async function pendingRequests(queue: QueueAccess): Promise<ReturnType<typeof textResult>> {
  const snap = await queue.snapshot();
  const now = Date.now();
  const items = snap.items.map((i) => ({
    id: i.id,
    kind: i.kind ?? 'human',
    sessions: i.sessions,
    role: i.role,
    task: i.task ?? null,
    tool: i.tool,
    call: i.call,
    reason: i.reason,
    project: i.project,
    recommendation: i.recommendation ?? null,
    age_s: age(i.created, now),
    waiting: i.waiting,
  }));
  return textResult(JSON.stringify({ items, problems: snap.problems }, null, 2));
}

async function answerRequest(
  queue: QueueAccess,
  args: Record<string, unknown>,
): Promise<ReturnType<typeof textResult>> {
  const { id, ...rest } = args;
  if (typeof id !== 'string' || !ID_PATTERN.test(id))
    return textResult(unknownId(typeof id === 'string' ? id : String(id)), true);
  const parsed = parseAnswer(rest, 'agent');
  if (parsed.kind === 'failure')
    return textResult(`${parsed.why}; expected {id, decision: allow|deny|ask, confidence: 0..1, reason}`, true);
  const item = (await queue.snapshot()).items.find((i) => i.id === id);
  if (item === undefined) return textResult(unknownId(id), true);
  const supervise = item.kind === 'supervise';
  if (!supervise && parsed.decision === 'ask')
    return textResult(
      `queue item ${id} waits for a human's allow or deny: an ask leaves it to a human (hookwise approve/deny, or the queue page)`,
      true,
    );
  const answer: HumanAnswer = {
    verdict: parsed.decision === 'deny' ? 'deny' : 'approve',
    alwaysAsk: parsed.decision === 'ask',
    addRule: false,
    via: 'mcp',
    ...(supervise
      ? { supervisor: { decision: parsed.decision, confidence: parsed.confidence, reason: parsed.reason } }
      : {}),
  };
  const result = await queue.answer(id, answer);
  if (!result.ok) return textResult(result.why, true);
  const what = supervise
    ? `the supervisor's answer (${parsed.decision}, confidence ${parsed.confidence.toFixed(2)}) reached`
    : `${parsed.decision === 'deny' ? 'denied' : 'approved'}`;
  return textResult(
    `${what} queue item ${id}: ${result.resolved} waiting call${result.resolved === 1 ? '' : 's'} answered`,
  );
}

/** One JSON-RPC message in, its response out (undefined for a notification). Never throws. */
export async function handleMessage(message: unknown, queue: QueueAccess): Promise<JsonRpcResponse | undefined> {
  if (typeof message !== 'object' || message === null || Array.isArray(message))
    return {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'not a JSON-RPC request object (batches are not supported)' },
    };
  const m = message as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
  const hasId = typeof m.id === 'string' || typeof m.id === 'number';
  const id: Id = hasId ? (m.id as string | number) : null;
  if (m.jsonrpc !== '2.0' || typeof m.method !== 'string')
    return hasId || m.id === undefined
      ? { jsonrpc: '2.0', id, error: { code: -32600, message: 'expected {"jsonrpc": "2.0", "method": …}' } }
      : undefined;
  // A notification (no id) gets no response, whatever it is.
  if (m.id === undefined) return undefined;
  const ok = (result: unknown): JsonRpcResponse => ({ jsonrpc: '2.0', id, result });
  const params = typeof m.params === 'object' && m.params !== null ? (m.params as Record<string, unknown>) : {};
  try {
    switch (m.method) {
      case 'initialize': {
        const asked = params.protocolVersion;
        const version = (PROTOCOL_VERSIONS as readonly unknown[]).includes(asked)
          ? (asked as string)
          : PROTOCOL_VERSIONS[0];
        return ok({
          protocolVersion: version,
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: 'hookwise', version: VERSION },
        });
      }
      case 'ping':
        return ok({});
      case 'tools/list':
        return ok({ tools: TOOLS });
      case 'tools/call': {
        const args =
          typeof params.arguments === 'object' && params.arguments !== null && !Array.isArray(params.arguments)
            ? (params.arguments as Record<string, unknown>)
            : {};
        switch (params.name) {
          case 'pending_requests':
            return ok(await pendingRequests(queue));
          case 'answer_request':
            return ok(await answerRequest(queue, args));
          default:
            return {
              jsonrpc: '2.0',
              id,
              error: {
                code: -32602,
                message: `no such tool: ${sanitize(String(params.name)).text.slice(0, 80)} (tools: pending_requests, answer_request)`,
              },
            };
        }
      }
      default:
        return {
          jsonrpc: '2.0',
          id,
          error: { code: -32601, message: `method not supported: ${sanitize(m.method).text.slice(0, 80)}` },
        };
    }
  } catch (error) {
    // A tool that could not reach the queue: an error result the model reads, not a crash of the server.
    return ok(textResult(`hookwise could not reach its queue: ${shownError(error)}`, true));
  }
}

/** Serves stdin → stdout until stdin ends. Requests are answered in order, one at a time. */
export async function serveStdio(
  queue: QueueAccess,
  input: NodeJS.ReadableStream = process.stdin,
  output: NodeJS.WritableStream = process.stdout,
): Promise<void> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  const write = (response: JsonRpcResponse): void => {
    output.write(JSON.stringify(response) + '\n');
  };
  for await (const line of lines) {
    if (line.trim() === '') continue;
    if (Buffer.byteLength(line) > MAX_LINE_BYTES) {
      write({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: `request longer than ${MAX_LINE_BYTES} bytes` },
      });
      continue;
    }
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      write({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error: a line is not JSON' } });
      continue;
    }
    const response = await handleMessage(message, queue);
    if (response !== undefined) write(response);
  }
}
