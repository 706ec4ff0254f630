/**
 * The store: where the shared scopes' learned decisions live — one interface, two backends. The files
 * (store/files.ts, the default) are today's per-machine JSONL files (memory/store.ts); PostgreSQL
 * (store/postgres.ts) is a team's fleet on one database. A daemon always decides from its own files,
 * loaded in memory (memory/live.ts): the PostgreSQL store is replicated into them (store/sync.ts), so no
 * decision waits on the network.
 *
 * Shared scopes: `user` (one person's decisions, on each of their machines) and `org` (the team's); a
 * record's `role` field is its role scope (`*` for every role). The project scope stays in git; the session
 * scope stays on its machine.
 */
import type { DecisionRecord } from '../memory/store.js';
import type { StoreKind } from './settings.js';

export const SHARED_SCOPES = ['user', 'org'] as const;
export type SharedScope = (typeof SHARED_SCOPES)[number];

/** A decision of a shared scope and whose it is: the user name (user scope) or the org name (org scope). */
export interface SharedRecord {
  owner: string;
  record: DecisionRecord & { scope: SharedScope };
}

export interface DecisionStore {
  readonly kind: StoreKind;
  /** Adds the records in order; a record already held (same owner, key, role, ts, verdict) is not added twice by PostgreSQL. */
  append(records: readonly SharedRecord[]): Promise<void>;
  /** Every shared-scope record held for this machine's user and the orgs. */
  load(): Promise<SharedRecord[]>;
  close(): Promise<void>;
}

export const isSharedScope = (scope: string): scope is SharedScope =>
  (SHARED_SCOPES as readonly string[]).includes(scope);
