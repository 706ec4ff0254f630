/**
 * Tier 3's port with a team's shared answers (engine/supervise.ts + store/fleet-share.ts SharedAnswers): one
 * machine's supervisor answer, carried to another (here from one outbox file into the other's memory, as the
 * store's pull does: tests/store/fleet-share.test.ts covers the store between), decides the same call there
 * without asking its model — under that machine's own confidence threshold.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import { SharedAnswers } from '../../src/store/fleet-share.js';
import type { AnswerRow } from '../../src/store/fleet-rows.js';
import { apiSupervisor } from '../../src/supervisor/api.js';
import { locations } from '../../src/util/locations.js';
import { answer, startFakeApi, type FakeApi } from '../support/fake-anthropic.js';
import { makeProject } from '../support/project.js';

let api: FakeApi;
beforeAll(async () => {
  await import('@anthropic-ai/sdk');
});
beforeEach(async () => {
  api = await startFakeApi();
});
afterEach(async () => {
  await api.close();
});

const CONFIG = (confidence: number): string =>
  `supervisor:\n  backend: api\n  model: claude-test\n  confidence: ${confidence}\n  timeout: 15\n`;

function machine(confidence: number): {
  answers: SharedAnswers;
  bash(command: string): ReturnType<Engine['handle']>;
} {
  const p = makeProject();
  p.write(join(p.configDir, 'config.yml'), CONFIG(confidence));
  p.register('s1', 'coder');
  const answers = new SharedAnswers(join(p.runtimeDir, 'supervisor-outbox.jsonl'));
  const engine = new Engine(locations(p.env), {
    fleet: { answers },
    supervisorBackends: (s) =>
      apiSupervisor({
        model: s.model,
        timeoutMs: s.timeoutMs,
        maxTokens: s.maxTokens,
        stream: s.stream,
        client: { baseURL: api.url, apiKey: 'test-key-not-secret' },
      }),
  });
  return {
    answers,
    bash: (command) => engine.handle(JSON.stringify({ ...p.pre('Bash', { command }), tool_use_id: 'toolu_1' })),
  };
}

/** What the store carries: the outbox's rows, held by the other machine. */
function carry(from: SharedAnswers, to: SharedAnswers): AnswerRow[] {
  const rows = readFileSync(from.outbox, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as AnswerRow);
  for (const row of rows) to.hold(row);
  return rows;
}

const NOVEL = 'make deploy-staging --jobs 4';

describe("tier 3 with the team's answers", () => {
  it("one machine's answer decides the same call on another without asking its model", async () => {
    const a = machine(0.8);
    const b = machine(0.8);
    api.reply = answer('allow', 0.93, 'staging deploys are part of the task');
    expect((await a.bash(NOVEL)).decision).toMatchObject({ verdict: 'allow', tier: 'supervisor' });
    expect(api.requests).toHaveLength(1);
    const rows = carry(a.answers, b.answers);
    expect(rows).toEqual([
      expect.objectContaining({ role: 'coder', verdict: 'allow', confidence: 0.93, answered_by: 'api:claude-test' }),
    ]);
    // The key is the memory key (a hash), not the command.
    expect(rows[0]!.key).toMatch(/^[0-9a-f]{16}$/);
    const onB = await b.bash(NOVEL);
    expect(onB.decision).toMatchObject({
      verdict: 'allow',
      tier: 'supervisor',
      rule: { id: 'supervisor:team:api:claude-test' },
    });
    expect(api.requests).toHaveLength(1);
    // Another call is not served by it.
    api.reply = answer('ask', 0.9, 'production is not in the task');
    expect((await b.bash('make deploy-production')).decision).toMatchObject({ verdict: 'ask', tier: 'supervisor' });
    expect(api.requests).toHaveLength(2);
  });

  it("the receiving machine's own threshold applies: below it, the team's answer is only a recommendation", async () => {
    const a = machine(0.8);
    const b = machine(0.95);
    api.reply = answer('allow', 0.9, 'looks like the task');
    await a.bash(NOVEL);
    carry(a.answers, b.answers);
    const onB = await b.bash(NOVEL);
    expect(onB.decision).toMatchObject({
      verdict: 'ask',
      recommendation: { decision: 'allow', confidence: 0.9 },
    });
    expect(api.requests).toHaveLength(1);
  });
});
