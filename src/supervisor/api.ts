/**
 * The API supervisor: one Messages API request per call that reaches tier 3, through `@anthropic-ai/sdk`.
 *
 * The SDK costs ~200 ms to load, so it is imported on the first review, never before: a hook process whose
 * call an earlier tier decides does not load it (the bundle keeps it external, scripts/build.mjs), and a
 * daemon loads it once and keeps the client warm.
 *
 * Configuration is the SDK's own: ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), ANTHROPIC_BASE_URL, or the
 * SDK's profile on disk. hookwise sets only what bounds a review: the model, max_tokens, one overall timeout
 * (SDK load, connection and response together; no retries — a retry is latency the agent waits for, and a
 * failed review only means a human decides), and forced tool choice: the model must call `record_decision`
 * and its input is the answer. Anything else — a refusal, a reply cut at max_tokens, no tool call, two, the
 * wrong tool, an input outside the schema, an API or network error — is a failure: a human decides.
 */
import type * as AnthropicSdk from '@anthropic-ai/sdk';
import type { Anthropic as AnthropicClient } from '@anthropic-ai/sdk';
import type { Message, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import {
  failureText,
  parseAnswer,
  type SupervisorBackend,
  type SupervisorOutcome,
  type SupervisorRequest,
} from './backend.js';
import { RECORD_TOOL, RECORD_TOOL_NAME, renderRequest, SYSTEM_PROMPT } from './prompt.js';

export interface ApiSupervisorOptions {
  model: string;
  timeoutMs: number;
  maxTokens: number;
  /** A streamed (SSE) response instead of one JSON body. */
  stream: boolean;
  /** Passed to the SDK client as they are (tests: a fake API's baseURL and a key); absent: the SDK's defaults. */
  client?: { baseURL?: string; apiKey?: string };
}

type Sdk = typeof AnthropicSdk;
let sdk: Promise<Sdk> | undefined;

/** Whether this process has loaded the SDK (for the test that calls decided earlier never do). */
export function sdkRequested(): boolean {
  return sdk !== undefined;
}

function loadSdk(): Promise<Sdk> {
  sdk ??= import('@anthropic-ai/sdk');
  return sdk;
}

export function apiSupervisor(options: ApiSupervisorOptions): SupervisorBackend {
  const by = `api:${options.model}`;
  let client: AnthropicClient | undefined;
  const fail = (why: string): SupervisorOutcome => ({ kind: 'failure', why: failureText(why), by });

  async function clientFor(): Promise<AnthropicClient> {
    if (client !== undefined) return client;
    const { Anthropic } = await loadSdk();
    // logLevel off: the SDK's warnings would go to a hook's stderr on every call.
    client = new Anthropic({ ...options.client, timeout: options.timeoutMs, maxRetries: 0, logLevel: 'off' });
    return client;
  }

  async function request(params: MessageCreateParamsNonStreaming, signal: AbortSignal): Promise<Message> {
    const c = await clientFor();
    if (options.stream) return await c.messages.stream(params, { signal }).finalMessage();
    return await c.messages.create(params, { signal });
  }

  return {
    name: 'api',
    async review(req: SupervisorRequest): Promise<SupervisorOutcome> {
      const params: MessageCreateParamsNonStreaming = {
        model: options.model,
        max_tokens: options.maxTokens,
        system: SYSTEM_PROMPT,
        messages: [{ role: 'user', content: renderRequest(req) }],
        tools: [RECORD_TOOL],
        tool_choice: { type: 'tool', name: RECORD_TOOL_NAME },
      };
      const abort = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        abort.abort();
      }, options.timeoutMs);
      let message: Message;
      try {
        message = await request(params, abort.signal);
      } catch (error) {
        if (timedOut) return fail(`timed out after ${options.timeoutMs} ms`);
        return fail(describeApiError(error));
      } finally {
        clearTimeout(timer);
      }
      return answerOf(message, by);
    },
  };
}

/** A response as an answer: exactly one call of record_decision, not refused, not cut short. */
export function answerOf(message: Message, by: string): SupervisorOutcome {
  const fail = (why: string): SupervisorOutcome => ({ kind: 'failure', why: failureText(why), by });
  if (message.stop_reason === 'refusal') return fail('the model refused to judge this call');
  if (message.stop_reason === 'max_tokens') return fail('not an answer: the reply was cut at max_tokens');
  const calls = (message.content ?? []).filter((block) => block.type === 'tool_use');
  if (calls.length !== 1)
    return fail(`not an answer: ${calls.length} tool calls (expected one call of ${RECORD_TOOL_NAME})`);
  const call = calls[0]!;
  if (call.name !== RECORD_TOOL_NAME)
    return fail(`not an answer: it called "${call.name.slice(0, 60)}", not ${RECORD_TOOL_NAME}`);
  return parseAnswer(call.input, by);
}

/** An SDK error in a line: the HTTP status and error type when the API answered, else the message. */
function describeApiError(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const e = error as { status?: unknown; error?: { error?: { type?: unknown } }; message?: unknown; name?: unknown };
    if (typeof e.status === 'number') {
      const type = e.error?.error?.type;
      return `API error ${e.status}${typeof type === 'string' ? ` (${type})` : ''}`;
    }
    if (typeof e.message === 'string') return `${typeof e.name === 'string' ? `${e.name}: ` : ''}${e.message}`;
  }
  return String(error);
}
