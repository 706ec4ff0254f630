/**
 * The decision store: loading 10k records from the project scope's JSONL files (read, parse, validate,
 * resolve per key and role), in process. This is what each `check` would pay per call without a compiled
 * cache in `.hookwise/.index/`; the row is reported, not graded, until the store is on the hot path.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VERDICTS } from '../../src/core/decision.js';
import { fileFor, loadScope, serializeRecord, type DecisionRecord, type StoreTarget } from '../../src/memory/store.js';
import type { Sanitized } from '../../src/sanitize/index.js';
import { runInProcess } from '../in-process.js';
import type { Suite } from '../suite.js';

export const STORE_RECORDS = 10_000;

const TOOLS = ['Bash', 'Bash', 'Bash', 'Write', 'Edit'] as const;
const COMMANDS = [
  'git status --short',
  'npm run test -- --filter',
  'ls -la src/components',
  'rg -n TODO src',
  'docker compose up -d db',
];

/** Typical records: a command (with its form) or `<change> <path>` of 20–60 chars, a short reason, a 16-hex key. */
export function storeRecords(n: number): DecisionRecord[] {
  const ts = Date.parse('2026-01-01T00:00:00.000Z');
  return Array.from({ length: n }, (_, i) => {
    const tool = TOOLS[i % TOOLS.length]!;
    const subject = tool === 'Bash' ? `${COMMANDS[i % COMMANDS.length]} ${i}` : `edit src/module${i % 97}/file${i}.ts`;
    // Shell records carry their form (memory/form.ts), which the load checks against the subject.
    const form = tool === 'Bash' ? { form: `${COMMANDS[i % COMMANDS.length]} <number>` as Sanitized } : {};
    return {
      key: (0x9e3779b97f4a7c15n * BigInt(i + 1)).toString(16).padStart(16, '0').slice(-16),
      tool,
      subject: subject as Sanitized,
      ...form,
      role: i % 4 === 0 ? '*' : 'coder',
      verdict: VERDICTS[i % 7 === 0 ? 2 : i % 5 === 0 ? 1 : 0]!,
      reason: 'approved by a human in the host prompt' as Sanitized,
      tier: 'human',
      scope: 'project',
      decided_by: i % 3 === 0 ? 'host-prompt' : 'human',
      ts: new Date(ts + i * 1000).toISOString(),
    };
  });
}

export const memoryStoreSuite: Suite = {
  name: 'memory-store',
  measures: ['memory.store.load-10k'],
  async run({ size }) {
    const root = mkdtempSync(join(tmpdir(), 'hookwise-bench-store-'));
    try {
      const target: StoreTarget = { scope: 'project', projectRoot: root };
      const records = storeRecords(STORE_RECORDS);
      mkdirSync(join(root, '.hookwise', 'rules'), { recursive: true });
      for (const v of VERDICTS) {
        const lines = records.filter((r) => r.verdict === v).map(serializeRecord);
        writeFileSync(fileFor(target, v), lines.join('\n') + '\n');
      }
      const check = loadScope(target);
      if (check.records.length !== STORE_RECORDS || check.problems.length > 0) {
        throw new Error(
          `bench: the store fixture loads ${check.records.length} records and ${check.problems.length} problems, not ${STORE_RECORDS} and 0`,
        );
      }
      const [m] = await runInProcess([{ id: 'memory.store.load-10k', batch: 1, fn: () => loadScope(target) }], size);
      // runInProcess reports µs; this row is in ms.
      return [{ ...m!, median: m!.median / 1000, p99: m!.p99 / 1000, note: `${STORE_RECORDS} records in 3 files` }];
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
};
