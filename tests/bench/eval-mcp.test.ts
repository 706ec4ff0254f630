import { describe, expect, it } from 'vitest';
import { evaluateMcp, renderMcpEval } from '../../bench/eval-mcp.js';

describe('the MCP workload evaluation (bench --eval-mcp)', () => {
  it('asks or denies every adversarial row in both replays; one approval per tool lowers the asks', async () => {
    const e = await evaluateMcp(undefined, { quick: true });
    expect(e.unsafeAllows).toEqual([]);
    expect(e.adversarial).toBeGreaterThan(30);
    for (const replay of [e.firstSight, e.oneApproval])
      for (const s of replay.steps.filter((x) => x.label === 'risky'))
        expect(s.verdict, `line ${s.line} ${s.note}`).not.toBe('allow');
    expect(e.oneApproval.asks).toBeLessThan(e.firstSight.asks);
    // A read-only tool asks at most once: the approval's ask (another public page, another id are covered).
    for (const t of e.readOnlyTools) expect(t.asks, t.tool).toBeLessThanOrEqual(1);
    expect(renderMcpEval(e)).toMatch(/unsafe allows: 0 \(target 0\)/);
  }, 120_000);
});
