/**
 * The circuit breaker's error signature: a failed tool run's output reduced to one of a few kinds, so that
 * "the same error again" can be counted without keeping the output (which is untrusted and may hold
 * secrets — only the kind is ever stored). Pure: substring tests over the output's first and last bytes,
 * where shells and test runners put what went wrong.
 */

export const ERROR_SIGNATURES = [
  'command-not-found',
  'syntax-error',
  'permission-denied',
  'test-failure',
  'other',
] as const;
export type ErrorSignature = (typeof ERROR_SIGNATURES)[number];

/** Bytes looked at from each end: enough for a shell's message and a test runner's summary, bounded for a 10 MB log. */
export const SIGNATURE_WINDOW = 4096;

/** First match wins: the order puts the kinds a shell reports itself before what a program printed. */
const PATTERNS: readonly [ErrorSignature, readonly string[]][] = [
  [
    'command-not-found',
    ['command not found', 'is not recognized as an internal or external command', 'executable file not found'],
  ],
  [
    'syntax-error',
    ['syntax error', 'syntaxerror', 'unexpected token', 'unexpected end of file', 'parse error', 'unterminated'],
  ],
  ['permission-denied', ['permission denied', 'operation not permitted', 'eacces', 'eperm', 'read-only file system']],
  [
    'test-failure',
    [
      ' failed | ',
      ' failed (',
      'tests failed',
      'test failed',
      'failed tests',
      'assertionerror',
      'assertion failed',
      ' failing',
      'failures:',
      '✗',
      '✕',
      'fail ',
      'failed:',
      '--- fail',
      'test result: failed',
    ],
  ],
];

export function errorSignature(output: string): ErrorSignature {
  const text = (
    output.length <= 2 * SIGNATURE_WINDOW
      ? output
      : `${output.slice(0, SIGNATURE_WINDOW)}\n${output.slice(-SIGNATURE_WINDOW)}`
  ).toLowerCase();
  for (const [signature, needles] of PATTERNS) {
    if (needles.some((needle) => text.includes(needle))) return signature;
  }
  return 'other';
}
