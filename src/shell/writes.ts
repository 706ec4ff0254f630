/**
 * Write targets: every path a command would create, modify or delete, from the parsed segments.
 *
 *   redirections      `> >> >| &> &>> >&file` (not /dev/null, /dev/stdout, /dev/stderr, /dev/tty, fd dups)
 *   copy/move/link    cp, mv (destination *and* sources: they disappear), install, ln (the link), rsync (not
 *                     with -n / --dry-run, which only lists), scp
 *   create/delete     rm, rmdir, mkdir, touch, truncate, shred, unlink, mkfifo, mknod, tee [-a], sponge
 *   metadata          chmod, chown, chgrp (the files, not the mode/owner operand)
 *   in place          sed -i, perl -i, patch, dd of=, sort -o, gzip & co.
 *   archives          tar x (-C dir, else the cwd), tar c/r/u (the archive), unzip (-d dir, else cwd), 7z, cpio
 *   git               checkout [--] paths, restore, rm, mv, clean (pathspecs, else `.`), reset --hard /
 *                     stash / checkout -f (`.`: they discard uncommitted work anywhere in the tree)
 *   downloads         curl -o/-O/--output-dir, wget (-O, -P, else the URL's file name in the cwd)
 *   build outputs     go build -o, terraform/tofu plan -out= (relative to -chdir=)
 *   find              -delete and -exec/-execdir `{}` (the search roots), -fprint, -fls files
 *
 * Paths are returned as written; a relative path is relative to `cwd` (the segment's directory after a
 * literal `cd`), which is relative to the command's working directory. The caller canonicalizes them like
 * any Tier 0 path. Where the paths cannot be known — `patch` without a file, `git apply`, `xargs rm` (paths
 * come from stdin), a relative path after `cd $DIR` — the segment is listed in `unknown` (→ ask).
 *
 * Decided: `git clean` without pathspecs and the other whole-tree git operations report `.` (the tree), so a
 * role that may write everywhere is not asked while a role limited to some folders is. Commands that move
 * the tree between commits (switch, merge, rebase, pull) are left to the git rule pack. Segments that run
 * on another host (`ssh host cmd`) write nothing here. Inline code (`python -c`) is judged by the rules,
 * not guessed at.
 *
 * Pure: no file system access.
 */
import {
  baseName,
  commandName,
  hasOption,
  joinPath,
  optionValues,
  parseArgs,
  type OptionSpec,
  type ParsedArgs,
  type Word,
} from './options.js';
import type { Redirect, Segment, WriteAnalysis, WriteTarget } from './types.js';

export function writeTargets(segments: readonly Segment[]): WriteAnalysis {
  const analysis: WriteAnalysis = { targets: [], unknown: [] };
  segments.forEach((segment, index) => {
    // Runs on another host: its writes are not to this machine's paths.
    if (segment.flags.remote !== undefined) return;
    const sink = new Sink(index, segment, analysis);
    for (const redirect of segment.redirects) redirectTarget(redirect, sink);
    const extract = EXTRACTORS.get(segment.name);
    if (extract === undefined) return;
    const words = segment.argv.map((text, i): Word => ({ text, dynamic: segment.dynamicArgs.includes(i) }));
    if (segment.context === 'find-exec') {
      // `{}` is each path find visits: under the search roots of the find this command belongs to.
      for (const root of findRootsFor(segments, index))
        extract(
          words.map((w) => (w.text === '{}' ? root : w)),
          sink,
        );
    } else {
      extract(words, sink);
    }
    if (segment.context === 'xargs')
      sink.unknown(`xargs appends arguments read at run time to ${segment.name}, so what it writes is not known`);
  });
  return analysis;
}

/** Devices and descriptors that are not files: writing there changes nothing on disk. */
const NOT_FILES = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty', '/dev/fd/1', '/dev/fd/2', '-']);

class Sink {
  private readonly seen = new Set<string>();

  constructor(
    private readonly index: number,
    private readonly segment: Segment,
    private readonly analysis: WriteAnalysis,
  ) {}

  /** A path this segment writes; `dir` (git -C, patch -d) is prefixed to a relative path. */
  add(path: Word, via: string, dir?: Word): void {
    if (path.text === '' || NOT_FILES.has(path.text)) return;
    // `tee >(cmd)`, `> >(cmd)`: a pipe to a process substitution, whose own writes are its segments'.
    if (path.dynamic && /^[<>]\(/.test(path.text)) return;
    let text = path.text;
    let dynamic = path.dynamic;
    if (dir !== undefined && !isAbsolute(text)) {
      text = text === '.' ? dir.text : joinPath(dir.text, text);
      dynamic ||= dir.dynamic;
    }
    const key = `${via}\0${text}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    if (!isAbsolute(text) && this.segment.flags.cwdUnknown === true) {
      this.unknown(
        `${via} writes ${text}, relative to a working directory hookwise cannot know (after a cd it cannot follow)`,
      );
      return;
    }
    const target: WriteTarget = { segment: this.index, path: text, via, dynamic };
    if (this.segment.cwd !== undefined && !isAbsolute(text)) target.cwd = this.segment.cwd;
    this.analysis.targets.push(target);
  }

  unknown(reason: string): void {
    if (this.analysis.unknown.some((u) => u.segment === this.index && u.reason === reason)) return;
    this.analysis.unknown.push({ segment: this.index, reason });
  }
}

function isAbsolute(path: string): boolean {
  return path.startsWith('/') || path === '~' || path.startsWith('~/');
}

const WRITE_REDIRECTS = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);

function redirectTarget(r: Redirect, sink: Sink): void {
  const via = `${r.fd ?? ''}${r.op}`;
  if (r.op === '>&') {
    // `2>&1`, `>&-`: descriptor duplication; `>&file` (no digits) writes the file, like `&>`.
    if (/^\d+-?$/.test(r.target) || r.target === '-') return;
    sink.add({ text: r.target, dynamic: r.dynamic }, via);
    return;
  }
  if (WRITE_REDIRECTS.has(r.op)) sink.add({ text: r.target, dynamic: r.dynamic }, via);
}

type Extractor = (words: readonly Word[], sink: Sink) => void;

const args = (words: readonly Word[], spec: OptionSpec = {}, from = 1): ParsedArgs => parseArgs(words, from, spec);

/** Every operand is written (rm, touch, mkdir, …). */
function operands(via: string, spec: OptionSpec = {}): Extractor {
  return (words, sink) => {
    for (const w of args(words, spec).operands) sink.add(w, via);
  };
}

/** Operands after the first (which is a mode, an owner, …), unless `--reference` replaced it. */
function afterFirst(via: string, spec: OptionSpec): Extractor {
  return (words, sink) => {
    const parsed = args(words, spec);
    const files = hasOption(parsed, '--reference') ? parsed.operands : parsed.operands.slice(1);
    for (const w of files) sink.add(w, via);
  };
}

/** cp, mv, install, ln, git mv: where each source ends up. */
function destinations(parsed: ParsedArgs, opts: { minimum: number; parents?: boolean }): Word[] {
  const sourceName = (source: Word): string => (opts.parents === true ? source.text : baseName(source.text));
  const into = (dir: Word, sources: readonly Word[]): Word[] =>
    sources.map((s) => ({ text: joinPath(dir.text, sourceName(s)), dynamic: dir.dynamic || s.dynamic }));
  const targetDir = optionValues(parsed, '-t', '--target-directory')[0];
  if (targetDir !== undefined) return into(targetDir, parsed.operands);
  if (parsed.operands.length < opts.minimum) return [];
  const dest = parsed.operands[parsed.operands.length - 1]!;
  const sources = parsed.operands.slice(0, -1);
  const noTargetDir = hasOption(parsed, '-T', '--no-target-directory');
  // Several sources, a trailing slash or --parents: the destination is a directory and each source lands inside it.
  if (!noTargetDir && (sources.length > 1 || dest.text.endsWith('/') || opts.parents === true))
    return into(dest, sources);
  return [dest];
}

const CP: OptionSpec = { short: 'tS', long: ['target-directory', 'suffix'] };
const INSTALL: OptionSpec = {
  short: 'tSmgo',
  long: ['target-directory', 'suffix', 'mode', 'owner', 'group', 'strip-program'],
};

function copyLike(via: string, spec: OptionSpec, sourcesToo: boolean): Extractor {
  return (words, sink) => {
    const parsed = args(words, spec);
    for (const d of destinations(parsed, { minimum: 2, parents: hasOption(parsed, '--parents') })) sink.add(d, via);
    // mv removes its sources.
    if (sourcesToo && (parsed.operands.length >= 2 || optionValues(parsed, '-t', '--target-directory').length > 0)) {
      const sources =
        optionValues(parsed, '-t', '--target-directory').length > 0 ? parsed.operands : parsed.operands.slice(0, -1);
      for (const s of sources) sink.add(s, via);
    }
  };
}

const install: Extractor = (words, sink) => {
  const parsed = args(words, INSTALL);
  if (hasOption(parsed, '-d', '--directory')) {
    for (const w of parsed.operands) sink.add(w, 'install');
    return;
  }
  for (const d of destinations(parsed, { minimum: 2 })) sink.add(d, 'install');
};

const ln: Extractor = (words, sink) => {
  const parsed = args(words, { short: 'St', long: ['suffix', 'target-directory'] });
  // `ln -s target` creates ./basename(target).
  if (parsed.operands.length === 1 && optionValues(parsed, '-t', '--target-directory').length === 0) {
    const only = parsed.operands[0]!;
    sink.add({ text: baseName(only.text), dynamic: only.dynamic }, 'ln');
    return;
  }
  for (const d of destinations(parsed, { minimum: 2 })) sink.add(d, 'ln');
};

/** chmod's mode may look like an option: `chmod -w file`, `chmod -R -x dir`. */
const chmod: Extractor = (words, sink) => {
  const modeLike = (w: Word): boolean => /^-[rwxXst]+$/.test(w.text);
  const rest = words.filter((w, i) => i === 0 || !modeLike(w));
  const parsed = args(rest, { long: ['reference'] });
  const explicitMode = words.some((w, i) => i > 0 && modeLike(w));
  const files = hasOption(parsed, '--reference') || explicitMode ? parsed.operands : parsed.operands.slice(1);
  for (const w of files) sink.add(w, 'chmod');
};

const dd: Extractor = (words, sink) => {
  for (const w of words.slice(1))
    if (w.text.startsWith('of=')) sink.add({ text: w.text.slice(3), dynamic: w.dynamic }, 'dd');
};

// `--output-error[=MODE]` takes its value only after `=`: `tee --output-error f` writes f.
const tee: Extractor = operands('tee');

const sed: Extractor = (words, sink) => {
  // BSD/macOS `sed -i '' …`: the empty word is the backup suffix, not the script.
  const cleaned = words.filter((w, i) => !(w.text === '' && words[i - 1]?.text === '-i'));
  const parsed = args(cleaned, { short: 'efl', shortOptional: 'i', long: ['expression', 'file', 'line-length'] });
  const scripts = optionValues(parsed, '-e', '--expression');
  const scriptGiven = scripts.length > 0 || optionValues(parsed, '-f', '--file').length > 0;
  const files = scriptGiven ? parsed.operands : parsed.operands.slice(1);
  if (hasOption(parsed, '-i', '--in-place')) {
    for (const f of files) sink.add(f, 'sed -i');
    return;
  }
  // The `w file` command and the `s///w file` flag write files from inside the script.
  const texts = scriptGiven ? scripts : parsed.operands.slice(0, 1);
  if (texts.some((s) => /(?:^|[;\n{}\s/\d$])[wW]\s+[^\s;}]/.test(s.text)))
    sink.unknown('the sed script writes a file (w command)');
};

const perl: Extractor = (words, sink) => {
  let inPlace = false;
  let codeGiven = false;
  let i = 1;
  for (; i < words.length; i++) {
    const text = words[i]!.text;
    if (text === '--') {
      i++;
      break;
    }
    if (!text.startsWith('-') || text === '-') break;
    for (let k = 1; k < text.length; k++) {
      const c = text[k]!;
      if (c === 'i') {
        inPlace = true; // the rest of the cluster is the backup extension
        break;
      }
      if (c === 'e' || c === 'E') {
        codeGiven = true;
        if (k === text.length - 1) i++;
        break;
      }
      if ('IMmdDFCx'.includes(c)) break;
      // -l and -0 take optional digits: `-l0`, `-0777`.
      if (c === 'l' || c === '0') while (k + 1 < text.length && /[0-9]/.test(text[k + 1]!)) k++;
    }
  }
  if (!inPlace) return;
  const files = words.slice(codeGiven ? i : i + 1);
  for (const f of files) sink.add(f, 'perl -i');
};

const patch: Extractor = (words, sink) => {
  const parsed = args(words, {
    short: 'pioDdrBFgVYz',
    long: [
      'strip',
      'input',
      'output',
      'directory',
      'reject-file',
      'prefix',
      'ifdef',
      'fuzz',
      'version-control',
      'basename-prefix',
      'suffix',
      'get',
      'quoting-style',
      'reject-format',
      'read-only',
    ],
  });
  if (hasOption(parsed, '--dry-run')) return;
  const dir = optionValues(parsed, '-d', '--directory')[0];
  const output = optionValues(parsed, '-o', '--output');
  for (const file of [...output, ...optionValues(parsed, '-r', '--reject-file')]) sink.add(file, 'patch', dir);
  const original = parsed.operands[0];
  if (output.length > 0) return;
  if (original !== undefined) sink.add(original, 'patch', dir);
  else sink.unknown('patch writes the files named inside the patch, which hookwise does not read');
};

/** The search roots of `find [-H|-L|-P] [-D opts] [-Olevel] roots… expression`. */
function findRoots(words: readonly Word[]): Word[] {
  let i = 1;
  while (i < words.length) {
    const t = words[i]!.text;
    if (t === '-H' || t === '-L' || t === '-P' || /^-O\d*$/.test(t)) i++;
    else if (t === '-D') i += 2;
    else break;
  }
  const roots: Word[] = [];
  for (; i < words.length; i++) {
    const t = words[i]!.text;
    if ((t.startsWith('-') && t.length > 1) || t === '(' || t === '!' || t === ',') break;
    roots.push(words[i]!);
  }
  return roots.length > 0 ? roots : [{ text: '.', dynamic: false }];
}

function findRootsFor(segments: readonly Segment[], index: number): Word[] {
  for (let i = index - 1; i >= 0; i--) {
    const s = segments[i]!;
    if (s.name === 'find' && s.context !== 'find-exec')
      return findRoots(s.argv.map((text, k) => ({ text, dynamic: s.dynamicArgs.includes(k) })));
  }
  return [{ text: '.', dynamic: false }];
}

const find: Extractor = (words, sink) => {
  // Skip the words of -exec … ; (those commands are their own segments).
  const own: Word[] = [];
  for (let i = 0; i < words.length; i++) {
    const t = words[i]!.text;
    if (t === '-exec' || t === '-execdir' || t === '-ok' || t === '-okdir') {
      while (i + 1 < words.length && words[i + 1]!.text !== ';' && words[i + 1]!.text !== '+') i++;
      i++;
      continue;
    }
    own.push(words[i]!);
  }
  if (own.some((w) => w.text === '-delete')) for (const root of findRoots(own)) sink.add(root, 'find -delete');
  own.forEach((w, i) => {
    if (['-fprint', '-fprint0', '-fprintf', '-fls'].includes(w.text) && own[i + 1] !== undefined)
      sink.add(own[i + 1]!, `find ${w.text}`);
  });
};

const TAR_VALUE_SHORT = 'fbCTXgKNLVIHF';
const TAR_VALUE_LONG = [
  'file',
  'directory',
  'files-from',
  'exclude-from',
  'blocking-factor',
  'listed-incremental',
  'starting-file',
  'newer',
  'newer-mtime',
  'after-date',
  'tape-length',
  'label',
  'use-compress-program',
  'format',
  'exclude',
  'transform',
  'xform',
  'owner',
  'group',
  'mode',
  'mtime',
  'strip-components',
  'suffix',
  'to-command',
  'info-script',
  'new-volume-script',
  'rsh-command',
  'volno-file',
  'checkpoint-action',
  'rmt-command',
  'index-file',
  'record-size',
  'occurrence',
  'pax-option',
];

const tar: Extractor = (words, sink) => {
  let rest = words;
  const bundled: { letter: string; value?: Word }[] = [];
  // Old style: `tar xzf archive.tgz` — letters without a dash; value letters take the next words in order.
  const first = words[1];
  if (first !== undefined && /^[A-Za-z]+$/.test(first.text)) {
    let next = 2;
    for (const letter of first.text) {
      if (TAR_VALUE_SHORT.includes(letter) && next < words.length) bundled.push({ letter, value: words[next++]! });
      else bundled.push({ letter });
    }
    rest = [words[0]!, ...words.slice(next)];
  }
  const parsed = args(rest, { short: TAR_VALUE_SHORT, long: TAR_VALUE_LONG });
  const letters = new Set([
    ...bundled.map((b) => b.letter),
    ...parsed.options.filter((o) => o.name.length === 2).map((o) => o.name[1]!),
  ]);
  const long = (name: string): boolean => hasOption(parsed, `--${name}`);
  const values = (letter: string, longName: string): Word[] => [
    ...bundled.filter((b) => b.letter === letter && b.value !== undefined).map((b) => b.value!),
    ...optionValues(parsed, `-${letter}`, `--${longName}`),
  ];
  if (letters.has('x') || long('extract') || long('get')) {
    if (letters.has('O') || long('to-stdout') || long('to-command')) return;
    const dirs = values('C', 'directory');
    for (const dir of dirs.length > 0 ? dirs : [{ text: '.', dynamic: false }]) sink.add(dir, 'tar -x');
    return;
  }
  if (
    ['c', 'r', 'u', 'A'].some((l) => letters.has(l)) ||
    ['create', 'append', 'update', 'catenate', 'concatenate', 'delete'].some(long)
  ) {
    for (const archive of values('f', 'file')) sink.add(archive, 'tar');
  }
};

const unzip: Extractor = (words, sink) => {
  const parsed = args(words, { short: 'dP' });
  // Listing, testing, printing and comment modes write nothing.
  if (hasOption(parsed, '-l', '-t', '-v', '-p', '-c', '-Z', '-z')) return;
  sink.add(optionValues(parsed, '-d')[0] ?? { text: '.', dynamic: false }, 'unzip');
};

const sevenZip: Extractor = (words, sink) => {
  const command = words[1]?.text;
  const rest = words.slice(2).filter((w) => !w.text.startsWith('-'));
  if (command === 'x' || command === 'e') {
    const out = words.find((w) => w.text.startsWith('-o'));
    sink.add(
      out === undefined ? { text: '.', dynamic: false } : { text: out.text.slice(2), dynamic: out.dynamic },
      '7z',
    );
  } else if (command !== undefined && ['a', 'u', 'd', 'rn'].includes(command) && rest[0] !== undefined) {
    sink.add(rest[0], '7z');
  }
};

const cpio: Extractor = (words, sink) => {
  const parsed = args(words, {
    short: 'FEHIMORD',
    long: ['file', 'pattern-file', 'format', 'message', 'owner', 'directory'],
  });
  const letters = new Set(parsed.options.map((o) => o.name));
  if (letters.has('-i') || letters.has('--extract')) {
    if (letters.has('-t') || letters.has('--list')) return;
    sink.add(optionValues(parsed, '-D', '--directory')[0] ?? { text: '.', dynamic: false }, 'cpio -i');
  } else if (letters.has('-p') || letters.has('--pass-through')) {
    for (const d of parsed.operands) sink.add(d, 'cpio -p');
  } else if (letters.has('-o') || letters.has('--create')) {
    for (const f of optionValues(parsed, '-F', '-O', '--file')) sink.add(f, 'cpio -o');
  }
};

/** host:path, user@host:path, rsync://… are remote: not written here. */
function isRemote(path: string): boolean {
  return /^[^/]*:/.test(path) || path.startsWith('rsync://');
}

const RSYNC_VALUE_LONG = [
  'rsh',
  'rsync-path',
  'exclude',
  'include',
  'filter',
  'files-from',
  'exclude-from',
  'include-from',
  'log-file',
  'log-file-format',
  'password-file',
  'temp-dir',
  'partial-dir',
  'backup-dir',
  'compare-dest',
  'copy-dest',
  'link-dest',
  'chmod',
  'chown',
  'usermap',
  'groupmap',
  'block-size',
  'bwlimit',
  'timeout',
  'contimeout',
  'port',
  'max-size',
  'min-size',
  'max-delete',
  'suffix',
  'remote-option',
  'out-format',
  'info',
  'debug',
  'iconv',
  'sockopts',
  'address',
  'protocol',
  'checksum-choice',
  'compress-choice',
  'compress-level',
  'skip-compress',
  'stop-at',
  'stop-after',
  'time-limit',
  'modify-window',
  'outbuf',
  'early-input',
  'checksum-seed',
  'write-batch',
  'read-batch',
  'only-write-batch',
  'max-alloc',
];

const rsync: Extractor = (words, sink) => {
  const parsed = args(words, { short: 'eBfTM@', long: RSYNC_VALUE_LONG });
  for (const log of optionValues(parsed, '--log-file', '--write-batch', '--only-write-batch')) sink.add(log, 'rsync');
  // -n / --dry-run: lists what it would transfer and delete, and changes nothing (its log and batch files aside).
  if (parsed.operands.length < 2 || hasOption(parsed, '-n', '--dry-run')) return;
  const dest = parsed.operands[parsed.operands.length - 1]!;
  if (!isRemote(dest.text)) sink.add(dest, 'rsync');
  if (hasOption(parsed, '--remove-source-files'))
    for (const s of parsed.operands.slice(0, -1)) if (!isRemote(s.text)) sink.add(s, 'rsync');
};

const scp: Extractor = (words, sink) => {
  const parsed = args(words, { short: 'cDFiJloPSX' });
  if (parsed.operands.length < 2) return;
  const dest = parsed.operands[parsed.operands.length - 1]!;
  if (isRemote(dest.text)) return;
  const sources = parsed.operands.slice(0, -1);
  if (sources.length > 1 || dest.text.endsWith('/'))
    for (const s of sources)
      sink.add(
        { text: joinPath(dest.text, baseName(s.text.replace(/^[^/]*:/, ''))), dynamic: dest.dynamic || s.dynamic },
        'scp',
      );
  else sink.add(dest, 'scp');
};

function git(words: readonly Word[], sink: Sink): void {
  const global = args(words, {
    short: 'Cc',
    long: ['git-dir', 'work-tree', 'namespace', 'config-env', 'super-prefix'],
    stopAtOperand: true,
  });
  const subcommand = global.operands[0];
  if (subcommand === undefined) return;
  // `git -C a -C b …` runs in a/b.
  const dirs = optionValues(global, '-C');
  const dir = dirs.reduce<Word | undefined>(
    (acc, d) =>
      acc === undefined || isAbsolute(d.text)
        ? d
        : { text: joinPath(acc.text, d.text), dynamic: acc.dynamic || d.dynamic },
    undefined,
  );
  const via = `git ${subcommand.text}`;
  const add = (w: Word): void => sink.add(w, via, dir);
  const tree = (): void => add({ text: '.', dynamic: false });
  const from = global.rest + 1;
  const sub = (spec: OptionSpec): ParsedArgs => args(words, spec, from);
  switch (subcommand.text) {
    case 'checkout': {
      const parsed = sub({ short: 'bB', long: ['orphan', 'pathspec-from-file'] });
      const dashDash = words.findIndex((w, i) => i >= from && w.text === '--');
      if (hasOption(parsed, '--pathspec-from-file'))
        return sink.unknown('git checkout --pathspec-from-file: the paths are in a file');
      if (dashDash !== -1) {
        for (const w of words.slice(dashDash + 1)) add(w);
        return;
      }
      if (hasOption(parsed, '-b', '-B', '--orphan')) return;
      const [first, ...paths] = parsed.operands;
      if (paths.length > 0) paths.forEach(add);
      else if (first !== undefined && (first.text === '.' || /^\.\.?\//.test(first.text) || first.dynamic)) add(first);
      // Switching branches with -f throws away local changes everywhere.
      if (hasOption(parsed, '-f', '--force') && paths.length === 0) tree();
      return;
    }
    case 'restore': {
      const parsed = sub({ short: 's', long: ['source', 'pathspec-from-file'] });
      const staged = hasOption(parsed, '-S', '--staged');
      if (staged && !hasOption(parsed, '-W', '--worktree')) return; // the index only
      if (hasOption(parsed, '--pathspec-from-file'))
        return sink.unknown('git restore --pathspec-from-file: the paths are in a file');
      parsed.operands.forEach(add);
      return;
    }
    case 'clean': {
      const parsed = sub({ short: 'e', long: ['exclude'] });
      if (hasOption(parsed, '-n', '--dry-run')) return;
      if (parsed.operands.length > 0) parsed.operands.forEach(add);
      else tree();
      return;
    }
    case 'rm': {
      const parsed = sub({ long: ['pathspec-from-file'] });
      if (hasOption(parsed, '--cached', '-n', '--dry-run')) return;
      parsed.operands.forEach(add);
      return;
    }
    case 'mv': {
      const parsed = sub({});
      if (hasOption(parsed, '-n', '--dry-run') || parsed.operands.length < 2) return;
      destinations(parsed, { minimum: 2 }).forEach(add);
      parsed.operands.slice(0, -1).forEach(add);
      return;
    }
    case 'reset': {
      const parsed = sub({});
      if (hasOption(parsed, '--hard', '--merge', '--keep')) tree();
      return;
    }
    case 'stash': {
      const parsed = sub({ short: 'm', long: ['message', 'pathspec-from-file'] });
      const action = parsed.operands[0]?.text;
      if (action === undefined || action === 'push' || action === 'save') {
        const paths = action === 'push' ? parsed.operands.slice(1) : [];
        if (paths.length > 0) paths.forEach(add);
        else tree();
      } else if (action === 'pop' || action === 'apply') {
        tree();
      }
      return;
    }
    case 'apply':
    case 'am': {
      const parsed = sub({ short: 'pC', long: ['directory', 'exclude', 'include'] });
      if (hasOption(parsed, '--check', '--stat', '--numstat', '--summary', '--cached')) return;
      sink.unknown(`${via} writes the files named inside the patch, which hookwise does not read`);
      return;
    }
    default:
      return;
  }
}

const CURL_VALUE_SHORT = 'AbcCdDeEFHKmoPQrTtuUwxXyYz';
const CURL_VALUE_LONG = [
  'output',
  'output-dir',
  'dump-header',
  'cookie-jar',
  'trace',
  'trace-ascii',
  'stderr',
  'etag-save',
  'etag-compare',
  'libcurl',
  'config',
  'data',
  'data-binary',
  'data-raw',
  'data-ascii',
  'data-urlencode',
  'header',
  'user-agent',
  'user',
  'referer',
  'request',
  'url',
  'form',
  'form-string',
  'cookie',
  'max-time',
  'connect-timeout',
  'proxy',
  'proxy-user',
  'upload-file',
  'range',
  'continue-at',
  'retry',
  'retry-delay',
  'retry-max-time',
  'write-out',
  'cert',
  'key',
  'cacert',
  'capath',
  'resolve',
  'interface',
  'json',
  'oauth2-bearer',
  'max-filesize',
  'limit-rate',
  'speed-limit',
  'speed-time',
  'time-cond',
  'quote',
  'preproxy',
  'connect-to',
  'variable',
  'expand-url',
];

/** The file name `curl -O` / `wget` give a download: the URL's last path component. */
function urlFileName(url: Word): Word | undefined {
  const path = url.text.replace(/[?#].*$/, '').replace(/^[a-z]+:\/\/[^/]*/i, '');
  const name = path.slice(path.lastIndexOf('/') + 1);
  return name === '' ? undefined : { text: name, dynamic: url.dynamic };
}

const curl: Extractor = (words, sink) => {
  const parsed = args(words, { short: CURL_VALUE_SHORT, long: CURL_VALUE_LONG });
  const dir = optionValues(parsed, '--output-dir')[0];
  for (const out of optionValues(parsed, '-o', '--output'))
    sink.add(out, 'curl -o', out.text === '-' ? undefined : dir);
  for (const file of optionValues(
    parsed,
    '-D',
    '--dump-header',
    '-c',
    '--cookie-jar',
    '--trace',
    '--trace-ascii',
    '--stderr',
    '--etag-save',
    '--libcurl',
  )) {
    sink.add(file, 'curl');
  }
  if (hasOption(parsed, '-O', '--remote-name', '--remote-name-all', '-J', '--remote-header-name')) {
    const urls = [...parsed.operands, ...optionValues(parsed, '--url')];
    for (const url of urls) {
      const name = hasOption(parsed, '-J', '--remote-header-name') ? undefined : urlFileName(url);
      if (name === undefined) sink.unknown('curl names the downloaded file from the server response');
      else sink.add(name, 'curl -O', dir);
    }
  }
};

const wget: Extractor = (words, sink) => {
  const parsed = args(words, {
    short: 'OoaPeDUtTwQiBlARIXS',
    long: [
      'output-document',
      'output-file',
      'append-output',
      'directory-prefix',
      'execute',
      'domains',
      'user-agent',
      'tries',
      'timeout',
      'wait',
      'quota',
      'input-file',
      'base',
      'level',
      'accept',
      'reject',
      'include-directories',
      'exclude-directories',
      'header',
      'post-data',
      'post-file',
      'user',
      'password',
      'http-user',
      'http-password',
      'load-cookies',
      'save-cookies',
      'referer',
    ],
  });
  for (const log of optionValues(parsed, '-o', '--output-file', '-a', '--append-output', '--save-cookies'))
    sink.add(log, 'wget');
  if (hasOption(parsed, '--spider')) return;
  const document = optionValues(parsed, '-O', '--output-document');
  if (document.length > 0) {
    for (const d of document) sink.add(d, 'wget -O');
    return;
  }
  const prefix = optionValues(parsed, '-P', '--directory-prefix')[0];
  if (
    hasOption(parsed, '-r', '--recursive', '-m', '--mirror') ||
    optionValues(parsed, '-i', '--input-file').length > 0
  ) {
    sink.add(prefix ?? { text: '.', dynamic: false }, 'wget');
    return;
  }
  for (const url of parsed.operands)
    sink.add(urlFileName(url) ?? { text: 'index.html', dynamic: url.dynamic }, 'wget', prefix);
};

/** `go build -o out`: the binary (or directory) it writes. Go spells options `-o x`, `-o=x`, `--o x` alike. */
const go: Extractor = (words, sink) => {
  // `go -C dir build`: relative paths are relative to dir.
  let i = 1;
  let dir: Word | undefined;
  if (words[i]?.text === '-C' || words[i]?.text === '--C') {
    dir = words[i + 1];
    i += 2;
  }
  if (words[i]?.text !== 'build') return;
  for (let k = i + 1; k < words.length; k++) {
    const text = words[k]!.text;
    if (text === '-o' || text === '--o') {
      const value = words[k + 1];
      if (value !== undefined) sink.add(value, 'go build', dir);
      k++;
    } else if (text.startsWith('-o=') || text.startsWith('--o=')) {
      sink.add({ text: text.slice(text.indexOf('=') + 1), dynamic: words[k]!.dynamic }, 'go build', dir);
    }
  }
};

/** `terraform plan -out=FILE` (relative to `-chdir=DIR`). */
const terraform: Extractor = (words, sink) => {
  const chdir = words.slice(1).find((w) => w.text.startsWith('-chdir='));
  const dir = chdir === undefined ? undefined : { text: chdir.text.slice('-chdir='.length), dynamic: chdir.dynamic };
  const sub = words.slice(1).find((w) => !w.text.startsWith('-'));
  if (sub?.text !== 'plan') return;
  for (const w of words.slice(2)) {
    const m = /^--?out=(.*)$/.exec(w.text);
    if (m !== null) sink.add({ text: m[1]!, dynamic: w.dynamic }, 'terraform plan', dir);
  }
};

const sort: Extractor = (words, sink) => {
  const parsed = args(words, {
    short: 'kotST',
    long: [
      'key',
      'output',
      'field-separator',
      'buffer-size',
      'temporary-directory',
      'batch-size',
      'compress-program',
      'files0-from',
      'parallel',
      'random-source',
    ],
  });
  for (const out of optionValues(parsed, '-o', '--output')) sink.add(out, 'sort -o');
};

/** gzip & co. replace each file with its (de)compressed sibling. */
function compressor(suffix: string, keepsInput: boolean): Extractor {
  return (words, sink) => {
    const via = commandName(words[0]!.text);
    const parsed = args(words, { short: 'So', long: ['suffix', 'output'] });
    if (hasOption(parsed, '-c', '--stdout', '--to-stdout', '-l', '--list', '-t', '--test')) return;
    for (const out of optionValues(parsed, '-o', '--output')) sink.add(out, via);
    const decompress = hasOption(parsed, '-d', '--decompress', '--uncompress') || /^(g|b)?un/.test(via);
    const keep = keepsInput ? !hasOption(parsed, '--rm') : hasOption(parsed, '-k', '--keep');
    for (const file of parsed.operands) {
      if (!keep) sink.add(file, via);
      const sibling = decompress ? file.text.replace(/\.[^./]+$/, '') : file.text + suffix;
      if (sibling !== file.text) sink.add({ text: sibling, dynamic: file.dynamic }, via);
    }
  };
}

const sudoedit: Extractor = (words, sink) => {
  const name = commandName(words[0]!.text);
  const parsed = args(words, {
    short: 'ugCDhprtTUR',
    long: ['user', 'group', 'close-from', 'chdir', 'host', 'prompt', 'role', 'type', 'other-user'],
  });
  if (name === 'sudo' && !hasOption(parsed, '-e', '--edit')) return;
  for (const f of parsed.operands) sink.add(f, 'sudoedit');
};

const EXTRACTORS = new Map<string, Extractor>([
  ['rm', operands('rm')],
  ['rmdir', operands('rmdir')],
  ['unlink', operands('unlink')],
  ['shred', operands('shred', { short: 'ns', long: ['iterations', 'size', 'random-source'] })],
  ['mkdir', operands('mkdir', { short: 'm', long: ['mode'] })],
  ['mkfifo', operands('mkfifo', { short: 'm', long: ['mode'] })],
  [
    'mknod',
    (words, sink) =>
      args(words, { short: 'm', long: ['mode'] })
        .operands.slice(0, 1)
        .forEach((w) => sink.add(w, 'mknod')),
  ],
  ['touch', operands('touch', { short: 'drt', long: ['date', 'reference', 'time'] })],
  ['truncate', operands('truncate', { short: 'sr', long: ['size', 'reference'] })],
  ['tee', tee],
  ['sponge', operands('sponge')],
  ['cp', copyLike('cp', CP, false)],
  ['mv', copyLike('mv', CP, true)],
  ['install', install],
  ['ln', ln],
  ['chmod', chmod],
  ['chown', afterFirst('chown', { long: ['from', 'reference'] })],
  ['chgrp', afterFirst('chgrp', { long: ['reference'] })],
  ['dd', dd],
  ['sed', sed],
  ['perl', perl],
  ['patch', patch],
  ['find', find],
  ['tar', tar],
  ['unzip', unzip],
  ['7z', sevenZip],
  ['7za', sevenZip],
  ['cpio', cpio],
  ['rsync', rsync],
  ['scp', scp],
  ['git', git],
  ['curl', curl],
  ['wget', wget],
  ['sort', sort],
  ['go', go],
  ['terraform', terraform],
  ['tofu', terraform],
  ['gzip', compressor('.gz', false)],
  ['gunzip', compressor('.gz', false)],
  ['bzip2', compressor('.bz2', false)],
  ['bunzip2', compressor('.bz2', false)],
  ['xz', compressor('.xz', false)],
  ['unxz', compressor('.xz', false)],
  ['lzma', compressor('.lzma', false)],
  ['zstd', compressor('.zst', true)],
  ['unzstd', compressor('.zst', true)],
  ['sudoedit', sudoedit],
  ['sudo', sudoedit],
]);

/** The commands writeTargets knows how to read (for explain output and tests). */
export const WRITE_COMMANDS: readonly string[] = [...EXTRACTORS.keys()];
