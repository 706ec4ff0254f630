/**
 * Tier 2b — similarity by embedding. After the exact cache and Jaccard miss, the call's sanitized subject is
 * embedded and searched in the HNSW indexes of every scope (the port: embed/client.ts, served by the daemon's
 * worker pool). The nearest remembered call at or above the threshold (`embedding.threshold`) decides:
 *   - allow → auto-approve, with the similarity as confidence, naming the record it matched;
 *   - ask   → ask (ask propagates; the edge records it for this exact call, memory/learn.ts);
 *   - deny  → pass on: similarity never auto-denies, and a nearest deny blocks an auto-allow.
 * Equal similarity: the stricter verdict wins. Below the threshold, or with no port (command mode without a
 * daemon), or the pool unavailable → pass on.
 *
 * The model proposes neighbours; the guard rails decide which may decide. Measured on the shellfirm corpus
 * (docs/embedding.md), a neighbour that differs by an option (`kill 1234` → `kill -9 1234`, `git add -p .` →
 * `git add .`), an added operand (`sfdisk -l` → `sfdisk -l /dev/sda`, `vercel env rm` → `vercel env rm X`) or
 * a swapped word or number (`init 1` → `init 6`) can be as near as 1.0 and be the risky one: similarity of
 * purpose is not similarity of effect. So a remembered call may decide this one only when:
 *   - the call may be judged by similarity at all: not a file tool (a similar path is a different file), not
 *     a call that loses data (delete, truncate, overwrite), not one whose code is not known as text, not one
 *     that asks to leave the host's sandbox (for an allow);
 *   - every program the call runs — wrappers and argv[0] as written, with the identity of any code a segment
 *     carries (inline code, a script, a heredoc, `bash -c`: memory/code.ts) — is run by the remembered call
 *     too: learning never widens to a program or code it has not seen approved;
 *   - it has the remembered call's form (memory/form.ts: the catalogue accounts for every word of both, and
 *     they differ only in what its grammar marks as free — text, patterns, numbers, file operands in the same
 *     place): the model proposes, the grammar decides. Failing that, the remembered call's words in the same
 *     order — the same options, subcommands, names and numbers — except file operands swapped for others in
 *     the same place (pathSwap);
 *   - its write targets fall in the same path-policy classes as the record's, for this role;
 *   - what reaches the network is unchanged: every segment that reaches the network appears verbatim in the
 *     record, and every host the call names (URLs) is named by the record;
 *   - no pack, rule, sensitive path or remembered ask decided it: structurally true, those tiers run first.
 * Effects that change what runs (environment, options that run code, planted programs) were asked about by
 * the shell tier before this one; a call with such an effect never gets here.
 */
import type { Tier } from '../core/tier.js';
import type { CallMemory, MemoryTierContext } from '../memory/context.js';
import type { ShellContext } from '../shell/prepare.js';
import type { EmbeddingContext, EmbeddingMatch, EmbeddingPort } from './port.js';
import { decision, strictness, type Decision } from '../core/decision.js';
import { describeRecord, recordSource } from '../memory/cache.js';
import { carriesOver, pathSwap, writeClasses } from '../memory/similar.js';
import type { LoadedRecord } from '../memory/store.js';
import type { CallSubject } from '../memory/subject.js';
import { isFileTool } from '../memory/view.js';

/** What tier 2b reads: memory's slice, the shell analysis (the call's effects) and its own port. */
export type EmbeddingTierContext = MemoryTierContext & ShellContext & EmbeddingContext;

/** Neighbours asked for: the nearest few, so a guard-railed-out neighbour does not hide the next one. */
export const NEIGHBOURS = 8;

/** Two similarities this close are a tie (float noise): the stricter verdict wins. */
const TIE = 1e-6;

/** The hosts a text names in URLs (`scheme://[user@]host[:port]`), lowercased. */
export function hostsOf(text: string): Set<string> {
  const hosts = new Set<string>();
  for (const m of text.matchAll(/[a-z][a-z0-9+.-]*:\/\/(?:[^/\s'"@]*@)?(\[[^\]\s]*\]|[^/\s:'"?#]+)/gi))
    hosts.add(m[1]!.toLowerCase());
  return hosts;
}

/** Why a remembered call may not decide this one (undefined: it may). */
export function guardRail(
  record: LoadedRecord,
  subject: CallSubject,
  ctx: EmbeddingTierContext,
  callClasses: () => string,
): string | undefined {
  if (record.tier === 'override') return 'an override is matched by its pattern, never by similarity';
  if (record.tool !== subject.tool) return `a ${record.tool} call`;
  if (record.commands === undefined) return 'a record from before code identities';
  const runs = new Set(record.commands);
  const unseen = subject.commands.find((c) => !runs.has(c));
  if (unseen !== undefined) return `it never ran \`${unseen}\``;
  if (!carriesOver(record, subject, (from, to) => pathSwap(from, to, ctx.projectRoot)))
    return 'it differs by more than free words and file operands';
  if (writeClasses(record.writes ?? [], ctx) !== callClasses()) return 'it writes elsewhere';
  const effects = ctx.shell?.effects.segments;
  if (effects !== undefined) {
    for (const [i, segment] of effects.entries()) {
      const text = subject.segments[i];
      if (segment.network && (text === undefined || !containsWords(record.subject, text)))
        return 'it reaches the network differently';
    }
  }
  const named = hostsOf(record.subject);
  for (const host of hostsOf(subject.text)) if (!named.has(host)) return `it never reached ${host}`;
  return undefined;
}

/** `part` occurs in `whole` as whole words (not inside a longer word). */
function containsWords(whole: string, part: string): boolean {
  let at = whole.indexOf(part);
  while (at >= 0) {
    const before = at === 0 ? ' ' : whole[at - 1]!;
    const after = at + part.length >= whole.length ? ' ' : whole[at + part.length]!;
    if (/\s/.test(before) && /\s/.test(after)) return true;
    at = whole.indexOf(part, at + 1);
  }
  return false;
}

function shorten(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

/** Synchronous when the tier cannot apply (no port, nothing remembered): no promise on that path. */
function judgeEmbedding(ctx: EmbeddingTierContext): Promise<Decision | undefined> | undefined {
  const { memory, embedding: port } = ctx;
  if (port === undefined || memory === undefined || memory.view.empty || !ctx.policy.embedding.enabled)
    return undefined;
  const subject = memory.subject();
  if (subject === undefined || !subject.similar || subject.lossy || isFileTool(subject.tool)) return undefined;
  return nearestDecides(ctx, memory, port, subject);
}

async function nearestDecides(
  ctx: EmbeddingTierContext,
  memory: CallMemory,
  port: EmbeddingPort,
  subject: CallSubject,
): Promise<Decision | undefined> {
  const settings = ctx.policy.embedding;
  const found = await port.nearest({ text: subject.text, tool: subject.tool, k: NEIGHBOURS });
  if ('unavailable' in found) return undefined;
  const role = ctx.role.role.name;
  let classes: string | undefined;
  const callClasses = (): string => (classes ??= writeClasses(subject.writes, ctx));
  let best: { record: LoadedRecord; match: EmbeddingMatch } | undefined;
  for (const match of [...found.matches].sort((a, b) => b.similarity - a.similarity)) {
    if (match.similarity < settings.threshold) break;
    if (best !== undefined && match.similarity < best.match.similarity - TIE) break;
    const record = memory.view.lookup(match.key, role);
    if (record === undefined || guardRail(record, subject, ctx, callClasses) !== undefined) continue;
    if (best === undefined || strictness(record.verdict) > strictness(best.record.verdict)) best = { record, match };
  }
  if (best === undefined || best.record.verdict === 'deny') return undefined;
  const { record, match } = best;
  if (record.verdict === 'allow' && ctx.call.input.dangerouslyDisableSandbox === true) return undefined;
  const how = record.verdict === 'allow' ? 'allowed' : 'always asks a human about';
  return decision(
    record.verdict,
    'embedding',
    `near (${match.similarity.toFixed(3)}) \`${shorten(record.subject)}\`, which ${describeRecord(record)} ${how}`,
    { id: `memory:${record.key}`, source: recordSource(record, ctx.projectRoot) },
    match.similarity,
  );
}

export const embeddingTier: Tier = { name: 'embedding', decide: judgeEmbedding };
