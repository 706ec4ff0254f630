/** The breaker's error signature: a pure classifier over the ends of a failed run's output. */
import { describe, expect, it } from 'vitest';
import { errorSignature, SIGNATURE_WINDOW } from '../../src/modules/signature.js';

describe('errorSignature', () => {
  it.each([
    ['Exit code 127\nbash: line 1: pytets: command not found', 'command-not-found'],
    ['exec: "foo": executable file not found in $PATH', 'command-not-found'],
    ["Exit code 2\nbash: -c: line 1: syntax error near unexpected token `)'", 'syntax-error'],
    ['SyntaxError: Unexpected token } in JSON at position 4', 'syntax-error'],
    ['rm: cannot remove /etc/hosts: Permission denied', 'permission-denied'],
    ['Error: EACCES: permission denied, open /root/x', 'permission-denied'],
    ['Test Files  1 failed (1)\n Tests  2 failed | 10 passed', 'test-failure'],
    ['FAILED tests/test_x.py::test_a - AssertionError: assert 1 == 2', 'test-failure'],
    ['Exit code 1\nsomething else went wrong', 'other'],
    ['', 'other'],
  ])('%j → %s', (output, signature) => {
    expect(errorSignature(output)).toBe(signature);
  });

  it('looks only at the first and last bytes of a long output', () => {
    const middle = 'x'.repeat(SIGNATURE_WINDOW) + 'command not found' + 'x'.repeat(SIGNATURE_WINDOW);
    expect(errorSignature(middle)).toBe('other');
    expect(errorSignature('y'.repeat(3 * SIGNATURE_WINDOW) + '\nTests  1 failed | 3 passed')).toBe('test-failure');
  });
});
