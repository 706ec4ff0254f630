/**
 * A fake Gemini API (generativelanguage `v1beta`) for driving the real Gemini CLI offline.
 *
 * The real client is pointed at it with `GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:<port>` and
 * `GEMINI_API_KEY=fake`. The main agent loop streams `…:streamGenerateContent?alt=sse`; utility calls
 * (model routing, next-speaker check, …) use `…:generateContent` and expect JSON text matching a schema.
 *
 * Like the Anthropic fake, the scenario step is derived from the conversation in each request (how many
 * `functionCall` parts the client echoes back in its history), so retries and side calls can't desync it.
 * Every request is recorded: the `functionResponse` parts the client sends back show what it did with the
 * BeforeTool hook's decision.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedFunctionCall {
  /** Tool name as the Gemini CLI knows it, e.g. `write_file`, `run_shell_command`, `replace`. */
  name: string;
  args: Record<string, unknown>;
}

export interface GeminiScenario {
  functionCalls: ScriptedFunctionCall[];
  /** `sequential` (default): one call per model turn. `parallel`: all calls in the first turn. */
  batching?: 'sequential' | 'parallel';
  finalText?: string;
}

export interface RecordedGeminiRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  answeredWith: string;
}

/** A functionResponse part the client sent back, joined to the scripted call it answers. */
export interface FunctionResponseRecord {
  id: string | undefined;
  /** Index into `scenario.functionCalls`, or -1 when the id is not one of ours. */
  callIndex: number;
  name: string | undefined;
  /** The `response` object as sent: typically `{output: …}` on success or `{error: …}` on failure. */
  response: Record<string, unknown>;
  isError: boolean;
  /** `response.error` or `response.output` flattened to text. */
  text: string;
}

export interface FakeGeminiServer {
  readonly url: string;
  readonly requests: readonly RecordedGeminiRequest[];
  functionResponses(): FunctionResponseRecord[];
  close(): Promise<void>;
}

const CALL_ID_PREFIX = 'hookwise-e2e-call-';

export function functionCallId(index: number): string {
  return `${CALL_ID_PREFIX}${index}`;
}

function callIndexOf(id: unknown): number {
  return typeof id === 'string' && id.startsWith(CALL_ID_PREFIX)
    ? Number.parseInt(id.slice(CALL_ID_PREFIX.length), 10)
    : -1;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** All parts of the request's `contents`, optionally only those of one role. */
function parts(body: unknown, role?: 'user' | 'model'): Record<string, unknown>[] {
  if (!isRecord(body) || !Array.isArray(body.contents)) return [];
  const out: Record<string, unknown>[] = [];
  for (const content of body.contents) {
    if (!isRecord(content) || (role !== undefined && content.role !== role)) continue;
    if (!Array.isArray(content.parts)) continue;
    for (const part of content.parts) if (isRecord(part)) out.push(part);
  }
  return out;
}

/** The main loop offers function declarations; utility calls (routing, next-speaker, …) do not. */
function isMainLoopRequest(body: unknown): boolean {
  if (!isRecord(body) || !Array.isArray(body.tools)) return false;
  return body.tools.some(
    (tool) => isRecord(tool) && Array.isArray(tool.functionDeclarations) && tool.functionDeclarations.length > 0,
  );
}

interface PlannedTurn {
  parts: Json[];
  label: string;
}

function planMainTurn(scenario: GeminiScenario, body: unknown): PlannedTurn {
  const calls = scenario.functionCalls;
  const issued = parts(body, 'model').filter((p) => isRecord(p.functionCall)).length;
  let next: number[] = [];
  if (issued < calls.length) {
    next = scenario.batching === 'parallel' ? (issued === 0 ? calls.map((_, i) => i) : []) : [issued];
  }
  if (next.length === 0) {
    return { parts: [{ text: scenario.finalText ?? 'All done.' }], label: 'final-text' };
  }
  return {
    parts: next.map((i) => ({
      functionCall: { id: functionCallId(i), name: calls[i]!.name, args: calls[i]!.args as Json },
    })),
    label: `function-calls:${next.join(',')}`,
  };
}

/**
 * Utility calls ask for JSON matching a schema. Answer with a value that keeps the run on its scripted
 * path: route to the cheap model, and say the user speaks next (so the client doesn't loop on the fake).
 */
const PREFERRED_JSON_VALUES: Record<string, Json> = {
  next_speaker: 'user',
  model_choice: 'flash',
  reasoning: 'hookwise e2e fake model',
};

function valueForSchema(schema: unknown, key?: string): Json {
  if (key !== undefined && key in PREFERRED_JSON_VALUES) return PREFERRED_JSON_VALUES[key]!;
  if (!isRecord(schema)) return null;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0] as Json;
  const type = typeof schema.type === 'string' ? schema.type.toLowerCase() : undefined;
  if (type === 'object' || isRecord(schema.properties)) {
    const out: { [k: string]: Json } = {};
    const properties = isRecord(schema.properties) ? schema.properties : {};
    for (const [name, sub] of Object.entries(properties)) out[name] = valueForSchema(sub, name);
    return out;
  }
  if (type === 'array') return [];
  if (type === 'string') return '';
  // Respect bounds: the client validates answers (e.g. the router's `complexity_score` must be >= 1).
  if (type === 'number' || type === 'integer') return typeof schema.minimum === 'number' ? schema.minimum : 1;
  if (type === 'boolean') return false;
  return null;
}

function planSideTurn(body: unknown): PlannedTurn {
  const config = isRecord(body) && isRecord(body.generationConfig) ? body.generationConfig : {};
  const schema = config.responseJsonSchema ?? config.responseSchema;
  if (schema !== undefined || config.responseMimeType === 'application/json') {
    return { parts: [{ text: JSON.stringify(valueForSchema(schema ?? { type: 'object' })) }], label: 'side-json' };
  }
  return { parts: [{ text: 'Hookwise e2e' }], label: 'side-text' };
}

function responseEnvelope(model: string, turn: PlannedTurn): Json {
  return {
    candidates: [{ content: { role: 'model', parts: turn.parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: model,
  };
}

function writeJson(res: ServerResponse, status: number, data: Json): void {
  const text = JSON.stringify(data);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
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

function flatten(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** `/v1beta/models/gemini-2.5-flash:streamGenerateContent` → `{model, method}`. */
function parseModelPath(path: string): { model: string; method: string } | undefined {
  const match = /\/models\/([^/:]+):([A-Za-z]+)$/.exec(path);
  return match ? { model: match[1]!, method: match[2]! } : undefined;
}

export async function startFakeGemini(scenario: GeminiScenario): Promise<FakeGeminiServer> {
  const requests: RecordedGeminiRequest[] = [];

  const server = createServer((req, res) => {
    void (async () => {
      const body = parseBody(await readBody(req));
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const record: RecordedGeminiRequest = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        body,
        answeredWith: '',
      };
      requests.push(record);
      const route = record.method === 'POST' ? parseModelPath(path) : undefined;

      if (route && (route.method === 'streamGenerateContent' || route.method === 'generateContent')) {
        const turn = isMainLoopRequest(body) ? planMainTurn(scenario, body) : planSideTurn(body);
        record.answeredWith = turn.label;
        const envelope = responseEnvelope(route.model, turn);
        if (route.method === 'streamGenerateContent') {
          res.writeHead(200, {
            'content-type': 'text/event-stream',
            'cache-control': 'no-cache',
            connection: 'keep-alive',
          });
          // One chunk carrying the whole turn is a valid stream (the client concatenates chunks).
          res.end(`data: ${JSON.stringify(envelope)}\r\n\r\n`);
        } else {
          writeJson(res, 200, envelope);
        }
        return;
      }
      if (route?.method === 'countTokens') {
        record.answeredWith = 'countTokens';
        writeJson(res, 200, { totalTokens: 100 });
        return;
      }
      if (route?.method === 'embedContent' || route?.method === 'batchEmbedContents') {
        record.answeredWith = route.method;
        writeJson(res, 200, route.method === 'embedContent' ? { embedding: { values: [0] } } : { embeddings: [] });
        return;
      }
      if (record.method === 'HEAD') {
        record.answeredWith = 'head';
        res.writeHead(200);
        res.end();
        return;
      }
      if (record.method === 'GET' && /\/models\/?$/.test(path)) {
        record.answeredWith = 'models';
        writeJson(res, 200, { models: [] });
        return;
      }
      // Unknown route: fail fast with the API's error shape rather than leave the client waiting.
      record.answeredWith = 'not-found';
      writeJson(res, 404, { error: { code: 404, message: `fake: no route ${path}`, status: 'NOT_FOUND' } });
    })().catch((error: unknown) => {
      if (!res.headersSent) writeJson(res, 500, { error: { code: 500, message: String(error), status: 'INTERNAL' } });
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
    functionResponses(): FunctionResponseRecord[] {
      // The latest main-loop request carries the whole history, hence every functionResponse so far.
      let best: Record<string, unknown>[] = [];
      for (const request of requests) {
        if (!isMainLoopRequest(request.body)) continue;
        const found = parts(request.body, 'user')
          .map((p) => p.functionResponse)
          .filter(isRecord);
        if (found.length >= best.length) best = found;
      }
      return best.map((fr) => {
        const response = isRecord(fr.response) ? fr.response : {};
        const callIndex = callIndexOf(fr.id);
        const isError = response.error !== undefined;
        return {
          id: typeof fr.id === 'string' ? fr.id : undefined,
          callIndex,
          name: typeof fr.name === 'string' ? fr.name : undefined,
          response,
          isError,
          text: flatten(isError ? response.error : response.output),
        };
      });
    },
    close(): Promise<void> {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
