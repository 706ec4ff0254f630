/** The keyword index: what a scan reports, known prefixes (layer 1 on its own), and the on-disk cache. */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findSecrets } from '../../src/sanitize/index.js';
import {
  keywordIndex,
  keywordSignature,
  resetKeywordIndex,
  scanKeywords,
  setKeywordCacheDir,
} from '../../src/sanitize/keywords.js';
import { PATTERNS } from '../../src/sanitize/patterns.js';
import { rnd } from './fakes.js';

const ids = (text: string): string[] => scanKeywords(text).patterns.map((p) => PATTERNS[p]!.id);

describe('scanKeywords', () => {
  it('confirms generic keywords only where they start an assignment', () => {
    expect(ids('git commit -m "refresh the token before it expires"')).not.toContain('secret-assignment');
    expect(ids('token: abc')).toContain('secret-assignment'); // hookwise:allow
    expect(ids('"password" = "x"')).toContain('secret-assignment');
  });

  it('confirms :// only for URLs with user:password@', () => {
    expect(ids('curl https://example.com/a:b')).not.toContain('url-credentials');
    expect(ids('curl https://user:pw@example.com/')).toContain('url-credentials'); // hookwise:allow
  });

  it('reports hex-context words and known prefixes', () => {
    const scan = scanKeywords('git show HEAD; echo ghp_x');
    expect(scan.hexContext.length).toBeGreaterThan(0);
    expect(scan.prefixes).toEqual([20, 24]); // 'ghp_' at [20, 24)
  });
});

describe('known prefixes (layer 1 alone)', () => {
  it('redacts a known prefix with a long random body that no pattern matches', () => {
    const odd = `ghp_${rnd(20)}`; // shorter than a real classic token, so the pattern does not match
    const findings = findSecrets(`echo ${odd}`);
    expect(findings).toEqual([{ rule: 'known-prefix:ghp_', layer: 'keyword', start: 5, end: 5 + odd.length }]);
  });

  it('leaves a prefix followed by words, or glued to a word, alone', () => {
    expect(findSecrets('fw_rules_for_the_production_server')).toEqual([]);
    expect(findSecrets(`xghp_${rnd(20)}`).filter((f) => f.layer === 'keyword')).toEqual([]);
  });
});

describe('the index cache', () => {
  const dirs: string[] = [];
  afterEach(() => {
    setKeywordCacheDir(undefined);
    resetKeywordIndex();
    while (dirs.length > 0) rmSync(dirs.pop()!, { recursive: true, force: true });
  });
  const tempDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'hookwise-kw-'));
    dirs.push(dir);
    return dir;
  };

  it('builds and writes the index once, then loads it (same scans)', () => {
    const dir = tempDir();
    setKeywordCacheDir(dir);
    resetKeywordIndex();
    const text = 'export GITHUB_TOKEN=x; curl https://u:p@h/; git log'; // hookwise:allow
    expect(keywordIndex().origin).toBe('built');
    const built = scanKeywords(text);
    expect(existsSync(join(dir, 'sanitize-keywords.bin'))).toBe(true);
    resetKeywordIndex();
    expect(keywordIndex().origin).toBe('cache');
    expect(scanKeywords(text)).toEqual(built);
  });

  it('rebuilds when the file is corrupt or was built from other keywords', () => {
    const dir = tempDir();
    const file = join(dir, 'sanitize-keywords.bin');
    setKeywordCacheDir(dir);
    resetKeywordIndex();
    keywordIndex();
    const good = readFileSync(file);

    writeFileSync(file, good.subarray(0, 100));
    resetKeywordIndex();
    expect(keywordIndex().origin).toBe('built');

    // One flipped bit anywhere — signature, flags, automaton — in either copy: never used.
    const payload = (good.length - 8) / 2;
    for (const at of [8 + 40, 8 + Math.floor(payload / 2), 8 + payload - 3, 8 + payload + 100, good.length - 1]) {
      const damaged = Buffer.from(good);
      damaged[at]! ^= 0x01;
      writeFileSync(file, damaged);
      resetKeywordIndex();
      expect(keywordIndex().origin, `bit flipped at ${at}`).toBe('built');
      expect(readFileSync(file).equals(good)).toBe(true); // rewritten whole
    }

    // A cache others may write is not trusted either (it decides what the sanitizer finds).
    chmodSync(file, 0o666);
    resetKeywordIndex();
    expect(keywordIndex().origin).toBe('built');
  });

  it('the signature covers every pattern keyword', () => {
    const sig = keywordSignature();
    for (const p of PATTERNS) for (const k of p.keywords) expect(sig).toContain(k);
  });

  it('works without a writable cache directory (builds in memory)', () => {
    setKeywordCacheDir(join(tempDir(), 'file-not-dir'));
    writeFileSync(join(dirs[0]!, 'file-not-dir'), 'x');
    resetKeywordIndex();
    expect(keywordIndex().origin).toBe('built');
    expect(findSecrets(`token: ${rnd(20)}`).length).toBe(1);
  });
});

describe('the prefix layer under a text of nothing but prefixes', () => {
  it('stops measuring past its work budget and redacts what it did not measure (fail closed)', () => {
    // ghp_ghp_…: each prefix would measure a 4096-char body; without a bound this was quadratic (27 s a MB).
    const text = 'ghp_'.repeat(64 * 1024);
    const findings = findSecrets(text);
    expect(findings.some((f) => f.rule === 'known-prefix>over-budget')).toBe(true);
    // Measured prefixes (low entropy: not secrets) come first; from the first unmeasured one on, all is redacted.
    const from = findings.find((f) => f.rule === 'known-prefix>over-budget')!.start;
    const covered = new Array<boolean>(text.length).fill(false);
    for (const f of findings) for (let i = f.start; i < f.end; i++) covered[i] = true;
    const gap = covered.indexOf(false, from);
    expect(gap === -1 || gap > text.length - 20, `uncovered at ${gap}`).toBe(true); // at most a last body too short to judge
  });

  it('ordinary text with a few prefixes is measured as before', () => {
    expect(findSecrets('see ghp_ in the docs, and ghp_aaaaaaaaaaaaaaaaaaaa').map((f) => f.rule)).not.toContain(
      'known-prefix>over-budget',
    );
  });
});
