import { describe, expect, it } from 'vitest';
import { HookwiseError } from '../../src/core/errors.js';
import { MAX_SHOWN_ERROR, shownError, shownText } from '../../src/sanitize/shown.js';

// Built at run time: no literal token in the repository for scanners to trip on.
const SECRET = ['AKIA', 'Q3ZL7WXK5NV2MRT8'].join('');

describe('an error on its way to stderr or a log', () => {
  it('loses its secrets, its control characters and its length', () => {
    const error = new Error(`ENAMETOOLONG: stat '/p/x=${SECRET};\n${'y'.repeat(70_000)}'`);
    const shown = shownError(error);
    expect(shown).not.toContain(SECRET);
    expect(shown).toContain('<REDACTED>');
    expect(shown).not.toMatch(/[\n\r]/);
    expect(shown.length).toBeLessThan(MAX_SHOWN_ERROR + 40);
    expect(shown).toMatch(/more characters\)$/);
  });

  it("keeps hookwise's own messages as they were when they are short and clean", () => {
    expect(shownError(new HookwiseError('USAGE', 'no hook payload on stdin'))).toBe('no hook payload on stdin');
    expect(shownText('a\u0007b', 10)).toBe('a?b');
  });
});
