/**
 * The exact decision cache (tier 1). Key: XXH3-64 of the tool and the call's normalized, sanitized subject
 * (memory/subject.ts: parsed segments plus canonical write targets, never the raw string). The role is
 * not hashed in: an entry is stored for a role or for every role (`*`), and a lookup takes the entries for
 * the session's role and for `*` from every scope, merged DENY > ASK > ALLOW (policy/scopes.ts).
 *
 * The tier itself is memory/exact-tier.ts; this module holds the key, the map and how a record reads.
 */
import { mergeScopes } from '../policy/scopes.js';
import { xxh3Hex } from '../util/xxhash.js';
import { ANY_ROLE, type LoadedRecord } from './store.js';

/** The cache key of a subject (hex XXH3-64 of `tool NUL subject`). */
export function cacheKey(tool: string, subject: string): string {
  return xxh3Hex(`${tool}\u0000${subject}`);
}

export class ExactCache {
  private readonly byKey = new Map<string, LoadedRecord[]>();
  private count = 0;

  constructor(records: Iterable<LoadedRecord> = []) {
    for (const r of records) this.add(r);
  }

  get size(): number {
    return this.count;
  }

  add(record: LoadedRecord): void {
    const list = this.byKey.get(record.key);
    if (list === undefined) this.byKey.set(record.key, [record]);
    else list.push(record);
    this.count++;
  }

  /** Every record with this key (any role, any scope). */
  all(key: string): readonly LoadedRecord[] {
    return this.byKey.get(key) ?? [];
  }

  /** The effective remembered decision for this key and role, across scopes. */
  lookup(key: string, role: string): LoadedRecord | undefined {
    const list = this.byKey.get(key);
    if (list === undefined) return undefined;
    return mergeScopes(list.filter((r) => r.role === role || r.role === ANY_ROLE));
  }
}

/** `file:line`, relative to the project root when inside it. */
export function recordSource(r: LoadedRecord, projectRoot: string): string {
  const file = r.file.startsWith(`${projectRoot}/`) ? r.file.slice(projectRoot.length + 1) : r.file;
  return `${file}:${r.line}`;
}

const DECIDED_BY: Record<string, string> = {
  human: 'a human',
  rule: 'a rule',
  supervisor: 'the supervisor',
  'host-prompt': "a human at the host's prompt",
  confine: 'the walls of a confined run',
};

/** How a remembered record reads in a reason: who decided, in which scope, when. */
export function describeRecord(r: LoadedRecord): string {
  const who = DECIDED_BY[r.decided_by] ?? r.decided_by;
  return `${who} (${r.scope} scope${r.role === ANY_ROLE ? '' : `, role ${r.role}`}, ${r.ts.slice(0, 10)})`;
}
