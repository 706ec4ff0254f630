/**
 * Large decision stores for the memory-scale benchmarks (bench/suites/memory-index.ts): a project whose
 * `.hookwise/rules/{allow,ask,deny}.jsonl` and user `rules.jsonl` hold `n` realistic records, written the
 * way a long-lived memory looks — mostly remembered Bash calls (similarity candidates), some file edits,
 * mixed roles and verdicts, a few overrides, and records superseded by newer ones for the same decision.
 * Seeded: the same store for the same size, every run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { VERDICTS, type Verdict } from '../src/core/decision.js';
import { cacheKey } from '../src/memory/cache.js';
import {
  fileFor,
  serializeRecord,
  type DecisionRecord,
  type StoreScope,
  type StoreTarget,
} from '../src/memory/store.js';
import type { Sanitized } from '../src/sanitize/index.js';
import { prng } from './prng.js';
import { commandNames, syntheticCommands } from './synthetic-commands.js';

const ROLES = ['coder', 'coder', '*', 'tester', 'reviewer'] as const;
const EPOCH = Date.parse('2026-01-01T00:00:00.000Z');

/** The i-th record of a store: a Bash call 4 times in 5, else a file edit. */
function storeRecord(
  i: number,
  command: string,
  scope: StoreScope,
  projectRoot: string,
  random: () => number,
): DecisionRecord {
  const roll = random();
  const verdict: Verdict = roll < 0.08 ? 'deny' : roll < 0.2 ? 'ask' : 'allow';
  const bash = i % 5 !== 4;
  const subject = (bash ? command : `edit ${projectRoot}/src/module${i % 97}/file${i}.ts`) as Sanitized;
  const r: DecisionRecord = {
    key: cacheKey(bash ? 'Bash' : 'Edit', subject),
    tool: bash ? 'Bash' : 'Edit',
    subject,
    role: ROLES[i % ROLES.length]!,
    verdict,
    reason: 'approved at the host’s permission prompt after hookwise asked' as Sanitized,
    tier: 'human',
    scope,
    decided_by: 'host-prompt',
    ts: new Date(EPOCH + i * 1000).toISOString(),
  };
  if (bash) r.commands = commandNames(command);
  else r.writes = [subject.slice('edit '.length) as Sanitized];
  return r;
}

export interface ScaleStore {
  /** Every record written, in file order per scope (superseded ones included). */
  records: DecisionRecord[];
  targets: StoreTarget[];
}

/**
 * Writes `n` records: 90 % to the project scope (each in its verdict's file), 10 % to the user scope; 3 %
 * of them restate an earlier decision later with another verdict (a human changing their mind), half of
 * those in the other scope.
 */
export function writeScaleStore(projectRoot: string, userConfigDir: string, n: number, seed = 1): ScaleStore {
  const random = prng(seed);
  const commands = syntheticCommands(n, seed);
  const project: StoreTarget = { scope: 'project', projectRoot };
  const user: StoreTarget = { scope: 'user', userConfigDir };
  const records: DecisionRecord[] = [];
  for (let i = 0; i < n; i++) {
    const scope: StoreScope = i % 10 === 9 ? 'user' : 'project';
    if (i > 100 && random() < 0.03) {
      // the same decision again, later, with another verdict: in its own scope (it supersedes the earlier
      // record) or in the other one (the stricter of the two decides, the other is shown shadowed)
      const earlier = records[Math.floor(random() * records.length)]!;
      const verdict = VERDICTS.filter((v) => v !== earlier.verdict)[Math.floor(random() * 2)]!;
      const again: StoreScope = random() < 0.5 ? earlier.scope : earlier.scope === 'user' ? 'project' : 'user';
      records.push({ ...earlier, scope: again, verdict, ts: new Date(EPOCH + i * 1000).toISOString() });
      continue;
    }
    records.push(storeRecord(i, commands[i]!, scope, projectRoot, random));
  }
  const lines = new Map<string, string[]>();
  for (const r of records) {
    const file = fileFor(r.scope === 'user' ? user : project, r.verdict);
    const list = lines.get(file);
    if (list === undefined) lines.set(file, [serializeRecord(r)]);
    else list.push(serializeRecord(r));
  }
  mkdirSync(join(projectRoot, '.hookwise', 'rules'), { recursive: true });
  mkdirSync(join(userConfigDir, 'user'), { recursive: true, mode: 0o700 });
  for (const [file, list] of lines) writeFileSync(file, list.join('\n') + '\n', { mode: 0o600 });
  return { records, targets: [user, project] };
}

/** The record a human approves next (a new Bash call in the project scope): what one learned record appends. */
export function learnedRecord(i: number, verdict: Verdict = 'allow'): DecisionRecord {
  const subject = `npm run learned-${i} -- --shard ${i % 7}` as Sanitized;
  return {
    key: cacheKey('Bash', subject),
    tool: 'Bash',
    subject,
    commands: ['npm'],
    role: 'coder',
    verdict,
    reason: 'approved at the host’s permission prompt after hookwise asked' as Sanitized,
    tier: 'human',
    scope: 'project',
    decided_by: 'host-prompt',
    // after every stored record (those span ≈ 1 s per record from EPOCH)
    ts: new Date(EPOCH + 1e9 + i * 1000).toISOString(),
  };
}
