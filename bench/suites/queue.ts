/**
 * The human queue (tier 4, src/queue/): how fast an answer reaches a waiting call, in the daemon's memory queue
 * and through the files, one call and 64 identical calls on one item. The real backends in process; across real
 * processes (the approve command's own start-up included) see tests/e2e/queue-processes.test.ts.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileQueue } from '../../src/queue/file-queue.js';
import { MemoryQueue } from '../../src/queue/memory-queue.js';
import type { HumanAnswer, PendingRequest, QueueBackend } from '../../src/queue/types.js';
import type { Sanitized } from '../../src/sanitize/index.js';
import { summarize } from '../stats.js';
import type { Measurement, PerSize, Suite } from '../suite.js';

/** Answers timed per row. */
const ROUNDS: PerSize<number> = { quick: 10, standard: 20, full: 50 };

const APPROVE: HumanAnswer = { verdict: 'approve', alwaysAsk: false, addRule: false, via: 'cli' };

function request(i: number, dedupe: string): PendingRequest {
  const s = (t: string) => t as Sanitized;
  return {
    dedupe,
    session: s(`bench-${i}`),
    role: 'coder',
    tool: s('Bash'),
    call: s('make deploy'),
    reason: s('no tier decided'),
    tier: 'default',
    project: s('/bench'),
  };
}

async function listed(q: QueueBackend, waiting: number): Promise<string> {
  for (let i = 0; i < 10_000; i++) {
    const [item] = q.list();
    if (item !== undefined && item.waiting === waiting) return item.id;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error('bench: the queue item never appeared');
}

/** ms from answer() until `calls` identical waiting calls have all returned, `rounds` times. */
async function answerToReturn(
  waitOn: () => QueueBackend,
  answerer: QueueBackend,
  calls: number,
  rounds: number,
): Promise<number[]> {
  const out: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const waits = Array.from({ length: calls }, (_, i) => waitOn().wait(request(i, `round-${r}`), 60_000));
    const id = await listed(answerer, calls);
    const t0 = process.hrtime.bigint();
    if (!answerer.answer(id, APPROVE).ok) throw new Error('bench: the answer was refused');
    const outcomes = await Promise.all(waits);
    out.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (!outcomes.every((o) => o.kind === 'answered')) throw new Error('bench: a waiting call did not get the answer');
  }
  return out;
}

export const queueSuite: Suite = {
  name: 'queue',
  measures: [
    'queue.answer-to-return.daemon',
    'queue.answer-to-return.files',
    'queue.64-calls-one-answer.daemon',
    'queue.64-calls-one-answer.files',
  ],
  async run({ size, progress }) {
    progress('queue: answer → waiting call, daemon and files…');
    const rounds = ROUNDS[size];
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-bench-queue-')));
    try {
      const memory = new MemoryQueue();
      const files = () => new FileQueue(join(base, 'runtime'));
      const answerer = files();
      return [
        { id: 'queue.answer-to-return.daemon', ...summarize(await answerToReturn(() => memory, memory, 1, rounds)) },
        { id: 'queue.answer-to-return.files', ...summarize(await answerToReturn(files, answerer, 1, rounds)) },
        {
          id: 'queue.64-calls-one-answer.daemon',
          ...summarize(await answerToReturn(() => memory, memory, 64, Math.ceil(rounds / 5))),
        },
        {
          id: 'queue.64-calls-one-answer.files',
          ...summarize(await answerToReturn(files, answerer, 64, Math.ceil(rounds / 5))),
        },
      ] satisfies Measurement[];
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  },
};
