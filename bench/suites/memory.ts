/**
 * Decision memory in process, on the real code paths:
 *   - the exact cache: cacheKey (XXH3 of tool + subject, native) + the lookup the exact-cache tier makes
 *     (MemoryView.lookup: the entries with that key, for the role or any role, merged across scopes)
 *     among 10k entries parsed from JSONL;
 *   - Jaccard: tokenize + JaccardIndex.matches (top-1) over 10k and 100k remembered commands;
 *   - a cache hit end to end: prepareShell (parse, write targets) + judge() from src/engine/judge.ts with a
 *     MemoryView that remembers an allow for the call — and the same with the shell already prepared.
 *
 * The remembered commands are synthetic but realistic (bench/synthetic-commands.ts), in the normalized
 * subject form memory stores; a sample is checked against the real parser + callSubject first, so the
 * index holds what it would hold in use.
 */
import { judge } from '../../src/engine/judge.js';
import type { ToolCall } from '../../src/core/tool-call.js';
import { claudeAdapter } from '../../src/hosts/claude.js';
import { cacheKey } from '../../src/memory/cache.js';
import { JaccardIndex } from '../../src/memory/jaccard.js';
import { recordFor } from '../../src/memory/learn.js';
import type { DecisionRecord, LoadedRecord } from '../../src/memory/store.js';
import { callSubject } from '../../src/memory/subject.js';
import { tokenize, type TokenContext } from '../../src/memory/tokens.js';
import { MemoryView } from '../../src/memory/view.js';
import { resolvePath, type PathContext } from '../../src/paths/canonical.js';
import type { Sanitized } from '../../src/sanitize/index.js';
import { parseCommand } from '../../src/shell/parse.js';
import { loadShellParser } from '../../src/shell/syntax.js';
import { prepareShell } from '../../src/shell/prepare.js';
import { writeTargets } from '../../src/shell/writes.js';
import { runInProcess } from '../in-process.js';
import { decisionInputs, expectVerdict } from '../inputs.js';
import type { BenchSize, Measurement, Suite } from '../suite.js';
import { commandNames, syntheticCommands } from '../synthetic-commands.js';

export const MEMORY_ENTRIES = 10_000;
export const MEMORY_ENTRIES_LARGE = 100_000;
/** Queries per Jaccard row, cycled through (a sample is the mean of a batch of them). */
const QUERIES = 64;
/** Stored entries checked against the real parser + callSubject before timing. */
const SUBJECT_SAMPLE = 100;
/** The cache-hit call: a short Bash command no policy tier decides (the case memory exists for). */
export const HIT_COMMAND = 'npm run seed';

const SEED = { stored: 1, queries: 2 } as const;

/** A Claude Code Bash call in the fixture's project, parsed by the real adapter. */
function bashCall(command: string, cwd: string, sessionId: string): ToolCall {
  const event = claudeAdapter.parse({
    session_id: sessionId,
    cwd,
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command },
    tool_use_id: 'toolu_bench_memory',
  });
  if (event.kind !== 'pre-tool') throw new Error(`bench: a Bash payload parsed as ${event.kind}`);
  return event.call;
}

/** Remembered allows for synthetic commands, as the store loads them (mixed roles, one file). */
function rememberedRecords(commands: readonly string[], role: string): LoadedRecord[] {
  const ts = Date.parse('2026-01-01T00:00:00.000Z');
  return commands.map((command, i) => ({
    key: cacheKey('Bash', command),
    tool: 'Bash',
    subject: command as Sanitized,
    commands: commandNames(command),
    role: i % 3 === 0 ? '*' : role,
    verdict: i % 11 === 0 ? 'ask' : 'allow',
    reason: 'approved at the host’s permission prompt after hookwise asked' as Sanitized,
    tier: 'human',
    scope: 'user',
    decided_by: 'host-prompt',
    ts: new Date(ts + i * 1000).toISOString(),
    file: '/bench/user/rules.jsonl',
    line: i + 1,
  }));
}

export const memorySuite: Suite = {
  name: 'memory',
  measures: [
    'memory.exact-hit',
    'memory.jaccard-10k',
    'memory.jaccard-100k',
    'memory.cache-hit-e2e',
    'memory.cache-hit-e2e.no-parse',
  ],
  async run({ fixture, size, progress }) {
    const { state, policy, projectRoot } = await decisionInputs(fixture);
    const where = fixture.where;
    const role = fixture.role;
    const threshold = policy.memory.jaccardThreshold;
    const tokenContext: TokenContext = { projectRoot, home: where.home };
    const pathContext: PathContext = { projectRoot, home: where.home, cwd: projectRoot };

    const stored = syntheticCommands(MEMORY_ENTRIES_LARGE, SEED.stored);
    const queries = syntheticCommands(QUERIES, SEED.queries);
    await checkSubjectForm(
      [...stored.slice(0, SUBJECT_SAMPLE), ...queries],
      fixture.sessionId,
      projectRoot,
      pathContext,
    );

    // Exact cache: 10k entries, a lookup that hits (the query's subject is already built).
    const records = rememberedRecords(stored.slice(0, MEMORY_ENTRIES), role);
    const memory10k = MemoryView.of(records, threshold);
    const hit = records.find((r, i) => i > MEMORY_ENTRIES / 2 && r.role === role && r.verdict === 'allow')!;
    const hitSubject = hit.subject;
    expectVerdict('the exact cache', memory10k.lookup(cacheKey('Bash', hitSubject), role)?.verdict, 'allow');

    // Jaccard: 10k and 100k entries, top-1 of a realistic query (some have a match ≥ threshold, some not).
    progress('memory: building the Jaccard indexes…');
    const small = new JaccardIndex();
    const large = new JaccardIndex();
    stored.forEach((command, i) => {
      const tokens = tokenize(command, tokenContext);
      if (i < MEMORY_ENTRIES) small.add(tokens);
      large.add(tokens);
    });
    const top1 = (index: JaccardIndex, query: string) =>
      index.matches(tokenize(query, tokenContext), threshold)[0] ?? null;
    const matched = (index: JaccardIndex): number => queries.filter((q) => top1(index, q) !== null).length;
    const matchedSmall = matched(small);
    const matchedLarge = matched(large);
    if (matchedSmall === 0)
      throw new Error('bench: no Jaccard query finds a match at the threshold; the rows would time only misses');
    let q10 = 0;
    let q100 = 0;

    // The cache hit end to end: a short Bash call that no policy tier decides, remembered as allowed.
    const call = bashCall(HIT_COMMAND, projectRoot, fixture.sessionId);
    const shell = await prepareShell(call, pathContext);
    const bare = await judge(state, call, policy, projectRoot, where, { shell });
    expectVerdict(`\`${HIT_COMMAND}\` without memory (tier)`, bare.decision.tier, 'default');
    const subject = callSubject(
      call,
      call.paths.map((p) => resolvePath(p, pathContext)),
      shell,
    );
    if (subject === undefined) throw new Error(`bench: \`${HIT_COMMAND}\` has no memory subject`);
    const remembered: DecisionRecord = recordFor(
      subject,
      cacheKey(subject.tool, subject.text),
      {
        role,
        verdict: 'allow',
        reason: 'approved at the host’s permission prompt after hookwise asked' as Sanitized,
        tier: 'human',
        decided_by: 'host-prompt',
      },
      { scope: 'user', userConfigDir: where.userConfigDir },
    );
    const view = MemoryView.of(
      [...records, { ...remembered, file: '/bench/user/rules.jsonl', line: records.length + 1 }],
      threshold,
    );
    const judged = await judge(state, call, policy, projectRoot, where, { shell, memory: view });
    expectVerdict(`\`${HIT_COMMAND}\` with memory (tier)`, judged.decision.tier, 'exact-cache');
    expectVerdict(`\`${HIT_COMMAND}\` with memory`, judged.decision.verdict, 'allow');

    const measured = await runInProcess(
      [
        { id: 'memory.exact-hit', batch: 64, fn: () => memory10k.lookup(cacheKey('Bash', hitSubject), role) },
        { id: 'memory.jaccard-10k', batch: 16, fn: () => top1(small, queries[q10++ % QUERIES]!) },
        { id: 'memory.jaccard-100k', batch: 4, fn: () => top1(large, queries[q100++ % QUERIES]!) },
        {
          id: 'memory.cache-hit-e2e',
          batch: 4,
          async: true,
          fn: async () =>
            judge(state, call, policy, projectRoot, where, {
              shell: await prepareShell(call, pathContext),
              memory: view,
            }),
        },
        {
          id: 'memory.cache-hit-e2e.no-parse',
          batch: 16,
          fn: () => judge(state, call, policy, projectRoot, where, { shell, memory: view }),
        },
      ],
      size,
    );
    // Where the end-to-end time goes: the parse itself, and prepareShell around it (which also loads the
    // parser bundle: see the row's description).
    loadShellParser();
    const parseOnly = await meanMicros(() => writeTargets(parseCommand(HIT_COMMAND).segments), size);
    const prepareOnly = await meanMicros(() => prepareShell(call, pathContext), size);
    const notes: Partial<Record<string, string>> = {
      'memory.exact-hit': `${MEMORY_ENTRIES} entries, a ${hitSubject.length}-char subject`,
      'memory.jaccard-10k': `${MEMORY_ENTRIES} entries; ${matchedSmall} of ${QUERIES} synthetic queries have a match ≥ ${threshold}`,
      'memory.jaccard-100k': `${MEMORY_ENTRIES_LARGE} entries; ${matchedLarge} of ${QUERIES} synthetic queries have a match ≥ ${threshold}`,
      'memory.cache-hit-e2e': `\`${HIT_COMMAND}\`, role ${role}, ${view.size} entries; means: prepareShell ${prepareOnly.toFixed(1)} µs, of which parseCommand + writeTargets ${parseOnly.toFixed(1)} µs`,
      'memory.cache-hit-e2e.no-parse': `\`${HIT_COMMAND}\`, role ${role}, ${view.size} entries`,
    };
    return measured.map((m): Measurement => {
      const note = notes[m.id];
      return note === undefined ? m : { ...m, note };
    });
  },
};

/** Mean µs per call (after a warm-up), for a breakdown in a note: a rough figure, not a row. */
async function meanMicros(fn: () => unknown, size: BenchSize): Promise<number> {
  const n = size === 'quick' ? 200 : 1000;
  for (let i = 0; i < n / 4; i++) await fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn();
  return Number(process.hrtime.bigint() - start) / 1000 / n;
}

/** The synthetic commands must be what memory would store for them: the real parser + callSubject agree. */
async function checkSubjectForm(
  commands: readonly string[],
  sessionId: string,
  projectRoot: string,
  pathContext: PathContext,
): Promise<void> {
  for (const command of commands) {
    const call = bashCall(command, projectRoot, sessionId);
    const shell = await prepareShell(call, pathContext);
    const subject = callSubject(
      call,
      call.paths.map((p) => resolvePath(p, pathContext)),
      shell,
    );
    if (subject?.text !== command) {
      throw new Error(
        `bench: the synthetic command \`${command}\` is stored by hookwise as \`${subject?.text ?? '(nothing)'}\`; fix bench/synthetic-commands.ts`,
      );
    }
    const names = commandNames(command);
    // Segments that carry code (npx, python scripts, …) name it as `<program> code:<digest>` (memory/code.ts);
    // the synthetic records name the program only, which costs the index the same work.
    if (subject.commands.map((c) => c.replace(/ code:[0-9a-f]{16}$/, '')).join(' ') !== names.join(' ')) {
      throw new Error(
        `bench: the synthetic command \`${command}\` has command names ${subject.commands.join(', ')}, not ${names.join(', ')}`,
      );
    }
  }
}
