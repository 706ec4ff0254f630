import { describe, expect, it } from 'vitest';
import { JaccardIndex } from '../../src/memory/jaccard.js';
import { sameShape } from '../../src/memory/similar.js';
import { intersectionSize, tokenize, TokenInterner } from '../../src/memory/tokens.js';
import { prng } from '../support/prng.js';

const ctx = { projectRoot: '/work/proj', home: '/home/dev' };

describe('tokens', () => {
  it('splits on whitespace and path/option punctuation, folds the project root and home, drops duplicates', () => {
    expect(tokenize('cp /work/proj/src/a.ts /home/dev/backup/a.ts --verbose=yes', ctx)).toEqual([
      'cp',
      'src',
      'a.ts',
      'backup',
      '--verbose=yes',
    ]);
    // `--privileged=false` and `sites:delete` stay whole: they must not look like `--privileged` or `sites`.
    expect(tokenize('netlify sites:delete --force=false', ctx)).toEqual(['netlify', 'sites:delete', '--force=false']);
    expect(tokenize('make x  # writes /work/proj/out', ctx)).toEqual(['make', 'x', 'out']);
    // Another project's root is not folded: it stays long, and looks less alike.
    expect(tokenize('rm /other/proj/x', ctx)).toEqual(['rm', 'other', 'proj', 'x']);
  });

  it('interns to dense IDs; a query counts tokens the index never saw without adding them', () => {
    const interner = new TokenInterner();
    expect([...interner.internAll(['b', 'a', 'b'])]).toEqual([0, 1]);
    expect(interner.query(['a', 'zzz', 'b', 'yyy'])).toEqual({ ids: Int32Array.from([0, 1]), unknown: 2 });
    expect(interner.size).toBe(2);
    expect(intersectionSize(Int32Array.from([1, 3, 5, 7]), Int32Array.from([0, 3, 4, 7, 9]))).toBe(2);
  });
});

describe('sameShape (the similarity guard on argument values)', () => {
  it('only plain argument values may differ, position by position', () => {
    expect(sameShape('pytest tests/a.py -x', 'pytest tests/b.py -x')).toBe(true);
    expect(sameShape('git tag v1.0.0', 'git tag -a v1.0.0')).toBe(false); // added option
    expect(sameShape('ufw reset --force', 'ufw --force reset')).toBe(false); // reordered
    expect(sameShape('git restore --staged file.txt', 'git restore --staged .')).toBe(false); // broad value
    expect(sameShape('rm -r build', 'rm -r *')).toBe(false);
    expect(sameShape('cat a.txt', 'cat $FILE')).toBe(false);
    expect(sameShape('make a && make b', 'make a ; make b')).toBe(false);
    expect(sameShape('docker run --privileged=false x', 'docker run --privileged=true x')).toBe(false);
    expect(sameShape('sort a.txt >> out.txt', 'sort a.txt > out.txt')).toBe(false); // append vs truncate
    expect(sameShape('make 2> err.log', 'make 2> build.log')).toBe(true);
    expect(sameShape('make 2> err.log', 'make 2> .git/err.log')).toBe(false); // a hidden directory
    expect(sameShape("curl -o a.json 'http://127.0.0.1:8080/a'", "curl -o a.json 'http://127.0.0.1:8080/b'")).toBe(
      true,
    );
    expect(sameShape('curl -o a.json http://127.0.0.1:8080/a', 'curl -o a.json http://127.0.0.2:8080/a')).toBe(false);
  });
});

describe('JaccardIndex', () => {
  it('matches agree with brute-force Jaccard over random token sets', () => {
    const random = prng(7);
    const vocabulary = Array.from({ length: 40 }, (_, i) => `t${i}`);
    const pick = (): string[] => [
      ...new Set(
        Array.from(
          { length: 1 + Math.floor(random() * 8) },
          () => vocabulary[Math.floor(random() * vocabulary.length)]!,
        ),
      ),
    ];
    const entries = Array.from({ length: 400 }, pick);
    const index = new JaccardIndex();
    for (const e of entries) index.add(e);
    for (let q = 0; q < 200; q++) {
      const query = [...pick(), ...(random() < 0.3 ? ['never-seen'] : [])];
      const expected = entries
        .map((e, entry) => {
          const shared = e.filter((t) => query.includes(t)).length;
          return { entry, score: shared / new Set([...e, ...query]).size };
        })
        .filter((m) => m.score >= 0.5)
        .sort((a, b) => b.score - a.score || a.entry - b.entry);
      const got = index.matches(query, 0.5);
      expect(got.map((m) => m.entry)).toEqual(expected.map((m) => m.entry));
      got.forEach((m, i) => expect(m.score).toBeCloseTo(expected[i]!.score, 12));
    }
  });

  it('an empty query or one made only of unseen tokens matches nothing', () => {
    const index = new JaccardIndex();
    index.add(['a', 'b', 'c']);
    expect(index.matches([], 0)).toEqual([]);
    expect(index.matches(['x', 'y'], 0)).toEqual([]);
    expect(index.matches(['a', 'b', 'c'], 0.7)).toEqual([{ entry: 0, score: 1 }]);
  });
});
