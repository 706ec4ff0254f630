import { describe, expect, it } from 'vitest';
import { hookwisePack } from '../../../src/policy/packs/hookwise.js';
import { packVerdict } from '../../support/packs.js';

describe('hookwise pack: an agent changing its own gate asks', () => {
  it.each([
    'hookwise disable --session-id s1',
    'hookwise register --role maintainer --session-id s1',
    'hookwise switch --role maintainer',
    'hookwise override --allow "git push"',
    'hookwise invalidate --all',
    'hookwise rules compact',
    'hookwise install --claude',
    'hookwise daemon stop',
    'hookwise safemode off --session-id s1',
    'hookwise breaker reset --session-id s1',
    'hookwise init',
    'npx hookwise disable',
    'npx -y hookwise@latest register --role maintainer',
    'node dist/hookwise.cjs disable',
    '/usr/local/bin/hookwise enable',
    'hookwise approve abcdefgh23',
    'hookwise approve abcdefgh23 --always-ask --scope project',
    'hookwise deny abcdefgh23',
    'npx hookwise approve abcdefgh23',
    'hookwise queue --web',
  ])('%s → ask', (command) => {
    expect(packVerdict(hookwisePack, command)).toBe('ask self-change');
  });

  it.each([
    'hookwise --version',
    'hookwise status',
    'hookwise explain "git push"',
    'hookwise stats',
    'hookwise rules list',
    'hookwise daemon status',
    'hookwise safemode status --session-id s1',
    'hookwise breaker status --session-id s1',
    'hookwise validate',
    'hookwise queue',
    'hookwise queue --json',
    'npx vitest run',
    'node dist/app.js',
  ])('%s → no opinion', (command) => {
    expect(packVerdict(hookwisePack, command)).toBeNull();
  });
});
