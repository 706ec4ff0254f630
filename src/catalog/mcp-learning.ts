/**
 * How far one approval of an MCP tool carries (memory/subject.ts remembers a call by what this leaves in):
 *
 *   - a catalogued tool that reads the web (`reads-remote`: a fetch, a browser navigation) fetching a public web
 *     page: any public page — a network read like the one approved, as the web-search tools' free-text queries
 *     already are. A page on this machine or an internal network (an IP literal, `localhost`, a single-label or
 *     `.internal` / `.local` name), one with a query string (what it sends is more than an address), a
 *     password or a port of its own, or one the sanitizer touched stays remembered by its origin: one approval
 *     covers that site only. Cloud metadata and other schemes never reach memory (the MCP tier denies or asks);
 *   - an unknown tool whose name says it reads (`get_issue`, `list_files`, `search`, `download_book`, and no
 *     writing verb anywhere in it): its identifier fields (one plain word: `SHOP-121`, `isbn-978…`) say which
 *     thing is read, as a query says what is searched (not for a tool that names secrets: `get_secret`). Values that look like a path, URL, SQL or code are
 *     judged and remembered by value whatever the tool's name, and a new field set is a new shape.
 *
 * Pure.
 */
import { sanitize } from '../sanitize/index.js';
import type { PreparedMcp } from './mcp-call.js';

/** Top-level names that never lead to the public web. */
const PRIVATE_TLDS = new Set([
  'localhost',
  'local',
  'internal',
  'intranet',
  'lan',
  'home',
  'corp',
  'private',
  'localdomain',
  'test',
  'example',
  'invalid',
  'arpa',
]);

/** A public web page hookwise may treat as one of many: see the module comment. */
export function publicWebPage(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
  if (url.username !== '' || url.password !== '' || url.port !== '' || url.search !== '') return false;
  const labels = url.hostname.toLowerCase().split('.');
  const tld = labels.at(-1)!;
  // A name of two or more labels ending in an alphabetic top-level name: never an IP literal (dotted, hex, [v6]).
  if (labels.length < 2 || !/^[a-z]{2,63}$/.test(tld) || PRIVATE_TLDS.has(tld)) return false;
  if (labels.some((l) => !/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(l))) return false;
  // A name that spells an address (10.0.0.5.nip.io) may resolve anywhere it says.
  if (/(?:^|[.-])\d{1,3}[.-]\d{1,3}[.-]\d{1,3}[.-]\d{1,3}(?:[.-]|$)/.test(url.hostname)) return false;
  return sanitize(value).findings.length === 0;
}

const READ_VERBS = new Set([
  'get',
  'list',
  'search',
  'find',
  'read',
  'fetch',
  'query',
  'show',
  'describe',
  'view',
  'lookup',
  'retrieve',
  'download',
]);

const WRITE_VERBS = new Set([
  'add',
  'append',
  'apply',
  'approve',
  'archive',
  'assign',
  'cancel',
  'clear',
  'close',
  'comment',
  'create',
  'delete',
  'deploy',
  'destroy',
  'disable',
  'drop',
  'edit',
  'enable',
  'exec',
  'execute',
  'grant',
  'import',
  'insert',
  'invite',
  'kill',
  'lock',
  'mark',
  'merge',
  'modify',
  'move',
  'patch',
  'post',
  'publish',
  'purge',
  'push',
  'put',
  'reject',
  'remove',
  'rename',
  'reply',
  'reset',
  'restart',
  'revoke',
  'run',
  'save',
  'send',
  'set',
  'start',
  'stop',
  'store',
  'submit',
  'sync',
  'toggle',
  'transition',
  'trigger',
  'unlock',
  'update',
  'upload',
  'upsert',
  'write',
]);

/** What a reading tool hands out that matters which one it is: each secret read is its own question. */
const SECRET_WORDS = new Set([
  'secret',
  'secrets',
  'password',
  'passwords',
  'passphrase',
  'token',
  'tokens',
  'credential',
  'credentials',
  'key',
  'keys',
  'apikey',
  'cert',
  'certificate',
  'private',
  'env',
  'vault',
]);

/** A name's words: `get_issue`, `getIssue`, `get-issue` → get, issue. */
function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

/**
 * An unknown tool's name reads as a read of ordinary things: the tool's name starts with a reading verb, and
 * neither it nor the server's name has a writing verb or a word for a secret (`get_secret`, a `vault` server's
 * `get_item`: which secret is the question).
 */
export function readsByName(server: string, tool: string): boolean {
  const words = wordsOf(tool);
  return (
    words.length > 0 &&
    READ_VERBS.has(words[0]!) &&
    ![...words, ...wordsOf(server)].some((w) => WRITE_VERBS.has(w) || SECRET_WORDS.has(w))
  );
}

/** What one approval of a call of this tool carries over for a URL field's values and for identifiers. */
export function learnsAcross(mcp: PreparedMcp): { publicWeb: boolean; identifiers: boolean } {
  return {
    publicWeb: mcp.match !== undefined && mcp.match.tool.effect === 'reads-remote',
    identifiers: mcp.match === undefined && readsByName(mcp.name.server, mcp.name.tool),
  };
}
