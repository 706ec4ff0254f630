import { describe, expect, it } from 'vitest';
import { grepGlobMatches } from '../../src/policy/grep-scope.js';

describe("ripgrep's globs, as a Grep call's scope", () => {
  it.each([
    ['.env*', '.env', true],
    ['.env*', 'config/.env.local', true],
    ['*.{pem,crt}', 'certs/site.pem', true],
    ['*.{pem,crt}', 'site.key', false],
    ['**/.env.local', 'a/b/.env.local', true],
    ['deploy/id_*', 'deploy/id_rsa', true],
    ['deploy/id_*', 'other/id_rsa', false],
    ['src/**/*.ts', 'src/a/b.ts', true],
    ['*.[tj]s', 'a.js', true],
    ['?.env', 'x.env', true],
    ['*.ts', '.env', false],
  ])('%s selects %s: %s', (glob, path, expected) => {
    expect(grepGlobMatches(glob, path)).toBe(expected);
  });
});
