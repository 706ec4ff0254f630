import { describe, expect, it } from 'vitest';
import { CommandTokenizer, featureTokens, MAX_TOKENS, PAD_ID, type CommandVocab } from '../../src/embed/featurize.js';

const tokens = (subject: string): string[] => featureTokens(subject).filter((t) => !t.startsWith('g:'));

describe('featureTokens', () => {
  it.each([
    ['git log --oneline -n 5', ['p:git', 's:git:log', 'w:log', 'f:git:--oneline', 'F:--oneline', 'f:git:-n', 'a:num']],
    ['rm -rf /tmp/build-output', ['p:rm', 'f:rm:-r', 'f:rm:-f', 'a:path-tmp']],
    [
      'tar -xzvf archive.tar.gz -C /opt',
      [
        'p:tar',
        'f:tar:-x',
        'f:tar:-z',
        'f:tar:-v',
        'f:tar:-f',
        'a:path-rel',
        'e:gz',
        'ec:archive',
        'f:tar:-C',
        'a:path-system',
      ],
    ],
    [
      "find . -name '*.ts' -delete",
      ['p:find', 'a:path-rel', 'f:find:-name', 'a:glob', 'e:ts', 'ec:code', 'f:find:-delete'],
    ],
    [
      'npm install --save-dev=true lodash',
      [
        'p:npm',
        's:npm:install',
        'w:install',
        'f:npm:--save-dev',
        'F:--save-dev',
        'oa:word',
        'ow:true',
        's:npm:install:lodash',
        'w:lodash',
      ],
    ],
    ['cat ~/.bashrc', ['p:cat', 'a:path-home', 'e:dotfile']],
    ['head -n5 notes.txt', ['p:head', 'f:head:-n', 'oa:num', 'a:path-rel', 'e:txt', 'ec:doc']],
  ])('%s → program, subcommand, split flags, argument kinds', (subject, expected) => {
    expect(tokens(subject)).toEqual(expected);
  });

  it('reads URLs with their scheme and host kind, pipes as operators, wrappers apart from the program', () => {
    expect(tokens('curl -fsSL https://example.com/install.sh | sudo sh')).toEqual([
      'p:curl',
      'f:curl:-f',
      'f:curl:-s',
      'f:curl:-S',
      'f:curl:-L',
      'a:url',
      'a:url:https',
      'a:host-name',
      'e:sh',
      'ec:script',
      'op:|',
      'wrap:sudo',
      'p:sh',
      'a:none',
    ]);
    expect(tokens('curl http://127.0.0.1:8080/health')).toContain('a:host-local');
    expect(tokens('https://docs.python.org/3/library/os.html')).toEqual([
      'url-subject',
      'a:url',
      'a:url:https',
      'a:host-name',
      'e:html',
      'ec:doc',
    ]);
  });

  // (memory/subject.ts writes a redirection as `<fd><op> <target>`)
  it('reads the subject form: quoted words, assignments, redirections, context markers, the written paths', () => {
    expect(tokens("FOO='a b' npm run build > out.log 2>& 1  # writes /home/dev/p/out.log")).toEqual([
      'env',
      'env:FOO',
      'va:string',
      'p:npm',
      's:npm:run',
      'w:run',
      's:npm:run:build',
      'w:build',
      'r:>',
      'ra:path-rel',
      're:log',
      'rec:log',
      'r:>&',
      'r:fd2',
      'r:dup',
      'writes',
      'wra:path-home',
      'wre:log',
      'wrec:log',
    ]);
    expect(tokens('[subshell] cd src && [shell-string] bash -c make all')).toEqual([
      'ctx:subshell',
      'p:cd',
      's:cd:src',
      'w:src',
      'op:&&',
      'ctx:shell-string',
      'wrap:shell-c',
      'p:make',
      's:make:all',
      'w:all',
    ]);
    expect(tokens("find . -delete ; [find-exec] find rm -f '{}'")).toEqual([
      'p:find',
      'a:path-rel',
      'f:find:-delete',
      'op:;',
      'ctx:find-exec',
      'wrap:find',
      'p:rm',
      'f:rm:-f',
      'a:string',
    ]);
    // an operator or `#` inside quotes is an argument, not structure
    expect(tokens("echo '|' '#' 'a && b'")).toEqual(['p:echo', 'a:string']);
  });

  it('reduces a secret to its redaction marker and JSON input to keys and value kinds', () => {
    expect(tokens("git commit -m 'fix: <REDACTED> thing'")).toEqual([
      'p:git',
      's:git:commit',
      'w:commit',
      'f:git:-m',
      'a:redacted',
    ]);
    expect(tokens('{"owner":"acme","issue_number":42,"url":"https://x.io"}')).toEqual([
      'json',
      'k:owner',
      'ja:string',
      'jw:acme',
      'k:issue_number',
      'ja:number',
      'k:url',
      'ja:url',
      'ja:url:https',
      'ja:host-name',
    ]);
  });

  it('adds hashed character n-grams of the program and subcommand (an unseen tool still has a spelling)', () => {
    const t = featureTokens('kubectl get pods');
    expect(t).toContain('g:<ku');
    expect(t).toContain('g:ctl>');
    expect(t).toContain('g:get>');
    expect(t).not.toContain('g:pods>');
  });

  it('is bounded: at most MAX_TOKENS tokens however long the text, and never empty', () => {
    const long = Array.from({ length: 2000 }, (_, i) => `cmd${i} --flag${i} file${i}.txt`).join(' && ');
    expect(featureTokens(long).length).toBe(MAX_TOKENS);
    expect(featureTokens('')).toEqual(['empty']);
    expect(featureTokens("'unterminated")).toEqual(expect.arrayContaining(['p:unterminated']));
  });
});

describe('CommandTokenizer', () => {
  const vocab: CommandVocab = {
    format: 'hookwise-command-vocab',
    version: 1,
    tokens: ['p:git', 's:git:log'],
    ngramBuckets: 8,
    oovBuckets: 4,
  };
  const tokenizer = new CommandTokenizer(vocab);

  it('maps known tokens to their ids, n-grams and unknown tokens to their hash buckets', () => {
    expect(tokenizer.rows).toBe(1 + 2 + 8 + 4);
    expect(tokenizer.id('p:git')).toBe(1);
    expect(tokenizer.id('s:git:log')).toBe(2);
    const gram = tokenizer.id('g:<gi');
    expect(gram).toBeGreaterThanOrEqual(3);
    expect(gram).toBeLessThan(11);
    const unseen = tokenizer.id('p:frobnicate');
    expect(unseen).toBeGreaterThanOrEqual(11);
    expect(unseen).toBeLessThan(15);
    expect(tokenizer.id('p:frobnicate')).toBe(unseen);
  });

  it('pads a batch with PAD_ID and masks the padding', () => {
    const { ids, mask, seq } = tokenizer.batch(['git log', 'git log --oneline -n 5']);
    const long = tokenizer.encode('git log --oneline -n 5');
    expect(seq).toBe(long.length);
    expect(Array.from(ids.slice(seq)).map(Number)).toEqual(long);
    const short = tokenizer.encode('git log');
    expect(Array.from(ids.slice(0, seq)).map(Number)).toEqual([
      ...short,
      ...Array<number>(seq - short.length).fill(PAD_ID),
    ]);
    expect(Array.from(mask.slice(0, seq)).map(Number)).toEqual([
      ...Array<number>(short.length).fill(1),
      ...Array<number>(seq - short.length).fill(0),
    ]);
  });
});
