/** The files backend: the user and org scopes' JSONL files, read and written as without a store. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadScope } from '../../src/memory/store.js';
import { FileDecisionStore } from '../../src/store/files.js';
import { sharedRecord } from '../support/store-records.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function store(): FileDecisionStore {
  const dir = mkdtempSync(join(tmpdir(), 'hookwise-files-store-'));
  dirs.push(dir);
  return new FileDecisionStore(dir, 'ada');
}

describe('the files store', () => {
  it("writes org records under the org's rules and user records in the user's file, and loads them back", async () => {
    const s = store();
    await s.append([
      { owner: 'acme', record: sharedRecord('o1', 'deny') },
      { owner: 'ada', record: { ...sharedRecord('u1', 'allow'), scope: 'user' } },
    ]);
    expect(loadScope({ scope: 'org', userConfigDir: s.userConfigDir, org: 'acme' }).records.map((r) => r.key)).toEqual([
      'o1',
    ]);
    const loaded = await s.load();
    expect(loaded.map((r) => [r.owner, r.record.scope, r.record.key])).toEqual([
      ['ada', 'user', 'u1'],
      ['acme', 'org', 'o1'],
    ]);
  });

  it("does not take another user's records: they are not this machine's", async () => {
    const s = store();
    await s.append([{ owner: 'bob', record: { ...sharedRecord('u2', 'allow'), scope: 'user' } }]);
    expect(await s.load()).toEqual([]);
  });
});
