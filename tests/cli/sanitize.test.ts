/**
 * `hookwise sanitize` (plain, --json, --jsonl, --eval), `hookwise scan` (paths, exit codes, masking, binary and
 * node_modules skipping, --staged in a real temp git repo) and the pre-commit hook (idempotent, chaining).
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { builtinCorpus } from '../../bench/eval-secrets.js';
import { evaluateCorpus, renderScan, sanitizeText, scanPaths, scanStaged } from '../../src/cli/sanitize.js';
import { CHAINED_HOOK, HOOK_MARKER, installPreCommitHook } from '../../src/cli/precommit.js';
import { rnd } from '../sanitize/fakes.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) rmSync(dirs.pop()!, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'hookwise-scan-')));
  dirs.push(dir);
  return dir;
}
function write(dir: string, path: string, content: string | Buffer): void {
  mkdirSync(join(dir, path, '..'), { recursive: true });
  writeFileSync(join(dir, path), content);
}
function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@e',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@e',
    },
  });
  if (r.status !== 0 && args[0] !== 'commit') throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return `${r.stdout}${r.stderr}`;
}

const gh = `ghp_${rnd(36)}`;
const secretValue = rnd(24);

describe('hookwise sanitize', () => {
  it('stdin → stdout with values redacted, byte for byte otherwise', () => {
    const r = sanitizeText(`export TOKEN=${secretValue}\nls -la\n`, {});
    expect(r).toEqual({ stdout: 'export TOKEN=<REDACTED>\nls -la\n', stderr: '', exitCode: 0 });
  });

  it('--json lists findings with rule, layer and span, never the value', () => {
    const r = sanitizeText(`echo ${gh}`, { json: true });
    const out = JSON.parse(r.stdout) as {
      sanitized: string;
      findings: { rule: string; layer: string; start: number; end: number }[];
    };
    expect(out).toEqual({
      sanitized: 'echo <REDACTED>',
      findings: [{ rule: 'github-token', layer: 'pattern', start: 5, end: 5 + gh.length }],
    });
    expect(r.stdout).not.toContain(gh);
  });

  it('keeps AWS\'s documented example keys on purpose and says so: a note on stderr, "kept" in --json and --jsonl', () => {
    const exampleId = ['AKIA', 'IOSFODNN7', 'EXAMPLE'].join('');
    const exampleSecret = ['wJalrXUtnFEMI', 'K7MDENG', 'bPxRfiCYEXAMPLEKEY'].join('/');
    const text = `aws_access_key_id = ${exampleId}\naws_secret_access_key = ${exampleSecret}\nagain ${exampleId}\n`;
    const plain = sanitizeText(text, {});
    expect(plain.stdout).toBe(text);
    expect(plain.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^hookwise sanitize: kept ${exampleId} \\(2 times\\) on purpose: AWS's documented example access key id, published at https://docs\\.aws\\.amazon\\.com/`,
        ),
      ),
      expect.stringMatching(new RegExp(`kept ${exampleSecret} on purpose: AWS's documented example secret access key`)),
    ]);
    const json = JSON.parse(sanitizeText(`key ${exampleId}`, { json: true }).stdout) as { kept: unknown[] };
    expect(json.kept).toEqual([{ value: exampleId, start: 4, end: 24, why: expect.stringContaining('never issued') }]);
    const line = JSON.parse(sanitizeText(`${JSON.stringify(exampleId)}\n`, { jsonl: true }).stdout) as {
      kept: unknown[];
    };
    expect(line.kept).toHaveLength(1);
    // Part of a longer token it is no example: nothing is noted as kept.
    expect(sanitizeText(`x${exampleId}9`, {}).stderr).toBe('');
  });

  it('--jsonl: one JSON string per line in, one object per line out; a bad line becomes an error object without its content', () => {
    const r = sanitizeText(`${JSON.stringify(`curl -u admin:${secretValue} x`)}\n"plain"\nnot json ${gh}\n`, {
      jsonl: true,
    });
    const lines = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ sanitized: 'curl -u admin:<REDACTED> x' });
    expect(lines[1]).toEqual({ sanitized: 'plain', findings: [] });
    expect(lines[2]).toEqual({ error: 'line 3: expected one JSON string per line' });
    expect(r.stdout + r.stderr).not.toContain(gh);
    expect(r.exitCode).toBe(1);
  });

  it('--eval reports recall and false positives on a corpus, and says clearly when the corpus is absent', () => {
    const dir = tempDir();
    const corpus = join(dir, 'c.jsonl');
    const rows = [
      { text: `token = ${gh}`, label: 'secret', rule: 'r1', file: 'ng.a' },
      { text: 'nothing to see here', label: 'clean', rule: 'r1', file: 'ok.a' },
      { text: `key ${rnd(40)} here`, label: 'clean', rule: 'r2', file: 'ok.b' },
    ];
    writeFileSync(corpus, rows.map((r) => JSON.stringify(r)).join('\n'));
    const r = evaluateCorpus(corpus, false);
    expect(r.stdout).toMatch(/recall \(secret rows, value gone from the output\): 1\/1 = 100\.0%/);
    expect(r.stdout).toMatch(/false positives \(clean rows with any redaction\): 1\/2 = 50\.0%/);
    expect(r.stdout).not.toContain(gh);
    const missing = evaluateCorpus(join(dir, 'absent.jsonl'), false);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/corpus not found/);
  });

  it('--eval without a corpus evaluates the built-in one (never a development path)', () => {
    const r = evaluateCorpus(undefined, false);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^secrets corpus: built-in corpus/m);
    expect(r.stdout + r.stderr).not.toMatch(/shared/);
  });

  it("--eval builtin runs hookwise's own generated corpus: totals, a per-kind table, and no listed secret in the output", () => {
    const r = evaluateCorpus('builtin', true);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^secrets corpus: built-in corpus \(bench\/corpora\/secrets\.ts, seed \d+\)$/m);
    expect(r.stdout).toMatch(/^recall \(secret rows, value gone from the output\): \d+\/\d{3} = [\d.]+%$/m);
    expect(r.stdout).toMatch(/^false positives \(clean rows with any redaction\): \d+\/\d{3} = [\d.]+%$/m);
    expect(r.stdout).toMatch(/^per kind, worst first \(\d+ kinds\):$/m);
    expect(r.stdout).toMatch(/^ {2}secret github-pat +\d+ +\d+ +[\d.]+%$/m);
    const listed = builtinCorpus().flatMap((row) => row.secrets ?? []);
    expect(listed.filter((secret) => secret.length >= 8 && r.stdout.includes(secret))).toEqual([]);
  });
});

describe('hookwise scan (paths)', () => {
  it('exits 1 with file:line:col: rule and a masked excerpt; 0 when clean', () => {
    const dir = tempDir();
    write(dir, 'src/config.ts', `export const a = 1;\nconst key = "${gh}";\n`);
    write(dir, 'README.md', '# nothing secret\n');
    const report = scanPaths([], { cwd: dir });
    const r = renderScan(report, false);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe(`src/config.ts:2:14: github-token (pattern): const key = "<REDACTED>";\n`);
    // A few bytes: the time is start-up, so no rate is printed (a "0.0 MB/s" would mislead).
    expect(r.stderr).toMatch(/2 file\(s\), 0 KiB in \d+ ms; 1 finding\(s\) in 1 file\(s\)/);
    expect(r.stderr).not.toMatch(/MB\/s/);
    expect(r.stdout + r.stderr).not.toContain(gh);
    expect(renderScan(scanPaths(['README.md'], { cwd: dir }), false).exitCode).toBe(0);
  });

  it('skips binary files, node_modules/ and .git/ (unless --all), and files over the size limit', () => {
    const dir = tempDir();
    write(dir, 'bin/blob.bin', Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from(gh)]));
    write(dir, 'node_modules/x/index.js', `k="${gh}"`);
    write(dir, '.git/config', `token = ${secretValue}`);
    write(dir, 'big.txt', `${'x'.repeat(2000)} ${gh}`);
    const report = scanPaths([], { cwd: dir, maxFileBytes: 1000 });
    expect(report.findings).toEqual([]);
    expect(report.skipped).toEqual({ binary: 1, large: 1, unreadable: 0 });
    expect(
      scanPaths([], { cwd: dir, all: true })
        .findings.map((f) => f.file)
        .sort(),
    ).toEqual(['.git/config', 'big.txt', 'node_modules/x/index.js']);
    expect(scanPaths(['node_modules/x'], { cwd: dir }).findings.length).toBe(1); // named explicitly: scanned
  });

  it('drops findings on lines marked hookwise:allow', () => {
    const dir = tempDir();
    write(dir, 'doc.md', `example: ${gh} <!-- hookwise:allow -->\nreal: ${gh}\n`);
    expect(scanPaths([], { cwd: dir }).findings.map((f) => f.line)).toEqual([2]);
  });

  it('reports a missing path as a problem (exit 2)', () => {
    const r = renderScan(scanPaths(['nope'], { cwd: tempDir() }), false);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/nope: /);
  });

  it('a scan of a megabyte or more prints its rate', () => {
    const r = renderScan(
      { ...scanPaths(['README.md'], { cwd: tempDir() }), files: 1, bytes: 4 * 1024 * 1024, ms: 2000 },
      false,
    );
    expect(r.stderr).toMatch(/4096 KiB in 2000 ms, 2\.0 MB\/s;/);
  });

  it('--json: the report with masked excerpts and throughput', () => {
    const dir = tempDir();
    write(dir, 'a.env', `API_KEY=${secretValue}\n`);
    const out = JSON.parse(renderScan(scanPaths([], { cwd: dir }), true).stdout) as {
      findings: { file: string; line: number; rule: string; excerpt: string }[];
      mbPerSecond: number;
    };
    expect(out.findings).toEqual([
      expect.objectContaining({ file: 'a.env', line: 1, rule: 'secret-env-var', excerpt: 'API_KEY=<REDACTED>' }),
    ]);
    expect(out.mbPerSecond).toBeGreaterThanOrEqual(0);
  });
});

describe('hookwise scan --staged', () => {
  it('scans the staged content (not the working tree), limited to the pathspecs', () => {
    const dir = tempDir();
    git(dir, 'init', '-q');
    write(dir, '.hookwise/decisions.jsonl', `{"cmd":"export TOKEN=${secretValue}"}\n`);
    write(dir, 'src/a.ts', `const k = "${gh}";\n`);
    git(dir, 'add', '.hookwise/decisions.jsonl', 'src/a.ts');
    write(dir, '.hookwise/decisions.jsonl', '{"cmd":"clean now"}\n'); // the working tree is clean, the index is not
    const staged = scanStaged(['.hookwise/'], { cwd: dir });
    expect(staged.findings.map((f) => [f.file, f.line, f.rule])).toEqual([
      ['.hookwise/decisions.jsonl', 1, 'secret-env-var'],
    ]);
    expect(scanPaths(['.hookwise/'], { cwd: dir }).findings).toEqual([]);
    expect(
      scanStaged([], { cwd: dir })
        .findings.map((f) => f.file)
        .sort(),
    ).toEqual(['.hookwise/decisions.jsonl', 'src/a.ts']);
  });

  it('works from a subdirectory and reports paths from the repository root', () => {
    const dir = tempDir();
    git(dir, 'init', '-q');
    write(dir, 'pkg/sub/x.yml', `password: ${secretValue}\n`);
    git(dir, 'add', '.');
    expect(scanStaged(['.'], { cwd: join(dir, 'pkg') }).findings.map((f) => f.file)).toEqual(['pkg/sub/x.yml']);
  });

  it('reports a directory that is not a git repository as a problem', () => {
    const report = scanStaged([], { cwd: tempDir() });
    expect(report.problems.join(' ')).toMatch(/git diff --cached failed/);
  });
});

describe('installPreCommitHook', () => {
  /** A stand-in for hookwise on PATH: records its arguments, fails when asked to. */
  function fakeHookwise(dir: string, exit: number): string {
    const bin = join(dir, 'fakebin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'hookwise'), `#!/bin/sh\necho "$@" >> "${join(dir, 'calls.log')}"\nexit ${exit}\n`, {
      mode: 0o755,
    });
    return bin;
  }

  it('installs once, and a second install is a no-op', () => {
    const dir = tempDir();
    git(dir, 'init', '-q');
    expect(installPreCommitHook(dir)).toMatch(/installed the hookwise pre-commit hook/);
    const hook = join(dir, '.git/hooks/pre-commit');
    const first = readFileSync(hook, 'utf8');
    expect(first).toContain(HOOK_MARKER);
    expect(first).toContain('scan --staged .hookwise/');
    expect(installPreCommitHook(dir)).toMatch(/already installed/);
    expect(readFileSync(hook, 'utf8')).toBe(first);
    expect(installPreCommitHook(dir, { command: '/opt/hookwise/bin/hookwise' })).toMatch(/updated/);
    expect(existsSync(join(dir, '.git/hooks', CHAINED_HOOK))).toBe(false);
  });

  it('chains an existing hook: it runs first and its failure still blocks the commit', () => {
    const dir = tempDir();
    git(dir, 'init', '-q');
    writeFileSync(join(dir, '.git/hooks/pre-commit'), `#!/bin/sh\necho lint >> "${join(dir, 'calls.log')}"\nexit 0\n`, {
      mode: 0o755,
    });
    expect(installPreCommitHook(dir)).toMatch(/previous hook now runs first/);
    expect(installPreCommitHook(dir)).toMatch(/already installed/); // idempotent: not chained twice
    const bin = fakeHookwise(dir, 1);
    write(dir, '.hookwise/x.jsonl', '{}\n');
    git(dir, 'add', '.');
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH}` };
    const commit = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qm', 'x'], {
      cwd: dir,
      env,
      encoding: 'utf8',
    });
    expect(commit.status).not.toBe(0); // the (fake) scan failed: the commit is blocked
    expect(readFileSync(join(dir, 'calls.log'), 'utf8')).toBe('lint\nscan --staged .hookwise/\n');
    chmodSync(join(dir, '.git/hooks', CHAINED_HOOK), 0o755);
    writeFileSync(join(dir, '.git/hooks', CHAINED_HOOK), '#!/bin/sh\nexit 3\n');
    const again = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qm', 'x'], {
      cwd: dir,
      env,
      encoding: 'utf8',
    });
    expect(again.status).not.toBe(0);
    expect(readFileSync(join(dir, 'calls.log'), 'utf8')).toBe('lint\nscan --staged .hookwise/\n'); // scan did not run after the chained hook failed
  });

  it('blocks the commit with a message when hookwise is not on PATH', () => {
    const dir = tempDir();
    git(dir, 'init', '-q');
    installPreCommitHook(dir);
    write(dir, 'a.txt', 'a\n');
    git(dir, 'add', '.');
    // A PATH of its own, with git and dirname only: a hookwise installed on this machine must not be found.
    const bin = tempDir();
    for (const tool of ['git', 'dirname']) {
      const found = spawnSync('/bin/sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
      symlinkSync(found, join(bin, tool));
    }
    const commit = spawnSync(join(bin, 'git'), ['-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qm', 'x'], {
      cwd: dir,
      env: { ...process.env, PATH: bin },
      encoding: 'utf8',
    });
    expect(commit.status).not.toBe(0);
    expect(commit.stderr).toMatch(/hookwise not found/);
  });

  it('refuses to overwrite when both a foreign hook and a chained one exist', () => {
    const dir = tempDir();
    git(dir, 'init', '-q');
    writeFileSync(join(dir, '.git/hooks/pre-commit'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    writeFileSync(join(dir, '.git/hooks', CHAINED_HOOK), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    expect(() => installPreCommitHook(dir)).toThrow(/will not overwrite either/);
  });

  it('honours core.hooksPath', () => {
    const dir = tempDir();
    git(dir, 'init', '-q');
    git(dir, 'config', 'core.hooksPath', '.githooks');
    installPreCommitHook(dir);
    expect(readFileSync(join(dir, '.githooks/pre-commit'), 'utf8')).toContain(HOOK_MARKER);
  });

  it('refuses a directory that is not a git repository', () => {
    expect(() => installPreCommitHook(tempDir())).toThrow(/not a git repository/);
  });
});

describe('hookwise scan and symbolic links', () => {
  it('follows a link named on the command line, but not links met while walking', () => {
    const dir = tempDir();
    write(dir, 'real/a.env', `API_KEY=${secretValue}\n`);
    symlinkSync(join(dir, 'real'), join(dir, 'linked'));
    expect(scanPaths(['linked'], { cwd: dir }).findings.map((f) => f.file)).toEqual(['linked/a.env']);
    expect(scanPaths([], { cwd: dir }).findings.map((f) => f.file)).toEqual(['real/a.env']);
  });
});
