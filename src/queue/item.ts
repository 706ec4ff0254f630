/** Queue item helpers both backends share: ids, a new item from a request, another identical call joining it. */
import { nodeCrypto } from '../util/node-crypto.js';
import {
  MAX_RECENT,
  MAX_SESSIONS_SHOWN,
  recentOutcome,
  type HumanAnswer,
  type PendingItem,
  type PendingRequest,
  type RecentItem,
} from './types.js';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** A random id (50 bits): never derived from the call, so it carries nothing of it. */
export function newItemId(): string {
  const bytes = nodeCrypto().randomBytes(10);
  let id = '';
  for (const b of bytes) id += BASE32[b & 31];
  return id;
}

export function itemFrom(id: string, request: PendingRequest, now = new Date()): PendingItem {
  const item: PendingItem = {
    id,
    dedupe: request.dedupe,
    created: now.toISOString(),
    sessions: [request.session],
    waiting: 1,
    role: request.role,
    tool: request.tool,
    call: request.call,
    reason: request.reason,
    tier: request.tier,
    project: request.project,
  };
  if (request.kind !== undefined && request.kind !== 'human') item.kind = request.kind;
  if (request.task !== undefined) item.task = request.task;
  if (request.rule !== undefined) item.rule = request.rule;
  if (request.recommendation !== undefined) item.recommendation = request.recommendation;
  return item;
}

/** Another identical call waits on the item: its session is listed (bounded), the count goes up. */
export function join(item: PendingItem, request: PendingRequest): void {
  if (!item.sessions.includes(request.session) && item.sessions.length < MAX_SESSIONS_SHOWN)
    item.sessions.push(request.session);
  // A later identical call may carry the supervisor's opinion where the first did not.
  if (item.recommendation === undefined && request.recommendation !== undefined)
    item.recommendation = request.recommendation;
}

export function recentOf(item: PendingItem, answer: HumanAnswer | undefined, resolved: number): RecentItem {
  return {
    id: item.id,
    role: item.role,
    tool: item.tool,
    call: item.call,
    project: item.project,
    outcome: recentOutcome(answer),
    via: answer?.via ?? 'timeout',
    resolved,
    ts: new Date().toISOString(),
  };
}

export function pushRecent(list: RecentItem[], entry: RecentItem): void {
  list.unshift(entry);
  if (list.length > MAX_RECENT) list.length = MAX_RECENT;
}
