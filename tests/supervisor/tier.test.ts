/**
 * Tier 3 end to end through the engine: a real temp project, the user's config turning the API supervisor
 * on, and a fake Messages API on loopback standing in for the model.
 */
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readAudit } from '../../src/audit/log.js';
import { readSupervisorReviews } from '../../src/audit/supervisor-log.js';
import { computeStats, renderStats } from '../../src/audit/stats.js';
import { explain, renderExplanation } from '../../src/cli/explain.js';
import { invalidate } from '../../src/cli/rules.js';
import { askDaemon } from '../../src/daemon/client.js';
import { serve } from '../../src/daemon/server.js';
import { Engine, type CheckResult } from '../../src/engine/engine.js';
import { loadScope } from '../../src/memory/store.js';
import { SessionRegistry } from '../../src/session/registry.js';
import { apiSupervisor } from '../../src/supervisor/api.js';
import { locations } from '../../src/util/locations.js';
import { checksummedToken, pemPrivateKey, rnd } from '../sanitize/fakes.js';
import { answer, startFakeApi, type FakeApi, type Reply } from '../support/fake-anthropic.js';
import { rememberCommand, targetOf } from '../support/memory.js';
import { makeProject, type TestProject } from '../support/project.js';

let api: FakeApi;
beforeAll(async () => {
  // Loaded once up front (as a daemon would keep it): its cold import is not part of any test's time budget.
  await import('@anthropic-ai/sdk');
});
beforeEach(async () => {
  api = await startFakeApi();
});
afterEach(async () => {
  await api.close();
});

// A generous timeout: a loaded CI machine must not turn an answer into a timeout (the timeout test sets its own).
const USER_CONFIG = 'supervisor:\n  backend: api\n  model: claude-test\n  confidence: 0.8\n  timeout: 15\n';

interface Setup {
  p: TestProject;
  check(payload: Record<string, unknown>): Promise<CheckResult>;
  bash(command: string, toolUseId?: string): Promise<CheckResult>;
}

function setup(
  options: { userConfig?: string; projectPolicy?: string; task?: string; promptFile?: string } = {},
): Setup {
  const p = makeProject();
  p.write(join(p.configDir, 'config.yml'), options.userConfig ?? USER_CONFIG);
  if (options.projectPolicy !== undefined) p.write('.hookwise/policy.yml', options.projectPolicy);
  new SessionRegistry(p.runtimeDir).update('s1', (_e, now) => ({
    session_id: 's1',
    role: 'coder',
    disabled: false,
    ...(options.task === undefined ? {} : { task: options.task }),
    ...(options.promptFile === undefined ? {} : { prompt_file: options.promptFile }),
    registered_at: now,
    updated_at: now,
  }));
  // One engine per test, as a daemon holds one: the backend is made on first use and kept.
  const engine = new Engine(locations(p.env), {
    supervisorBackends: (s) =>
      apiSupervisor({
        model: s.model,
        timeoutMs: s.timeoutMs,
        maxTokens: s.maxTokens,
        stream: s.stream,
        client: { baseURL: api.url, apiKey: 'test-key-not-secret' },
      }),
  });
  const check = (payload: Record<string, unknown>): Promise<CheckResult> => engine.handle(JSON.stringify(payload));
  return {
    p,
    check,
    bash: (command, toolUseId = 'toolu_1') => check({ ...p.pre('Bash', { command }), tool_use_id: toolUseId }),
  };
}

const NOVEL = 'make deploy-staging --jobs 4';

describe('tier 3: the supervisor decides what no earlier tier did', () => {
  it.each(['allow', 'deny', 'ask'] as const)(
    'a confident %s decides, is remembered, and the repeat is answered from memory',
    async (verdict) => {
      const { p, bash } = setup();
      api.reply = answer(verdict, 0.93, `staging deploys are part of the task (${verdict})`);
      const first = await bash(NOVEL);
      expect(first.decision).toMatchObject({
        verdict,
        tier: 'supervisor',
        confidence: 0.93,
        rule: { id: 'supervisor:api:claude-test' },
      });
      expect(first.decision?.reason).toContain(`staging deploys are part of the task (${verdict})`);
      expect(api.requests).toHaveLength(1);
      // Remembered in the user's scope (a model's decision is never the committed project's), ask included.
      expect(loadScope(targetOf(p, 'user')).records).toEqual([
        expect.objectContaining({ verdict, tier: 'supervisor', decided_by: 'supervisor', subject: NOVEL }),
      ]);
      expect(loadScope(targetOf(p, 'project')).records).toEqual([]);
      const again = await bash(NOVEL, 'toolu_2');
      expect(again.decision).toMatchObject({ verdict, tier: 'exact-cache' });
      expect(api.requests).toHaveLength(1);
      // The audit log carries its answer and reason.
      const audited = readAudit(p.runtimeDir).records[0]!;
      expect(audited).toMatchObject({
        tier: 'supervisor',
        verdict,
        supervisor: { decision: verdict, confidence: 0.93, decided: true, by: 'api:claude-test' },
      });
      expect(audited.supervisor?.reason).toContain('staging deploys');
    },
  );

  it('below the threshold it passes on: the human gets the ask with its recommendation, and nothing is remembered', async () => {
    const { p, bash } = setup();
    api.reply = answer('allow', 0.55, 'probably fine');
    const r = await bash(NOVEL);
    expect(r.decision).toMatchObject({
      verdict: 'ask',
      tier: 'default',
      recommendation: { decision: 'allow', confidence: 0.55, reason: 'probably fine' },
    });
    expect(r.decision?.reason).toMatch(
      /the supervisor \(api:claude-test\) would allow \(confidence 0\.55 is below 0\.80\): probably fine/,
    );
    expect(loadScope(targetOf(p, 'user')).records.filter((x) => x.decided_by === 'supervisor')).toEqual([]);
    expect(readAudit(p.runtimeDir).records[0]).toMatchObject({
      tier: 'default',
      supervisor: { decision: 'allow', decided: false, by: 'api:claude-test' },
    });
  });

  const failures: [string, Reply, RegExp][] = [
    ['an API error', { kind: 'error', status: 500, type: 'api_error' }, /did not answer: API error 500/],
    ['rate limiting', { kind: 'error', status: 429, type: 'rate_limit_error' }, /did not answer: API error 429/],
    ['a timeout', { kind: 'hang' }, /did not answer: timed out after 3000 ms/],
    ['a refusal', { kind: 'message', content: [], stopReason: 'refusal' }, /refused/],
    ['a malformed answer', answer('sure', 0.99), /not an answer/],
  ];
  it.each(failures)('%s passes on to a human, never allows', async (_name, reply, why) => {
    const { p, bash } = setup({ userConfig: USER_CONFIG.replace('timeout: 15', 'timeout: 3') });
    api.reply = reply;
    const r = await bash(NOVEL);
    expect(r.decision).toMatchObject({ verdict: 'ask', tier: 'default' });
    expect(r.decision?.recommendation).toBeUndefined();
    expect(r.decision?.reason).toMatch(why);
    expect(loadScope(targetOf(p, 'user')).records.filter((x) => x.decided_by === 'supervisor')).toEqual([]);
  });

  it('a call that asks to leave the sandbox is never allowed by it', async () => {
    const { check, p } = setup();
    api.reply = answer('allow', 0.99, 'fine');
    const r = await check(p.pre('Bash', { command: NOVEL, dangerouslyDisableSandbox: true }));
    expect(r.decision).toMatchObject({ verdict: 'ask', tier: 'default', recommendation: { decision: 'allow' } });
  });

  it('is never consulted for a call a pack, a rule, a sensitive path, a role glob or a remembered ask decides', async () => {
    const { p, bash, check } = setup();
    await rememberCommand(p, 'make migrate-db --env prod', 'ask');
    const decided = [
      await bash('git push --force origin main'), // pack
      await check(p.pre('Write', { file_path: `${p.root}/.env`, content: 'A=1' })), // sensitive path
      await check(p.pre('Write', { file_path: `${p.root}/src/a.ts`, content: '' })), // role glob
      await check(p.pre('Write', { file_path: `${p.root}/tests/a.test.ts`, content: '' })), // role deny_write
      await bash('make migrate-db --env prod'), // remembered ask
      await bash('git status'), // pack allow
    ];
    expect(decided.map((r) => r.decision?.tier)).not.toContain('supervisor');
    expect(decided.map((r) => r.decision?.tier)).not.toContain('default');
    expect(api.requests).toEqual([]);
  });

  it('off by default, and a project file can neither turn it on nor loosen it', async () => {
    const off = setup({
      userConfig: 'memory:\n  learn: true\n',
      projectPolicy: 'supervisor:\n  backend: api\n  confidence: 0.1\n',
    });
    expect((await off.bash(NOVEL)).decision).toMatchObject({ verdict: 'ask', tier: 'default' });
    expect(api.requests).toEqual([]);
    // A project may turn the user's supervisor off…
    const turnedOff = setup({ projectPolicy: 'supervisor:\n  backend: off\n' });
    expect((await turnedOff.bash(NOVEL)).decision?.tier).toBe('default');
    expect(api.requests).toEqual([]);
    // …and raise the confidence it needs, never lower it.
    const raised = setup({ projectPolicy: 'supervisor:\n  confidence: 0.95\n' });
    api.reply = answer('allow', 0.9, 'fine');
    expect((await raised.bash(NOVEL)).decision).toMatchObject({
      tier: 'default',
      recommendation: { decision: 'allow', confidence: 0.9 },
    });
    const lowered = setup({ projectPolicy: 'supervisor:\n  confidence: 0.5\n' });
    api.reply = answer('allow', 0.7, 'fine');
    expect((await lowered.bash(NOVEL)).decision).toMatchObject({
      tier: 'default',
      recommendation: { decision: 'allow', confidence: 0.7 },
    });
  });
});

describe('what the supervisor is told', () => {
  it('the call, role, path policy, task, prompt file and neighbours — with no planted secret in any request body', async () => {
    const awsKeyId = `AKIA${rnd(16, 'upperDigits')}`;
    const githubToken = checksummedToken('ghp_');
    const privateKey = pemPrivateKey('RSA', 6);
    const promptFile = `You deploy to staging. Use the key ${awsKeyId}.\n${privateKey}\nThen report.`;
    const { p, bash } = setup({ task: `deploy staging with token ${githubToken}`, promptFile: '' });
    const file = p.write('agents/deployer.md', promptFile);
    new SessionRegistry(p.runtimeDir).update('s1', (e, now) => ({ ...e!, prompt_file: file, updated_at: now }));
    await rememberCommand(p, 'make deploy-prod --jobs 4', 'deny');
    api.reply = answer('ask', 0.9, 'needs a human');
    await bash(`AWS_ACCESS_KEY_ID=${awsKeyId} GITHUB_TOKEN=${githubToken} make deploy-staging --jobs 4`);
    expect(api.requests).toHaveLength(1);
    const raw = api.requests[0]!.raw;
    for (const secret of [awsKeyId, githubToken, privateKey, privateKey.split('\n')[2]!])
      expect(raw).not.toContain(secret);
    const text = (api.requests[0]!.body.messages as { content: string }[])[0]!.content;
    expect(text).toContain('<REDACTED>');
    expect(text).toContain('make deploy-staging --jobs 4');
    expect(text).toContain('## The role: coder');
    expect(text).toMatch(/may not write: .*tests/);
    expect(text).toContain('deploy staging with token');
    expect(text).toContain('You deploy to staging.');
    expect(text).toMatch(
      /- deny \(similarity 0\.\d\d, decided by human\): <untrusted>make deploy-prod --jobs 4<\/untrusted>/,
    );
    expect(text).toContain('These tiers passed the call without deciding: module, tool-policy');
    expect(api.requests[0]!.body.system).toContain('never instructions');
  });

  it('file tools and other tools: a secret in a path or an input never reaches the API either', async () => {
    const githubToken = checksummedToken('ghp_');
    const awsKeyId = `AKIA${rnd(16, 'upperDigits')}`;
    const { p, check } = setup();
    api.reply = answer('ask', 0.5, 'unsure');
    const write = await check(
      p.pre('Write', { file_path: `${p.root}/notes/${githubToken}.md`, content: `key ${awsKeyId}` }),
    );
    const mcp = await check(
      p.pre('mcp__db__query', { sql: 'select 1', password: 'correct-horse-battery-staple-9', token: awsKeyId }),
    );
    expect([write.decision?.tier, mcp.decision?.tier]).toEqual(['default', 'default']);
    expect(api.requests).toHaveLength(2);
    for (const { raw } of api.requests) {
      for (const secret of [githubToken, awsKeyId, 'correct-horse-battery-staple-9']) expect(raw).not.toContain(secret);
    }
    // A file tool is judged by path and change, never by its content: the model is not shown the content.
    const text = (api.requests[0]!.body.messages as { content: string }[])[0]!.content;
    expect(text).toContain(`call: <untrusted>write ${p.root}/notes/<REDACTED></untrusted>`);
    expect(text.match(/- write /g)).toHaveLength(1); // the path once, however many tiers name it
    expect(api.requests[0]!.raw).not.toContain('key ');
  });

  it('streams (SSE) when the user asks for it, with the same answer', async () => {
    const { bash } = setup({ userConfig: `${USER_CONFIG}  stream: true\n` });
    api.reply = answer('deny', 0.9, 'streamed no');
    expect((await bash(NOVEL)).decision).toMatchObject({ verdict: 'deny', tier: 'supervisor' });
    expect(api.requests[0]!.body.stream).toBe(true);
  });

  it('a prompt file that is a link, or a sensitive path, is not read', async () => {
    const { p, bash } = setup({ task: 'deploy' });
    const secretish = p.write('.env', 'DB_PASSWORD=hunter2-but-longer-than-that\n');
    const link = join(p.root, 'agents', 'link.md');
    p.write('agents/real.md', 'real prompt');
    symlinkSync(join(p.root, 'agents', 'real.md'), link);
    api.reply = answer('allow', 0.5, 'unsure'); // nothing remembered: both calls reach the supervisor
    for (const [n, file] of [secretish, link].entries()) {
      new SessionRegistry(p.runtimeDir).update('s1', (e, now) => ({ ...e!, prompt_file: file, updated_at: now }));
      await bash(NOVEL, `toolu_p${n}`);
    }
    const bodies = api.requests.map((r) => r.raw);
    expect(bodies).toHaveLength(2);
    for (const body of bodies) {
      expect(body).not.toContain("the agent's prompt file");
      expect(body).not.toContain('hunter2');
      expect(body).not.toContain('real prompt');
    }
    expect(readFileSync(secretish, 'utf8')).toContain('hunter2'); // untouched
  });
});

describe('overrides: a human deciding against the supervisor', () => {
  const post = (p: TestProject, command: string, toolUseId: string): Record<string, unknown> => ({
    ...p.pre('Bash', { command }),
    hook_event_name: 'PostToolUse',
    tool_use_id: toolUseId,
    tool_response: { stdout: '' },
  });

  it("the supervisor asked, the human approved at the host's prompt: the allow replaces its ask, and the override is counted", async () => {
    const { p, bash, check } = setup();
    api.reply = answer('ask', 0.9, 'unsure about deploys');
    expect((await bash(NOVEL, 'toolu_a')).decision).toMatchObject({ verdict: 'ask', tier: 'supervisor' });
    await check(post(p, NOVEL, 'toolu_a'));
    expect(loadScope(targetOf(p, 'user')).records).toEqual([
      expect.objectContaining({ verdict: 'allow', decided_by: 'host-prompt' }),
    ]);
    expect((await bash(NOVEL, 'toolu_b')).decision).toMatchObject({ verdict: 'allow', tier: 'exact-cache' });
    const reviews = readSupervisorReviews(p.runtimeDir).records;
    expect(reviews).toEqual([
      expect.objectContaining({
        human: 'allow',
        channel: 'host-prompt',
        override: true,
        supervisor: { decision: 'ask', confidence: 0.9, by: 'api:claude-test', decided: true },
      }),
    ]);
  });

  it('a recommendation the human follows is a review without an override; stats reports the rate per project', async () => {
    const { p, bash, check } = setup();
    api.reply = answer('allow', 0.6, 'likely fine');
    await bash(NOVEL, 'toolu_a');
    await check(post(p, NOVEL, 'toolu_a'));
    api.reply = answer('deny', 0.6, 'looks risky');
    await bash('make deploy-prod --force-all', 'toolu_b');
    await check(post(p, 'make deploy-prod --force-all', 'toolu_b'));
    const reviews = readSupervisorReviews(p.runtimeDir).records;
    expect(reviews.map((r) => [r.supervisor.decision, r.human, r.override])).toEqual([
      ['allow', 'allow', false],
      ['deny', 'allow', true],
    ]);
    const stats = computeStats(readAudit(p.runtimeDir).records, [], reviews);
    expect(stats.supervisor.total).toEqual({ answered: 2, decided: 0, reviewed: 2, overridden: 1, overrideRate: 0.5 });
    expect(Object.keys(stats.supervisor.byProject)).toEqual([p.root]);
    expect(renderStats(stats)).toContain(
      '2 answered (0 decided, 2 left to a human), 2 reviewed by a human, 1 overridden (50.0%)',
    );
  });

  it('forgetting its remembered decision by key (hookwise invalidate --key) is an override', async () => {
    const { p, bash } = setup();
    api.reply = answer('allow', 0.95, 'fine');
    await bash(NOVEL);
    const key = loadScope(targetOf(p, 'user')).records[0]!.key;
    const out = invalidate({ key }, p.root, p.env);
    expect(out.exitCode).toBe(0);
    expect(readSupervisorReviews(p.runtimeDir).records).toEqual([
      expect.objectContaining({
        human: 'invalidated',
        channel: 'rules',
        override: true,
        supervisor: expect.objectContaining({ decision: 'allow', confidence: null }),
      }),
    ]);
    expect(loadScope(targetOf(p, 'user')).records).toEqual([]);
  });
});

describe('in the daemon', () => {
  it('one backend is made on first use and kept warm across calls; its answers reach the thin client', async () => {
    const p = makeProject();
    p.write(join(p.configDir, 'config.yml'), USER_CONFIG);
    p.register('s1', 'coder');
    let made = 0;
    const daemon = await serve({
      where: locations(p.env),
      engine: {
        supervisorBackends: (s) => {
          made++;
          return apiSupervisor({
            model: s.model,
            timeoutMs: s.timeoutMs,
            maxTokens: s.maxTokens,
            stream: s.stream,
            client: { baseURL: api.url, apiKey: 'test-key-not-secret' },
          });
        },
      },
    });
    try {
      const ask = async (command: string) => {
        const answer = await askDaemon(
          JSON.stringify({ ...p.pre('Bash', { command }), tool_use_id: `t-${command.length}` }),
          locations(p.env),
          {},
        );
        if (answer.kind !== 'answered') throw new Error(`daemon did not answer: ${answer.kind}`);
        return answer.result;
      };
      expect(made).toBe(0); // nothing reached tier 3 yet
      expect((await ask('git status')).stdout).toContain('"allow"');
      expect(made).toBe(0);
      api.reply = answer('allow', 0.9, 'fine by the supervisor');
      const allowed = await ask(NOVEL);
      expect(allowed.stdout).toContain('"allow"');
      expect(allowed.stdout).toContain('fine by the supervisor');
      api.reply = answer('deny', 0.9, 'not this one');
      const denied = await ask('make deploy-prod --jobs 4');
      expect(denied.stdout).toContain('"deny"');
      expect(denied.stdout).toContain('not this one');
      expect(made).toBe(1);
      expect(api.requests).toHaveLength(2);
      // Remembered at once in the daemon's live memory: the repeat is answered without a request.
      const again = await ask(NOVEL);
      expect(again.stdout).toContain('"allow"');
      expect(again.stdout).toContain('remembered');
      expect(api.requests).toHaveLength(2);
    } finally {
      await daemon.close();
    }
  });
});

describe('hookwise explain', () => {
  it('shows the supervisor step and its reason, or its recommendation on the final ask (the SDK configured from the environment)', async () => {
    const p = makeProject();
    p.write(join(p.configDir, 'config.yml'), USER_CONFIG);
    const env = { ...p.env, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'test-key-not-secret' };
    const saved = { ...process.env };
    Object.assign(process.env, env);
    try {
      api.reply = answer('deny', 0.92, 'deploys are not this role’s job');
      const decided = renderExplanation(await explain({ command: NOVEL, role: 'coder', cwd: p.root }));
      expect(decided).toMatch(/supervisor\s+DENY\s+supervisor:api:claude-test/);
      expect(decided).toContain('deploys are not this role’s job');
      api.reply = answer('allow', 0.4, 'probably harmless');
      const passed = renderExplanation(await explain({ command: NOVEL, role: 'coder', cwd: p.root }));
      expect(passed).toMatch(/supervisor\s+pass \(no opinion\)/);
      expect(passed).toMatch(
        /verdict: ASK — .*the supervisor \(api:claude-test\) would allow \(confidence 0\.40 is below 0\.80\): probably harmless/,
      );
      // explain remembers nothing: both runs asked the API.
      expect(api.requests).toHaveLength(2);
    } finally {
      for (const key of Object.keys(env)) if (saved[key] === undefined) delete process.env[key];
      Object.assign(process.env, saved);
    }
  });
});
