/**
 * Typed errors with stable codes. Every error that can reach a user names what is wrong and where; the
 * check command turns any of them into a fail-closed decision.
 */
export const ERROR_CODES = [
  'INPUT_EMPTY',
  'INPUT_TOO_LARGE',
  'INPUT_NOT_JSON',
  'INPUT_INVALID',
  'UNKNOWN_EVENT',
  'UNKNOWN_HOST',
  'CONFIG_INVALID',
  'CONFIG_CHANGING',
  'RUNTIME_DIR_UNSAFE',
  'REGISTRY_UNREADABLE',
  'LOCK_TIMEOUT',
  'MODEL_INVALID',
  'QUEUE_CORRUPT',
  'QUEUE_UNKNOWN_ID',
  'USAGE',
  'INTERNAL',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export class HookwiseError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = 'HookwiseError';
  }
}

/** A one-line description of any thrown value, for fail-closed messages (never a bare stack trace). */
export function describeError(error: unknown): string {
  // By name, not instanceof: the CLI is split into bundles that each carry their own copy of the class.
  if (error instanceof Error && error.name === 'HookwiseError') return error.message;
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/**
 * The stable code of a HookwiseError, or undefined for any other error. By name and a known code, not
 * instanceof: an error thrown in another bundle (the policy compiler, the shell parser) is another class.
 */
export function errorCodeOf(error: unknown): ErrorCode | undefined {
  if (!(error instanceof Error) || error.name !== 'HookwiseError') return undefined;
  const code = (error as { code?: unknown }).code;
  return (ERROR_CODES as readonly unknown[]).includes(code) ? (code as ErrorCode) : undefined;
}

export function assertNever(value: never, what: string): never {
  throw new HookwiseError('INTERNAL', `unhandled ${what}: ${JSON.stringify(value)}`);
}
