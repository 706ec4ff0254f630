/** Decision-memory helpers for tests: a call's subject and key, and records placed in a scope. */
import { cacheKey } from '../../src/memory/cache.js';
import { appendRecords, type DecisionRecord, type StoreScope, type StoreTarget } from '../../src/memory/store.js';
import { callSubject, type CallSubject } from '../../src/memory/subject.js';
import { resolvePath } from '../../src/paths/canonical.js';
import { adapterFor } from '../../src/hosts/index.js';
import { prepareShell } from '../../src/shell/prepare.js';
import { prepareMcp } from '../../src/catalog/mcp-call.js';
import type { Verdict } from '../../src/core/decision.js';
import type { Sanitized } from '../../src/sanitize/index.js';
import type { TestProject } from './project.js';

export interface Subject {
  subject: CallSubject;
  key: string;
}

/** The subject and key hookwise computes for this Claude tool call in the project. */
export async function subjectFor(
  project: TestProject,
  tool: string,
  input: Record<string, unknown>,
  cwd = project.root,
): Promise<Subject> {
  const event = adapterFor('claude').parse({ ...project.pre(tool, input), cwd });
  if (event.kind !== 'pre-tool') throw new Error('not a pre-tool event');
  const ctx = { projectRoot: project.root, home: project.home, cwd: event.call.cwd };
  const shell = await prepareShell(event.call, ctx);
  const subject = callSubject(
    event.call,
    event.call.paths.map((p) => resolvePath(p, ctx)),
    shell,
    prepareMcp(event.call, { mcp: { servers: {} } }, ctx),
    project.root,
  );
  if (subject === undefined) throw new Error(`no subject for ${tool} ${JSON.stringify(input)}`);
  return { subject, key: cacheKey(subject.tool, subject.text) };
}

export function targetOf(project: TestProject, scope: StoreScope, sessionId = 's1', org = 'acme'): StoreTarget {
  switch (scope) {
    case 'user':
      return { scope, userConfigDir: project.configDir };
    case 'project':
      return { scope, projectRoot: project.root };
    case 'org':
      return { scope, userConfigDir: project.configDir, org };
    case 'session':
      return { scope, runtimeDir: project.runtimeDir, sessionId };
  }
}

let clock = Date.parse('2026-03-01T00:00:00.000Z');

/** Stores a decision about a subject in a scope (each call a later timestamp). */
export function rememberSubject(
  project: TestProject,
  s: Subject,
  verdict: Verdict,
  options: { scope?: StoreScope; role?: string } = {},
): DecisionRecord {
  const target = targetOf(project, options.scope ?? 'user');
  const record: DecisionRecord = {
    key: s.key,
    tool: s.subject.tool,
    subject: s.subject.text,
    commands: s.subject.commands,
    role: options.role ?? 'coder',
    verdict,
    reason: `test ${verdict}` as Sanitized,
    tier: 'human',
    scope: target.scope,
    decided_by: 'human',
    ts: new Date((clock += 1000)).toISOString(),
  };
  if (s.subject.writes.length > 0) record.writes = s.subject.writes;
  if (s.subject.form !== undefined) record.form = s.subject.form;
  appendRecords(target, [record]);
  return record;
}

/** Stores a decision about a Bash command. */
export async function rememberCommand(
  project: TestProject,
  command: string,
  verdict: Verdict,
  options: { scope?: StoreScope; role?: string } = {},
): Promise<DecisionRecord> {
  return rememberSubject(project, await subjectFor(project, 'Bash', { command }), verdict, options);
}
