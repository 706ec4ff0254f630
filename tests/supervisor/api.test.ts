import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiSupervisor } from '../../src/supervisor/api.js';
import { parseAnswer, type SupervisorRequest } from '../../src/supervisor/backend.js';
import { RECORD_TOOL_NAME } from '../../src/supervisor/prompt.js';
import { sanitize, type Sanitized } from '../../src/sanitize/index.js';
import { rnd } from '../sanitize/fakes.js';
import { answer, startFakeApi, type FakeApi, type Reply } from '../support/fake-anthropic.js';

const s = (text: string): Sanitized => sanitize(text).text;

const request: SupervisorRequest = {
  tool: s('Bash'),
  action: 'shell',
  call: s('make deploy-staging --jobs 4'),
  paths: [],
  projectRoot: s('/work/project'),
  cwd: s('/work/project'),
  role: {
    name: 'coder',
    description: s('writes code'),
    allowWrite: [s('src/**')],
    denyWrite: [s('tests/**')],
    allowRead: [s('**')],
  },
  passed: ['module', 'rules'],
  neighbours: [],
};

let api: FakeApi;
beforeEach(async () => {
  api = await startFakeApi();
});
afterEach(async () => {
  await api.close();
});

const backend = (options: { stream?: boolean; timeoutMs?: number } = {}) =>
  apiSupervisor({
    model: 'claude-test',
    timeoutMs: options.timeoutMs ?? 15_000,
    maxTokens: 256,
    stream: options.stream ?? false,
    client: { baseURL: api.url, apiKey: 'test-key-not-secret' },
  });

describe.each([false, true])('the API supervisor (stream: %s)', (stream) => {
  it.each(['allow', 'deny', 'ask'] as const)('answers %s through the forced tool call', async (decision) => {
    api.reply = answer(decision, 0.9, `because ${decision}`);
    const outcome = await backend({ stream }).review(request);
    expect(outcome).toEqual({
      kind: 'answer',
      decision,
      confidence: 0.9,
      reason: `because ${decision}`,
      by: 'api:claude-test',
    });
    const body = api.requests[0]!.body;
    expect(body).toMatchObject({
      model: 'claude-test',
      max_tokens: 256,
      tool_choice: { type: 'tool', name: RECORD_TOOL_NAME },
    });
    expect(body.stream === true).toBe(stream);
    expect((body.tools as { name: string }[]).map((t) => t.name)).toEqual([RECORD_TOOL_NAME]);
  });

  it('text beside the one tool call is ignored', async () => {
    api.reply = {
      kind: 'message',
      content: [
        { type: 'text', text: 'thinking aloud' },
        { type: 'tool_use', name: RECORD_TOOL_NAME, input: { decision: 'deny', confidence: 0.99, reason: 'no' } },
      ],
    };
    expect(await backend({ stream }).review(request)).toMatchObject({ kind: 'answer', decision: 'deny' });
  });

  const failures: [string, Reply, RegExp][] = [
    [
      'a refusal',
      { kind: 'message', content: [{ type: 'text', text: 'I cannot help' }], stopReason: 'refusal' },
      /refused/,
    ],
    [
      'no tool call',
      { kind: 'message', content: [{ type: 'text', text: 'allow' }], stopReason: 'end_turn' },
      /0 tool calls/,
    ],
    [
      'two tool calls',
      {
        kind: 'message',
        content: [
          { type: 'tool_use', name: RECORD_TOOL_NAME, input: { decision: 'allow', confidence: 1, reason: 'a' } },
          { type: 'tool_use', name: RECORD_TOOL_NAME, input: { decision: 'allow', confidence: 1, reason: 'b' } },
        ],
      },
      /2 tool calls/,
    ],
    [
      'the wrong tool',
      {
        kind: 'message',
        content: [{ type: 'tool_use', name: 'run_shell', input: { decision: 'allow', confidence: 1, reason: 'a' } }],
      },
      /called "run_shell"/,
    ],
    ['a decision outside the schema', answer('yes', 0.9), /decision must be one of/],
    ['a confidence above 1', answer('allow', 1.5), /confidence must be/],
    ['an empty reason', answer('allow', 0.9, '  '), /reason must be/],
    [
      'a reply cut at max_tokens',
      {
        kind: 'message',
        content: [
          { type: 'tool_use', name: RECORD_TOOL_NAME, input: { decision: 'allow', confidence: 0.9, reason: 'x' } },
        ],
        stopReason: 'max_tokens',
      },
      /max_tokens/,
    ],
    ['an API error 500', { kind: 'error', status: 500, type: 'api_error' }, /API error 500 \(api_error\)/],
    ['rate limiting (429)', { kind: 'error', status: 429, type: 'rate_limit_error' }, /API error 429/],
    ['an overloaded API (529)', { kind: 'error', status: 529, type: 'overloaded_error' }, /API error 529/],
  ];
  it.each(failures)('%s is a failure, never an answer', async (_name, reply, why) => {
    api.reply = reply;
    const outcome = await backend({ stream }).review(request);
    expect(outcome).toMatchObject({ kind: 'failure', by: 'api:claude-test' });
    expect(outcome.kind === 'failure' && outcome.why).toMatch(why);
    // No retries: one failed request is one request (a retry is latency the agent waits for).
    expect(api.requests).toHaveLength(1);
  });

  it('a response slower than the timeout is a failure, within the timeout', async () => {
    api.reply = { kind: 'hang' };
    const started = Date.now();
    const outcome = await backend({ stream, timeoutMs: 300 }).review(request);
    expect(outcome).toMatchObject({ kind: 'failure', why: 'timed out after 300 ms' });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

it('an API that cannot be reached is a failure', async () => {
  await api.close();
  const outcome = await backend().review(request);
  expect(outcome.kind).toBe('failure');
});

it('a client is made once and reused across reviews', async () => {
  const b = backend();
  await b.review(request);
  await b.review(request);
  expect(api.requests).toHaveLength(2);
  expect(api.requests[0]!.headers['x-api-key'] ?? api.requests[0]!.headers.authorization).toBeDefined();
});

describe('parseAnswer', () => {
  it.each([
    [{ decision: 'allow', confidence: 0, reason: 'r' }, 'answer'],
    [{ decision: 'ask', confidence: 1, reason: 'r' }, 'answer'],
    [{ decision: 'allow', confidence: -0.1, reason: 'r' }, 'failure'],
    [{ decision: 'allow', confidence: Number.NaN, reason: 'r' }, 'failure'],
    [{ decision: 'allow', confidence: '0.9', reason: 'r' }, 'failure'],
    [{ decision: 'ALLOW', confidence: 0.9, reason: 'r' }, 'failure'],
    [{ decision: 'allow', confidence: 0.9 }, 'failure'],
    [{ decision: 'allow', confidence: 0.9, reason: 'r', extra: 1 }, 'failure'],
    [{ decision: 'allow', confidence: 0.9, reason: 'x'.repeat(1001) }, 'failure'],
    [['allow', 0.9, 'r'], 'failure'],
    [null, 'failure'],
    ['allow', 'failure'],
  ])('%j → %s', (input, kind) => {
    expect(parseAnswer(input, 'api:m').kind).toBe(kind);
  });

  it('sanitizes the reason (a model may echo a secret it was shown)', () => {
    const fake = `AKIA${rnd(16, 'upperDigits')}`;
    const outcome = parseAnswer({ decision: 'deny', confidence: 0.9, reason: `it uploads ${fake}` }, 'api:m');
    expect(outcome.kind === 'answer' && outcome.reason).not.toContain(fake);
  });
});
