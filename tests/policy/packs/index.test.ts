import { describe, expect, it } from 'vitest';
import { allPackRuleIds, PACK_NAMES, packRule, PACKS, packVerdicts } from '../../../src/policy/packs/index.js';

describe('pack registry', () => {
  it('has every pack once, in PACK_NAMES order', () => {
    expect(PACKS.map((p) => p.name)).toEqual([...PACK_NAMES]);
  });

  it.each(PACKS.map((p) => [p.name, p] as const))(
    '%s: guard packs only ask/deny, the allow pack only allows',
    (_name, pack) => {
      const verdicts = packVerdicts(pack);
      if (pack.kind === 'guard') expect(verdicts.has('allow')).toBe(false);
      else expect([...verdicts]).toEqual(['allow']);
      expect(pack.commands.length).toBeGreaterThan(0);
    },
  );

  it.each(allPackRuleIds())('%s: a stable id and a message that says what happens', (id) => {
    expect(id).toMatch(/^pack:[a-z-]+:[a-z0-9-]+$/);
    const info = packRule(id)!;
    expect(info.spec.message.length).toBeGreaterThan(20);
    expect(info.spec.message.endsWith('.')).toBe(true);
  });

  // The reason is "`<the segment>` <message>": a message that named the command again would repeat it.
  it.each(allPackRuleIds())('%s: the message goes on from the quoted command, without naming it again', (id) => {
    const info = packRule(id)!;
    const pack = PACKS.find((p) => id.startsWith(`pack:${p.name}:`))!;
    const first = info.spec.message.split(/[\s/]/)[0]!;
    expect(first).toMatch(/^[a-z(]/);
    expect(pack.commands).not.toContain(first);
  });

  it.each(allPackRuleIds().filter((id) => packRule(id)!.spec.verdict !== 'allow'))(
    '%s: an ask/deny message says what happens and then what to do instead',
    (id) => {
      // At least two sentences: the consequence, then the safer alternative or who decides.
      expect(packRule(id)!.spec.message.split(/[.:] /).length).toBeGreaterThanOrEqual(2);
    },
  );
});
