/**
 * A fake Anthropic Messages API on loopback, for tier 3's tests: POST /v1/messages answered with a scripted
 * reply, as one JSON body or as a server-sent event stream (when the request says `stream: true`), the way
 * the real API frames them. Every request body is kept, so a test can check what left the process.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ContentBlock =
  { type: 'text'; text: string } | { type: 'tool_use'; id?: string; name: string; input: unknown };

/** What the fake answers with. */
export type Reply =
  | { kind: 'message'; content: ContentBlock[]; stopReason?: string }
  | { kind: 'error'; status: number; type: string; message?: string }
  /** Hold the request open without answering (a timeout), until the server closes. */
  | { kind: 'hang' }
  /** Answer after a delay (ms). */
  | { kind: 'delayed'; ms: number; reply: Reply };

export interface FakeApi {
  url: string;
  /** Every request body received, parsed, in order (with the raw text). */
  requests: { body: Record<string, unknown>; raw: string; headers: IncomingMessage['headers'] }[];
  /** The reply to the next requests (default: an allow with confidence 0.95). */
  reply: Reply | ((body: Record<string, unknown>) => Reply);
  close(): Promise<void>;
}

export const answer = (decision: string, confidence: number, reason = 'fits the task'): Reply => ({
  kind: 'message',
  content: [{ type: 'tool_use', name: 'record_decision', input: { decision, confidence, reason } }],
  stopReason: 'tool_use',
});

export async function startFakeApi(): Promise<FakeApi> {
  const open = new Set<ServerResponse>();
  const api: FakeApi = {
    url: '',
    requests: [],
    reply: answer('allow', 0.95),
    close: async () => {
      for (const res of open) res.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        // kept raw; the reply decides
      }
      api.requests.push({ body, raw, headers: req.headers });
      if (req.method !== 'POST' || req.url?.split('?')[0] !== '/v1/messages') {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: req.url } }));
        return;
      }
      open.add(res);
      res.on('close', () => open.delete(res));
      const reply = typeof api.reply === 'function' ? api.reply(body) : api.reply;
      respond(res, reply, body.stream === true, String(body.model ?? 'fake-model'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return api;
}

function respond(res: ServerResponse, reply: Reply, stream: boolean, model: string): void {
  switch (reply.kind) {
    case 'hang':
      return;
    case 'delayed':
      setTimeout(() => respond(res, reply.reply, stream, model), reply.ms);
      return;
    case 'error':
      res.writeHead(reply.status, {
        'content-type': 'application/json',
        ...(reply.status === 429 ? { 'retry-after': '1' } : {}),
      });
      res.end(JSON.stringify({ type: 'error', error: { type: reply.type, message: reply.message ?? reply.type } }));
      return;
    case 'message': {
      const content = reply.content.map((b, i) => (b.type === 'tool_use' ? { ...b, id: b.id ?? `toolu_${i}` } : b));
      const message = {
        id: 'msg_fake',
        type: 'message',
        role: 'assistant',
        model,
        content,
        stop_reason: reply.stopReason ?? 'tool_use',
        stop_sequence: null,
        usage: { input_tokens: 100, output_tokens: 20 },
      };
      if (!stream) {
        res
          .writeHead(200, { 'content-type': 'application/json', 'request-id': 'req_fake' })
          .end(JSON.stringify(message));
        return;
      }
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        'request-id': 'req_fake',
      });
      const send = (event: string, data: unknown): void =>
        void res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      send('message_start', {
        type: 'message_start',
        message: { ...message, content: [], stop_reason: null, usage: { input_tokens: 100, output_tokens: 1 } },
      });
      content.forEach((block, index) => {
        if (block.type === 'text') {
          send('content_block_start', {
            type: 'content_block_start',
            index,
            content_block: { type: 'text', text: '' },
          });
          send('content_block_delta', {
            type: 'content_block_delta',
            index,
            delta: { type: 'text_delta', text: block.text },
          });
        } else {
          send('content_block_start', {
            type: 'content_block_start',
            index,
            content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
          });
          // The input arrives as JSON text in pieces, as the real API sends it.
          const json = JSON.stringify(block.input);
          const half = Math.floor(json.length / 2);
          for (const part of [json.slice(0, half), json.slice(half)])
            send('content_block_delta', {
              type: 'content_block_delta',
              index,
              delta: { type: 'input_json_delta', partial_json: part },
            });
        }
        send('content_block_stop', { type: 'content_block_stop', index });
      });
      send('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: message.stop_reason, stop_sequence: null },
        usage: { output_tokens: 20 },
      });
      send('message_stop', { type: 'message_stop' });
      res.end();
      return;
    }
  }
}
