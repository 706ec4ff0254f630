/**
 * The files backend: the user and org scopes' JSONL files under the user's config directory, read and
 * written by memory/store.ts exactly as without a store. The `owner` of a user record is this machine's
 * user (there is one user per config directory); of an org record, the org's directory name.
 */
import type { StoreTarget } from '../memory/store.js';
import { appendRecords, assertWritableRecord, loadScope } from '../memory/store.js';
import { orgNames } from '../memory/load.js';
import type { DecisionStore, SharedRecord } from './types.js';

export class FileDecisionStore implements DecisionStore {
  readonly kind = 'files' as const;

  constructor(
    readonly userConfigDir: string,
    /** The user name shared records of the user scope carry. */
    readonly user: string,
  ) {}

  /** Where a shared record lies on this machine. */
  targetOf(r: SharedRecord): StoreTarget {
    return r.record.scope === 'user'
      ? { scope: 'user', userConfigDir: this.userConfigDir }
      : { scope: 'org', userConfigDir: this.userConfigDir, org: r.owner };
  }

  /**
   * Records of another user are not this machine's to hold: they are skipped. Every record is checked before
   * any is written, so a refused batch writes nothing (appendRecords checks per file; this, across files).
   */
  append(records: readonly SharedRecord[]): Promise<void> {
    for (const r of records) assertWritableRecord(r.record, `the ${r.record.scope} scope's files`);
    const byTarget = new Map<string, { target: StoreTarget; records: SharedRecord['record'][] }>();
    for (const r of records) {
      if (r.record.scope === 'user' && r.owner !== this.user) continue;
      const id = `${r.record.scope}\u0000${r.owner}`;
      const group = byTarget.get(id);
      if (group === undefined) byTarget.set(id, { target: this.targetOf(r), records: [r.record] });
      else group.records.push(r.record);
    }
    for (const { target, records: list } of byTarget.values()) appendRecords(target, list);
    return Promise.resolve();
  }

  load(): Promise<SharedRecord[]> {
    const out: SharedRecord[] = [];
    for (const r of loadScope({ scope: 'user', userConfigDir: this.userConfigDir }).records)
      out.push({ owner: this.user, record: { ...r, scope: 'user' } });
    for (const org of orgNames(this.userConfigDir))
      for (const r of loadScope({ scope: 'org', userConfigDir: this.userConfigDir, org }).records)
        out.push({ owner: org, record: { ...r, scope: 'org' } });
    return Promise.resolve(out);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
