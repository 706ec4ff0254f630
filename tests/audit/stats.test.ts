import { describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/audit/log.js';
import { computeStats, renderStats } from '../../src/audit/stats.js';
import { sanitize } from '../../src/sanitize/index.js';

const record = (tool: string, verdict: AuditRecord['verdict'], tier: AuditRecord['tier'] = 'default'): AuditRecord => ({
  ts: new Date(0).toISOString(),
  session: sanitize('s1').text,
  role: 'coder',
  host: 'claude',
  tool: sanitize(tool).text,
  verdict,
  tier,
  rule: null,
  latency_ms: 1,
  paths: [],
  input: sanitize('{}').text,
  secrets: 0,
  input_hash: '0',
});

describe('stats: MCP tools by asks', () => {
  it('lists MCP tools by how often they asked, then by calls; other tools are not listed', () => {
    const records = [
      record('mcp__github__create_issue', 'ask'),
      record('mcp__github__create_issue', 'allow', 'exact-cache'),
      record('mcp__postgres__query', 'ask'),
      record('mcp__postgres__query', 'ask'),
      record('mcp__postgres__query', 'deny', 'mcp'),
      record('mcp__fs__read_text_file', 'allow', 'mcp'),
      record('Bash', 'ask'),
    ];
    const s = computeStats(records);
    expect(s.mcpTools).toEqual([
      { tool: 'mcp__postgres__query', calls: 3, asks: 2, denies: 1 },
      { tool: 'mcp__github__create_issue', calls: 2, asks: 1, denies: 0 },
      { tool: 'mcp__fs__read_text_file', calls: 1, asks: 0, denies: 0 },
    ]);
    const text = renderStats(s);
    expect(text).toMatch(/MCP tools by asks \(asks \/ denies \/ calls\):\n\s+2\s+1\s+3\s+mcp__postgres__query/);
  });

  it('says nothing about MCP when no MCP tool was called', () => {
    expect(renderStats(computeStats([record('Bash', 'ask')]))).not.toContain('MCP tools');
  });
});
