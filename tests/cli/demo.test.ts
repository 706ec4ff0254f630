import { describe, expect, it } from 'vitest';
import { demo } from '../../src/cli/demo.js';

describe('hookwise demo', () => {
  it('replays the sample session through the built check and shows every verdict kind', () => {
    const lines: string[] = [];
    const code = demo((l) => lines.push(l));
    const text = lines.join('\n');
    expect(code).toBe(0);
    expect(text).toMatch(/Write tests\/auth\.test\.ts\n\s+→ DENY/);
    expect(text).toMatch(/Write \.env\n\s+→ ASK/);
    expect(text).toMatch(/\[claude · unregistered\] Write src\/x\.ts\n\s+→ DENY/);
    expect(text).toMatch(/git status && npm test\n\s+→ ALLOW/);
    expect(text).toMatch(/git push --force origin main\n\s+→ DENY/);
    expect(text).toMatch(/grep -rn "rm -rf" src\n\s+→ ALLOW/);
    expect(text).toMatch(/Read \.env\.local\n\s+→ ASK\s+\(\d+ ms wall\)\s+— reading credentials asks/);
    // The summary counts what each host was given, so it agrees with the list above it.
    const listed = { ALLOW: 0, ASK: 0, DENY: 0 };
    for (const m of text.matchAll(/→ (ALLOW|ASK|DENY)/g)) listed[m[1] as keyof typeof listed]++;
    expect(text).toContain(
      `${listed.ALLOW + listed.ASK + listed.DENY} decisions: ${listed.ALLOW} allow, ${listed.ASK} ask, ${listed.DENY} deny`,
    );
    expect(listed).toEqual({ ALLOW: 7, ASK: 5, DENY: 7 });
  }, 60_000);
});
