/** The string fast paths must agree exactly with picomatch, the reference, on every shape they claim. */
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { matchesKind } from '../../src/policy/compiled.js';
import { compilePattern, shapeOf } from '../../src/policy/compile.js';
import {
  BUILT_IN_ROLES,
  DEFAULT_CATEGORIES,
  DEFAULT_SENSITIVE_READ,
  DEFAULT_SENSITIVE_WRITE,
} from '../../src/policy/defaults.js';

const SUBJECTS = [
  '',
  'src',
  'src/a.ts',
  'src/.hidden/x',
  'srcx/a.ts',
  'lib/deep/x/y.js',
  'tests',
  'tests/a.test.ts',
  'a/tests/b.ts',
  '.env',
  '.env.local',
  '.envrc',
  'x/.env',
  'a/b/.env.production',
  'environment',
  'secrets',
  'secrets/x',
  'a/secrets',
  'a/secrets/b/c',
  'mysecrets/x',
  'main.tf',
  'infra/x.tf',
  'main.tfvars',
  'x.tf.bak',
  'Dockerfile',
  'Dockerfile.prod',
  'svc/Dockerfile.dev',
  'package.json',
  'a/package.json',
  'Jenkinsfile',
  'docs/reviews/a.md',
  'docs/reviews/security/b.md',
  'a.test.ts',
  'deep/a.spec.js',
  'x_test.go',
  'test_x.py',
  'requirements-dev.txt',
  '.claude',
  '.claude/settings.json',
  '.git/hooks/pre-commit',
  '.git/config',
  '.git/configx',
  'x.git/config',
  'vendor/lib/.git/config',
  'vendor/lib/.git/hooks/pre-commit',
  'vendor/.git/hooksx/a',
  '.hg',
  '.hg/hgrc',
  'sub/.hg/hgrc',
  'sub/x.hg/hgrc',
  '.jj/repo/config.toml',
  '.github/workflows/ci.yml',
  'CHANGELOG.md',
  'README.md',
  'docs',
  'docs/x/y.md',
];

const everyGlob = new Set<string>([
  ...Object.values(DEFAULT_CATEGORIES).flat(),
  ...Object.values(BUILT_IN_ROLES)
    .flatMap((r) => [...r.allow_write, ...r.deny_write, ...r.allow_read])
    .filter((g) => !g.startsWith('{{')),
  ...DEFAULT_SENSITIVE_WRITE.filter((g) => !g.startsWith('~')),
  ...DEFAULT_SENSITIVE_READ.filter((g) => !g.startsWith('~')),
  '**/secrets/**',
  '**/.env*',
  'a/b',
  'src/main.ts',
  'x*',
  '*x',
  '*.min.*',
  'docs/*.md',
  '{a,b}/**',
  '[ab]*',
]);

describe('glob shapes', () => {
  it.each([...everyGlob])('%s: fast path agrees with picomatch', (glob) => {
    const pattern = compilePattern({ glob, source: 'test' }, '/home/u');
    const reference = picomatch(glob, { dot: true, basename: pattern.base });
    for (const subject of SUBJECTS) {
      // Deliberate difference: `**` covers the project root itself ('') — a Grep over the whole project.
      if (glob === '**' && subject === '') continue;
      const subjectFor = pattern.base ? subject.slice(subject.lastIndexOf('/') + 1) : subject;
      const ours = matchesKind(pattern.kind, pattern.value, subjectFor, () => new RegExp(pattern.re, pattern.flags));
      expect(ours, `${glob} vs ${JSON.stringify(subject)} (${pattern.kind})`).toBe(reference(subject));
    }
  });

  it('classifies the common shapes', () => {
    expect(shapeOf('src/**')).toEqual({ kind: 'dir', value: 'src' });
    expect(shapeOf('.env*')).toEqual({ kind: 'prefix', value: '.env' });
    expect(shapeOf('*.tf')).toEqual({ kind: 'suffix', value: '.tf' });
    expect(shapeOf('**/secrets/**')).toEqual({ kind: 'segment', value: 'secrets' });
    expect(shapeOf('**/.env*')).toEqual({ kind: 'segment-prefix', value: '.env' });
    expect(shapeOf('**/.git/hooks/**')).toEqual({ kind: 'segment', value: '.git/hooks' });
    expect(shapeOf('**/.git/config')).toEqual({ kind: 'tail', value: '.git/config' });
    expect(shapeOf('Jenkinsfile')).toEqual({ kind: 'exact', value: 'Jenkinsfile' });
    expect(shapeOf('**')).toEqual({ kind: 'any', value: '' });
    expect(shapeOf('requirements*.txt').kind).toBe('regex');
    expect(shapeOf('docs/reviews/*.md').kind).toBe('regex');
  });

  it('home patterns become absolute', () => {
    const p = compilePattern({ glob: '~/.claude/**', source: 'built-in' }, '/home/u');
    expect(p).toMatchObject({ absolute: true, kind: 'dir', value: '/home/u/.claude' });
  });
});
