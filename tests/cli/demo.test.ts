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
    expect(text).toMatch(/18 decisions: 7 allow, 5 ask, 6 deny/);
  }, 60_000);
});
