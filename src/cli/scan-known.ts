/**
 * What `hookwise scan` knows hookwise wrote itself: the daemon's bearer token in the Authorization header of
 * each http hook `install --claude` put in a Claude Code settings file. That file is personal (kept out of
 * git) and the token is the user's own, so reporting it would only teach users to ignore the scanner. Known
 * means exact: the token of this user's daemon endpoint, in that header of a handler install recognises as
 * its own, and nowhere else in the file — any other secret in the file, another token in the same header, or
 * this token anywhere else is still reported.
 */
import { isHookwiseHandler } from './install.js';

export interface Span {
  start: number;
  end: number;
}

/** The spans of `"Authorization": "Bearer <token>"` in hookwise's own http hooks, or none. */
export function knownTokenSpans(text: string, token: string | undefined): Span[] {
  if (token === undefined || token === '' || !text.includes(token)) return [];
  let settings: unknown;
  try {
    settings = JSON.parse(text);
  } catch {
    return [];
  }
  const ours = ownHttpHandlers(settings).filter((h) => authorization(h) === `Bearer ${token}`).length;
  const header = new RegExp(`"Authorization"\\s*:\\s*"Bearer ${escapeRegex(token)}"`, 'g');
  const spans = [...text.matchAll(header)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
  const everywhere = text.split(token).length - 1;
  // Every occurrence of the token is one of our headers, and every one of our headers was found in the text.
  return spans.length === ours && everywhere === ours ? spans : [];
}

function ownHttpHandlers(settings: unknown): Record<string, unknown>[] {
  if (!isObject(settings) || !isObject(settings.hooks)) return [];
  const handlers: Record<string, unknown>[] = [];
  for (const groups of Object.values(settings.hooks)) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups) {
      if (!isObject(group) || !Array.isArray(group.hooks)) continue;
      for (const h of group.hooks) if (isObject(h) && h.type === 'http' && isHookwiseHandler(h)) handlers.push(h);
    }
  }
  return handlers;
}

function authorization(handler: Record<string, unknown>): unknown {
  return isObject(handler.headers) ? handler.headers.Authorization : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
