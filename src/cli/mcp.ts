/** `hookwise mcp`: the queue's MCP server on stdio, for the lead session (src/mcp/server.ts). */
import { serveStdio } from '../mcp/server.js';
import { locations } from '../util/locations.js';
import { answerItem, snapshot } from './queue.js';

export async function mcpServe(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const where = locations(env);
  await serveStdio({ snapshot: () => snapshot(where), answer: (id, answer) => answerItem(where, id, answer) });
}
