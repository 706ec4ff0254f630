import { describe, expect, it } from 'vitest';
import { compileCatalog } from '../../src/catalog/compile.js';
import { matchSegment } from '../../src/catalog/match.js';
import { memoryCatalog } from '../../src/catalog/table.js';
import { seg } from '../support/segments.js';

describe('matchSegment: accounting word by word', () => {
  it('says which entry and option accounted for each word', () => {
    const m = matchSegment(seg('wc -l --total=only src/a.ts'));
    expect(m.knowledge).toBe('allow');
    expect(m.entry).toBe('wc.yml');
    expect(m.words.map((w) => [w.word, w.as])).toEqual([
      ['wc', 'wc (wc.yml)'],
      ['-l', '-l of wc'],
      ['--total=only', '--total=value (enum) of wc'],
      ['src/a.ts', 'operand of wc (path-read)'],
    ]);
    expect(m.paths).toEqual([{ index: 3, path: 'src/a.ts', kind: 'path-read', via: 'operand of wc (path-read)' }]);
    expect(m.rule).toBe('read-file');
  });

  it('names the first word nothing accounts for, and why', () => {
    const m = matchSegment(seg('wc -l --files0-from=list a'));
    expect(m.knowledge).toBe('decline');
    expect(m.unaccounted).toEqual({
      index: 2,
      word: '--files0-from=list',
      why: '`--files0-from` of wc: not in the catalogue',
    });
    expect(m.reason).toContain('so the effect of `wc` is unknown');
  });

  it('an unknown program is not in the catalogue', () => {
    const m = matchSegment(seg('frobnicate --all'));
    expect(m.entry).toBeUndefined();
    expect(m.unaccounted?.why).toBe('`frobnicate`: not in the catalogue');
  });

  it('short clusters, joined values and values in the next word', () => {
    expect(matchSegment(seg('head -n5 f')).knowledge).toBe('allow');
    expect(matchSegment(seg('head -qn 5 f')).knowledge).toBe('allow');
    expect(matchSegment(seg('head -qz -n 5 f')).knowledge).toBe('allow');
    expect(matchSegment(seg('head -qn')).unaccounted?.why).toBe('`-n` of head needs a value');
  });

  it('after `--`, every word is an operand', () => {
    const m = matchSegment(seg('cat -- -n'));
    expect(m.knowledge).toBe('allow');
    expect(m.paths.map((p) => p.path)).toEqual(['-n']);
  });

  it('a value of the wrong kind is not accounted for', () => {
    expect(matchSegment(seg('head -n lots f')).unaccounted?.why).toBe('value of -n (number): `lots` is not a number');
    expect(matchSegment(seg('ls --sort=chaos')).unaccounted?.why).toMatch(/`chaos` is not one of none, size/);
  });

  it('a write the program names is a path for the path policy, and the reason says it writes', () => {
    const m = matchSegment(seg('sort -o out.txt data.txt'));
    expect(m.knowledge).toBe('allow');
    expect(m.rule).toBe('write-named');
    expect(m.paths.map((p) => [p.kind, p.path])).toEqual([
      ['path-write', 'out.txt'],
      ['path-read', 'data.txt'],
    ]);
    expect(m.reason).toMatch(/^writes out\.txt and reads data\.txt/);
  });

  it('code or a program given as a value is accounted for but never allowed on knowledge', () => {
    const m = matchSegment(seg('vitest run --config ./x.config.ts'));
    expect(m.unaccounted).toBeUndefined();
    expect(m.knowledge).toBe('decline');
    expect(m.reason).toMatch(/runs a program or code it is given/);
  });

  it('an option can change the form: tsc emits, tsc --noEmit only reads', () => {
    expect(matchSegment(seg('tsc')).rule).toBe('build');
    expect(matchSegment(seg('tsc --noEmit')).rule).toBe('lint');
  });

  const writes = (command: string): string[] =>
    matchSegment(seg(command))
      .paths.filter((p) => p.kind === 'path-write')
      .map((p) => p.path);

  it('a source operand writes its outputs beside it, or into --outDir, and nothing with --noEmit', () => {
    expect(writes('tsc src/a.ts')).toEqual(['src/a.js', 'src/a.d.ts', 'src/a.js.map', 'src/a.d.ts.map']);
    expect(writes('tsc lib/b.mts')).toEqual(['lib/b.mjs', 'lib/b.d.mts', 'lib/b.mjs.map', 'lib/b.d.mts.map']);
    expect(writes('tsc types/x.d.ts')).toEqual([]);
    expect(writes('tsc --outDir dist src/a.ts')).toEqual(['dist']);
    expect(writes('tsc --noEmit src/a.ts')).toEqual([]);
    expect(matchSegment(seg('tsc src/a.js')).unaccounted?.why).toMatch(/not a source tsc compiles/);
  });

  it('an option that rewrites the file operands makes each a write (sed -i, prettier --write)', () => {
    expect(writes("sed -i 's/a/b/' src/a.ts src/b.ts")).toEqual(['src/a.ts', 'src/b.ts']);
    expect(writes("sed 's/a/b/' src/a.ts")).toEqual([]);
    expect(writes('prettier --write src docs/x.md')).toEqual(['src', 'docs/x.md']);
    expect(writes('prettier --check src')).toEqual([]);
    // a form that writes its operands unless an option makes it a check
    expect(writes('black src')).toEqual(['src']);
    expect(writes('black --check src')).toEqual([]);
  });

  it('an option standing for the first operand shifts the operands, wherever it comes (sed -e, GNU order)', () => {
    const reads = (command: string): string[] => matchSegment(seg(command)).paths.map((p) => p.path);
    expect(reads("sed 's/a/b/' a.txt")).toEqual(['a.txt']);
    expect(reads('sed -e p a.txt b.txt')).toEqual(['a.txt', 'b.txt']);
    expect(reads('sed a.txt -e p')).toEqual(['a.txt']);
    expect(matchSegment(seg("sed a.txt -e 'w /tmp/x'")).knowledge).toBe('decline');
  });

  it('a pattern given by -e / -f / --regexp leaves every operand a file read (grep, rg, ugrep, zgrep, git grep)', () => {
    const reads = (command: string): string[] =>
      matchSegment(seg(command))
        .paths.filter((p) => p.kind === 'path-read')
        .map((p) => p.path);
    expect(reads('grep x notes.txt')).toEqual(['notes.txt']);
    expect(reads('grep -e x id_rsa')).toEqual(['id_rsa']);
    expect(reads('grep -e x -e y id_rsa notes.txt')).toEqual(['id_rsa', 'notes.txt']);
    expect(reads('grep --regexp=x id_rsa')).toEqual(['id_rsa']);
    expect(reads('grep -f pats.txt id_rsa')).toEqual(['pats.txt', 'id_rsa']);
    expect(reads('grep -ie x id_rsa')).toEqual(['id_rsa']);
    expect(reads('grep id_rsa -e x')).toEqual(['id_rsa']);
    expect(reads('egrep -e x id_rsa')).toEqual(['id_rsa']);
    expect(reads('rg -e x id_rsa')).toEqual(['id_rsa']);
    expect(reads('rg --file=pats.txt id_rsa')).toEqual(['pats.txt', 'id_rsa']);
    expect(reads('ugrep -e x id_rsa')).toEqual(['id_rsa']);
    expect(reads('zgrep -e x id_rsa.gz')).toEqual(['id_rsa.gz']);
    expect(reads('git grep -e x -- id_rsa')).toEqual(['id_rsa']);
    expect(reads('git grep -f pats.txt id_rsa')).toEqual(['pats.txt', 'id_rsa']);
    expect(reads('git grep TODO -- src')).toEqual(['src']);
  });

  it('an option only together with another: pip install --dry-run needs --only-binary', () => {
    const alone = matchSegment(seg('pip install --dry-run requests'));
    expect(alone.unaccounted?.why).toBe('`--dry-run` of pip install: only together with --only-binary');
    expect(matchSegment(seg('pip install --dry-run --only-binary=:all: requests')).rule).toBe('dry-run');
    expect(writes('pip install --dry-run --only-binary=:all: --report r.json requests')).toEqual(['r.json']);
  });

  it('an option that names a form gives its operands, wherever it comes (git add -n takes the whole tree)', () => {
    expect(matchSegment(seg('git add .')).unaccounted?.why).toContain('pathspec-named');
    for (const command of ['git add -n .', 'git add . -n', 'git add src . --dry-run']) {
      const dry = matchSegment(seg(command));
      expect(dry.knowledge, command).toBe('allow');
      expect(dry.rule, command).toBe('dry-run');
      expect(dry.effects, command).toEqual(['reads']);
    }
    // Without the option the first operand the node's own kinds refuse is the answer, whatever follows it.
    expect(matchSegment(seg('git add . src -v')).unaccounted).toMatchObject({ word: '.' });
  });

  it('a dry run prevails over the other options that name the form, in either order', () => {
    for (const command of ['git rm -n --cached a.txt', 'git rm --cached -n a.txt']) {
      const dry = matchSegment(seg(command));
      expect(dry.rule, command).toBe('dry-run');
      expect(dry.effects, command).toEqual(['reads']);
    }
    expect(matchSegment(seg('git rm --cached a.txt')).rule).toBe('git-local');
  });

  it('an option whose value names the form (python -m): only the listed modules, never a file of that name', () => {
    expect(matchSegment(seg('python -m unittest -v')).form).toBe('python -m unittest');
    expect(matchSegment(seg('python -m http.server')).unaccounted?.why).toBe(
      '`-m http.server` of python: not in the catalogue',
    );
    expect(matchSegment(seg('python unittest')).knowledge).toBe('decline');
    expect(writes('python3 -m venv .venv')).toEqual(['.venv']);
  });

  it('words appended at run time (xargs, find -exec) are unknown', () => {
    const m = matchSegment(seg('cat', { context: 'xargs', flags: { appendsArgs: true } }));
    expect(m.unaccounted?.why).toMatch(/gets more words when it runs/);
  });

  describe('after a `cd` hookwise cannot follow (flags.cwdUnknown)', () => {
    const lost = { flags: { cwdUnknown: true } };
    it.each([
      ['cat credentials', 'credentials'],
      ['head -n 5 hosts.yml', 'hosts.yml'],
      ['grep -r key .', '.'],
      ['tar -tf x.tar', 'x.tar'],
      ['jq . config.json', 'config.json'],
      ['sed -n 1p config', 'config'],
      ['cat /etc/hosts config', 'config'],
    ])('%s: a relative file is in a directory nobody knows', (command, word) => {
      const m = matchSegment(seg(command, lost));
      expect(m.knowledge).toBe('decline');
      expect(m.unaccounted?.word).toBe(word);
      expect(m.unaccounted?.why).toBe(
        `\`${word}\` is relative to a working directory only known when the command runs (after a \`cd\` hookwise cannot follow)`,
      );
      // The paths still go to the path policy (and to the write targets, for a write).
      expect(m.paths.map((p) => p.path)).toContain(word);
    });

    it.each(['ls', 'ls -la', 'grep -rn token', 'git status'])(
      '%s: a reading program that names no file reads its working directory',
      (command) => {
        const m = matchSegment(seg(command, lost));
        expect(m.knowledge).toBe('decline');
        expect(m.unaccounted?.index).toBe(0);
        expect(m.unaccounted?.why).toMatch(/names no file, so it reads its working directory, only known when/);
      },
    );

    it.each([
      ['pwd', {}],
      ['echo hi', {}],
      ['cat /etc/os-release', {}],
      ['head -n 5 ~/notes.txt', {}],
      ['grep x', { operator: '|' as const }],
      ['wc -l', { redirects: [{ op: '<' as const, target: '/tmp/f', dynamic: false }] }],
      ['cat', { stdin: 'data' }],
    ])('%s: reads no file of that directory (absolute, ~, or fed by a pipe or redirection)', (command, more) => {
      expect(matchSegment(seg(command, { ...lost, ...more })).knowledge).toBe('allow');
    });

    it('with the directory known, the same words are known', () => {
      expect(matchSegment(seg('cat credentials')).knowledge).toBe('allow');
      expect(matchSegment(seg('ls -la', { cwd: 'src' })).knowledge).toBe('allow');
    });
  });

  it('a word only known at run time is unknown, except where the entry says no option of the program can harm', () => {
    expect(matchSegment(seg('cat "$F"')).knowledge).toBe('decline');
    expect(matchSegment(seg('echo "$HOME"')).knowledge).toBe('allow');
  });

  it('argv words never reach the prototype: `constructor` and `__proto__` are unknown words', () => {
    expect(matchSegment(seg('constructor')).unaccounted?.why).toBe('`constructor`: not in the catalogue');
    expect(matchSegment(seg('wc --constructor')).unaccounted).toBeDefined();
    expect(matchSegment(seg('git __proto__')).knowledge).toBe('decline');
  });
});

describe('matchSegment: value kinds that need more than a shape', () => {
  it('a URL of this machine uses no network; any other URL does (known, not allowed on knowledge)', () => {
    const local = matchSegment(seg('curl -s http://127.0.0.1:8080/health'));
    expect(local.knowledge).toBe('allow');
    expect(local.effects).toEqual(['none']);
    expect(local.rule).toBe('local-fetch');
    const remote = matchSegment(seg('curl -s http://localhost.x.example/'));
    expect(remote.unaccounted).toBeUndefined();
    expect(remote.effects).toContain('network');
    expect(remote.knowledge).toBe('decline');
  });

  it('a value the program loads from a file (file://, fileb://, @) is a read of that file', () => {
    const m = matchSegment(seg('aws sts get-caller-identity --cli-input-yaml file://.npmrc'));
    expect(m.paths).toEqual([
      expect.objectContaining({
        path: '.npmrc',
        kind: 'path-read',
        via: expect.stringContaining('loaded from a file'),
      }),
    ]);
    expect(matchSegment(seg('az group show -n @secrets/name.txt')).paths.map((p) => p.path)).toEqual([
      'secrets/name.txt',
    ]);
    // Only where the entry says the program loads values from files: `-d @x` of curl is not annotated at all.
    expect(matchSegment(seg('kubectl logs @x')).paths).toEqual([]);
  });

  it('a path operand may have to be on this machine (rsync host:path runs ssh)', () => {
    expect(matchSegment(seg('rsync -n a/ b/')).knowledge).toBe('allow');
    expect(matchSegment(seg('rsync -n a/ host:b/')).unaccounted?.why).toContain('local-path');
    expect(matchSegment(seg('rsync -n a/ user@host:/b/')).unaccounted?.why).toContain('local-path');
  });

  it('an option can make the form a dry run: its form-effect replaces the effect of the change', () => {
    expect(matchSegment(seg('kubectl delete pod web')).unaccounted?.why).toContain('not annotated');
    const dry = matchSegment(seg('kubectl delete pod web --dry-run=client'));
    expect(dry.knowledge).toBe('allow');
    expect(dry.rule).toBe('dry-run');
    expect(matchSegment(seg('kubectl delete pod web --dry-run=none')).unaccounted?.why).toContain('is not one of');
  });

  it('a subcommand pattern (describe-*) stands for every subcommand with that prefix, after exact names', () => {
    expect(matchSegment(seg('aws rds describe-db-instances')).form).toBe('aws rds describe-db-instances');
    expect(matchSegment(seg('aws rds describe-db-instances')).knowledge).toBe('allow');
    expect(matchSegment(seg('aws rds delete-db-instance')).unaccounted?.why).toContain('not a subcommand');
    expect(matchSegment(seg("aws rds 'describe-*'")).unaccounted).toBeDefined();
    expect(matchSegment(seg('aws rds describe-')).unaccounted).toBeDefined();
  });

  it("a program's own version or help option alone only prints, whatever its entry (from the grammar table)", () => {
    const m = matchSegment(seg('node -v'));
    expect(m.knowledge).toBe('allow');
    expect(m.rule).toBe('version');
    expect(m.words.map((w) => w.as)).toEqual(['node (grammar table)', '-v of node: its version or help option']);
    expect(matchSegment(seg('tsc --version')).rule).toBe('version');
    expect(matchSegment(seg('node -v x.js')).knowledge).toBe('decline');
    expect(matchSegment(seg('node "$V"')).knowledge).toBe('decline');
    expect(matchSegment(seg('frobnicate --version')).knowledge).toBe('decline');
  });

  it('a cloud query vouches for asking its own service, never for writes or programs', () => {
    expect(matchSegment(seg('kubectl get pods')).knowledge).toBe('allow');
    expect(matchSegment(seg('kubectl get pods')).effects).toEqual(['network']);
    expect(matchSegment(seg('curl https://x.example/')).knowledge).toBe('decline');
  });
});

describe('matchSegment over an imported grammar (the second source)', () => {
  const grammar = {
    names: ['tool'],
    options: [
      { names: ['-v', '--verbose'], takesValue: false },
      { names: ['--plugin'], takesValue: true },
    ],
    subcommands: [{ names: ['show'], options: [], subcommands: [], args: [{ variadic: true }] }],
    args: [],
  };

  it('grammar without our annotation is a known form of unknown effect', () => {
    const { table, problems } = compileCatalog([], [{ node: grammar, ref: 'fig-test.json' }]);
    expect(problems).toEqual([]);
    const m = matchSegment(seg('tool -v show x'), memoryCatalog(table));
    expect(m.entry).toBe('fig-test.json');
    expect(m.unaccounted?.why).toBe('`-v` of tool: known to the grammar, its effect is not annotated');
  });

  it('an entry that says `grammar: fig` annotates only what it vouches for', () => {
    const entry = {
      program: 'tool',
      grammar: 'fig',
      options: { '-v': 'flag' },
      commands: { show: { effect: 'none', args: ['text...'] } },
    };
    const { table, problems } = compileCatalog([{ file: 'tool.yml', data: entry }], [{ node: grammar, ref: 'fig' }]);
    expect(problems).toEqual([]);
    expect(matchSegment(seg('tool --verbose show x'), memoryCatalog(table)).knowledge).toBe('allow');
    expect(matchSegment(seg('tool --plugin p show x'), memoryCatalog(table)).unaccounted?.why).toBe(
      '`--plugin` of tool: known to the grammar, its effect is not annotated',
    );
  });
});

describe('an entry line that groups flags over an imported grammar', () => {
  it('takes over each option it names, aliases included; options it does not name stay unannotated', () => {
    const grammar = {
      names: ['counter'],
      options: [
        { names: ['-c', '--bytes'], takesValue: false },
        { names: ['-m', '--chars', '--characters'], takesValue: false },
        { names: ['--files0-from'], takesValue: true },
      ],
      subcommands: [],
      args: [{ variadic: true }],
    };
    const entry = {
      program: 'counter',
      grammar: 'fig',
      effect: 'reads',
      options: { '-c --bytes -m --chars': 'flag' },
      args: ['path-read...'],
    };
    const { table } = compileCatalog([{ file: 'counter.yml', data: entry }], [{ node: grammar, ref: 'fig' }]);
    expect(matchSegment(seg('counter -cm --chars f'), memoryCatalog(table)).knowledge).toBe('allow');
    expect(matchSegment(seg('counter --characters f'), memoryCatalog(table)).knowledge).toBe('allow');
    expect(matchSegment(seg('counter --files0-from=x'), memoryCatalog(table)).unaccounted?.why).toBe(
      '`--files0-from` of counter: known to the grammar, its effect is not annotated',
    );
  });
});

describe('a single-dash word of several letters: one option or a cluster, as the entry says', () => {
  // A Fig-like grammar that spells the cluster -a -m as an option of its own, as Fig's git commit does.
  const grammar = (name: string) => ({
    names: [name],
    options: [
      { names: ['-a', '--all'], takesValue: false },
      { names: ['-m', '--message'], takesValue: true },
      { names: ['-am'], takesValue: true },
      { names: ['-q'], takesValue: false },
    ],
    subcommands: [],
    args: [],
  });
  const catalog = (extra: Record<string, unknown>, options: Record<string, unknown> = {}) => {
    const entry = {
      program: 'tool',
      grammar: 'fig',
      effect: 'none',
      options: { '-a --all -q': 'flag', '-m --message': 'text', ...options },
      ...extra,
    };
    const { table, problems } = compileCatalog(
      [{ file: 'tool.yml', data: entry }],
      [{ node: grammar('tool'), ref: 'fig' }],
    );
    expect(problems).toEqual([]);
    return memoryCatalog(table);
  };
  const why = (command: string, c: ReturnType<typeof catalog>) => matchSegment(seg(command), c).unaccounted?.why;

  it('undeclared, a word both readings fit is unknown, even when the entry annotates the spelling', () => {
    expect(why('tool -am wip', catalog({}))).toBe(
      '`-am` of tool: the option `-am` or the options -a -m? The catalogue does not say how tool reads it',
    );
    expect(why('tool -am wip', catalog({}, { '-am': 'text' }))).toMatch(/the option `-am` or the options -a -m/);
    // a cluster no option is spelled as: still not surely a cluster, since the program spells some so
    expect(why('tool -qa', catalog({}))).toMatch(/not in the catalogue \(it has options of several letters/);
  });

  it('short-words: clusters (getopt) reads every such word as one-letter options, never the spelling', () => {
    const c = catalog({ 'short-words': 'clusters' });
    expect(matchSegment(seg('tool -am wip'), c).knowledge).toBe('allow');
    expect(matchSegment(seg('tool -am wip'), c).words.map((w) => w.as)).toEqual([
      'tool (tool.yml)',
      'value of -m (text)',
      '-am of tool',
    ]);
    expect(matchSegment(seg('tool -qam wip'), c).knowledge).toBe('allow');
  });

  it('short-words: listed-first (Commons CLI) takes the spelling the grammar lists, else the cluster', () => {
    const c = catalog({ 'short-words': 'listed-first' }, { '-am': 'flag' });
    expect(matchSegment(seg('tool -am'), c).knowledge).toBe('allow');
    expect(matchSegment(seg('tool -qa'), c).knowledge).toBe('allow');
  });

  it('a cluster in a program that has options of several letters after one dash is unknown unless declared', () => {
    const entry = { program: 'hexer', effect: 'reads', options: { '-p -s -ps': 'flag', '-cols': 'number' } };
    const { table } = compileCatalog([{ file: 'hexer.yml', data: entry }], []);
    expect(matchSegment(seg('hexer -sp'), memoryCatalog(table)).unaccounted?.why).toBe(
      '`-sp` of hexer: not in the catalogue (it has options of several letters after one dash, such as `-ps`, so this is not surely -s -p)',
    );
    expect(matchSegment(seg('hexer -cols 8'), memoryCatalog(table)).knowledge).toBe('allow');
  });

  it('one letter again (-vv) is the same option either way; the entry keys are checked', () => {
    expect(matchSegment(seg('ps -ww')).knowledge).toBe('allow');
    const { problems } = compileCatalog(
      [{ file: 'bad.yml', data: { program: 'bad', effect: 'none', 'short-words': 'sometimes' } }],
      [],
    );
    expect(problems.map((p) => p.at)).toEqual(['entry.short-words']);
  });

  it('the real entries: git clusters, Commons CLI and zip try their spellings first', () => {
    expect(matchSegment(seg('git commit -am wip')).knowledge).toBe('allow');
    expect(matchSegment(seg('git commit -qam wip')).knowledge).toBe('allow');
    expect(matchSegment(seg('mvn -ntp -q test')).unaccounted).toBeUndefined();
    expect(matchSegment(seg('zip -sf a.zip')).knowledge).toBe('allow');
    expect(matchSegment(seg('wget -nv http://localhost:8080/x')).unaccounted).toBeUndefined();
    expect(matchSegment(seg('wget -nc http://localhost:8080/x')).unaccounted?.why).toBe(
      '`-n` of wget: not in the catalogue',
    );
  });
});
