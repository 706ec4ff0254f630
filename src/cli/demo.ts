/**
 * `hookwise demo`: replays the bundled sample session through the real `hookwise check` executable (one
 * process per call, as a host runs it) in a throw-away project, prints each decision, then the stats.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAudit } from '../audit/log.js';
import { computeStats, renderStats } from '../audit/stats.js';
import { hookwiseBin } from '../util/package-root.js';
import { SAMPLE_ROLES, SAMPLE_SESSION, UNREGISTERED_SESSION, type SampleCall } from '../demo/sample-session.js';

const HOST_EVENT = { claude: 'PreToolUse', gemini: 'BeforeTool', codex: 'PreToolUse' } as const;

function payload(call: SampleCall, root: string): Record<string, unknown> {
  const input = { ...call.input };
  for (const key of ['file_path', 'notebook_path']) {
    const value = input[key];
    if (typeof value === 'string' && !value.startsWith('/')) input[key] = join(root, value);
  }
  const base = {
    session_id: call.session,
    cwd: root,
    hook_event_name: HOST_EVENT[call.host],
    tool_name: call.tool,
    tool_input: input,
  };
  if (call.host === 'gemini')
    return { ...base, transcript_path: join(root, '.t'), timestamp: new Date().toISOString() };
  if (call.host === 'codex') return { ...base, turn_id: 'turn-1', model: 'demo' };
  return {
    ...base,
    transcript_path: join(root, '.t'),
    permission_mode: 'default',
    tool_use_id: `toolu_demo_${call.tool}`,
  };
}

/** The decision as the host received it, normalized to verdict + reason. */
function answerOf(
  host: SampleCall['host'],
  stdout: string,
  stderr: string,
  status: number | null,
): { verdict: string; reason: string } {
  if (status === 2) return { verdict: 'deny', reason: stderr.trim() };
  const out = JSON.parse(stdout) as {
    decision?: string;
    reason?: string;
    hookSpecificOutput?: { permissionDecision: string; permissionDecisionReason: string };
  };
  if (host === 'gemini') return { verdict: out.decision ?? '?', reason: out.reason ?? '' };
  return {
    verdict: out.hookSpecificOutput?.permissionDecision ?? '?',
    reason: out.hookSpecificOutput?.permissionDecisionReason ?? '',
  };
}

export function demo(write: (text: string) => void, options: { keep?: boolean } = {}): number {
  // mkdtemp makes a 0700 directory; the demo's runtime dir lives inside it, not in shared /tmp.
  const base = mkdtempSync(join(tmpdir(), 'hookwise-demo-'));
  const root = join(base, 'project');
  const runtimeDir = join(base, 'runtime');
  // In process (no daemon): a throw-away project should leave no background process behind.
  const env = {
    ...process.env,
    HOOKWISE_RUNTIME_DIR: runtimeDir,
    HOOKWISE_CONFIG_DIR: join(base, 'config'),
    HOOKWISE_ROLE: '',
    HOOKWISE_DAEMON: 'off',
  };
  try {
    mkdirSync(join(root, '.git'), { recursive: true });
    mkdirSync(join(root, '.hookwise'), { recursive: true });
    // Keep the demo brisk: the unregistered agent waits 1 s for a registration instead of 5.
    writeFileSync(join(root, '.hookwise', 'policy.yml'), 'version: 1\nregistration:\n  wait_ms: 1000\n');
    const bin = hookwiseBin();
    const run = (args: string[], input?: string) =>
      spawnSync(process.execPath, [bin, ...args], { cwd: root, env, input, encoding: 'utf8' });

    write(`hookwise demo — a throw-away project at ${root}\n`);
    for (const [session, role] of Object.entries(SAMPLE_ROLES)) {
      const r = run(['register', '--session-id', session, '--role', role]);
      if (r.status !== 0) throw new Error(`register failed: ${r.stderr}`);
      write(`  $ hookwise register --session-id ${session} --role ${role}`);
    }
    write(`  (${UNREGISTERED_SESSION} never registers)\n`);

    let mismatches = 0;
    SAMPLE_SESSION.forEach((call, i) => {
      const started = performance.now();
      const r = run(['check'], JSON.stringify(payload(call, root)));
      const ms = performance.now() - started;
      let answer: { verdict: string; reason: string };
      try {
        answer = answerOf(call.host, r.stdout, r.stderr, r.status);
      } catch {
        mismatches++;
        answer = { verdict: 'error', reason: `unreadable output: ${r.stdout} ${r.stderr}` };
      }
      const role = SAMPLE_ROLES[call.session] ?? 'unregistered';
      const target = String(call.input.file_path ?? call.input.command ?? '')
        .split('\n')
        .slice(0, 3)
        .join(' ')
        .slice(0, 60);
      write(`${String(i + 1).padStart(2)}. [${call.host} · ${role}] ${call.tool} ${target}`);
      write(`    → ${answer.verdict.toUpperCase()}  (${ms.toFixed(0)} ms wall)  — ${call.note}`);
      write(`      ${answer.reason.split('\n')[0]}`);
    });

    write('\nhookwise stats for this demo:\n');
    write(renderStats(computeStats(readAudit(runtimeDir).records)));
    return mismatches === 0 ? 0 : 1;
  } finally {
    if (options.keep === true) write(`\n(kept ${base})`);
    else rmSync(base, { recursive: true, force: true });
  }
}
