/**
 * The queue as the daemon and the CLI see it: the daemon's items (in memory) and the files' (calls decided in
 * process while no daemon answered them, e.g. a client of another hookwise version). Listing shows both;
 * answering tries the one that holds the id. And the token a client shows to answer through the daemon's
 * socket: the socket is this user's, but so is an agent's shell — the token is in the runtime directory,
 * which the path policy keeps from agents (reading hookwise's own state asks a human).
 */
import { nodeCrypto } from '../util/node-crypto.js';
import { join } from 'node:path';
import { shownError } from '../sanitize/shown.js';
import { ensurePrivateDir, readOwnedFile, writeFileAtomic } from '../util/fs-safe.js';
import type { FileQueue } from './file-queue.js';
import type { MemoryQueue } from './memory-queue.js';
import type { AnswerResult, HumanAnswer, PendingItem, QueueBackend, RecentItem } from './types.js';

export interface QueueSnapshot {
  /** daemon: this machine's daemon; files: calls decided in process; store: the team's, shared by every machine. */
  items: (PendingItem & { backend: 'daemon' | 'files' | 'store' })[];
  recent: RecentItem[];
  /** Queue files that could not be read, named. */
  problems: string[];
}

/**
 * `memory` given: the daemon's view, which reads the files without their lock (FileQueue.peek). `shared`: the
 * items of the team's store (store/queue.ts), as the daemon last read them.
 */
export function snapshotOf(
  memory: MemoryQueue | undefined,
  files: FileQueue,
  shared?: Pick<QueueBackend, 'list' | 'recent'>,
): QueueSnapshot {
  const problems: string[] = [];
  let fileItems: PendingItem[] = [];
  let fileRecent: RecentItem[] = [];
  try {
    fileItems = memory === undefined ? files.list() : files.peek();
    problems.push(...files.problems);
    fileRecent = files.recent();
  } catch (error) {
    problems.push(`the queue files in ${files.dir} could not be read: ${shownError(error)}`);
  }
  const items = [
    ...(memory?.list() ?? []).map((i) => ({ ...i, backend: 'daemon' as const })),
    ...fileItems.map((i) => ({ ...i, backend: 'files' as const })),
    ...(shared?.list() ?? []).map((i) => ({ ...i, backend: 'store' as const })),
  ];
  const recent = [...(memory?.recent() ?? []), ...fileRecent, ...(shared?.recent() ?? [])]
    .sort((a, b) => b.ts.localeCompare(a.ts))
    .slice(0, 50);
  return { items: items.sort((a, b) => a.created.localeCompare(b.created)), recent, problems };
}

export function answerAny(
  memory: MemoryQueue | undefined,
  files: FileQueue,
  id: string,
  answer: HumanAnswer,
): AnswerResult {
  if (memory !== undefined) {
    const held = memory.answer(id, answer);
    if (held.ok) return held;
  }
  return files.answer(id, answer);
}

const tokenFile = (runtimeDir: string): string => join(runtimeDir, 'queue', 'answer-token');

/** The daemon makes a fresh token at start (a stopped daemon's token answers nothing). */
export function newAnswerToken(runtimeDir: string): string {
  ensurePrivateDir(join(runtimeDir, 'queue'));
  const token = nodeCrypto().randomBytes(32).toString('base64url');
  writeFileAtomic(tokenFile(runtimeDir), token + '\n', { mode: 0o600 });
  return token;
}

export function readAnswerToken(runtimeDir: string): string | undefined {
  return readOwnedFile(tokenFile(runtimeDir), 'the queue answer token')?.toString('utf8').trim();
}
