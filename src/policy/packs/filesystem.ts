/**
 * Destructive file-system commands: recursive deletion of the root, system directories, home, the
 * project or its ancestors; formatting and raw writes to block devices; recursive permission changes
 * on those same places; fork bombs. Irreversible → deny. Targets the pack cannot know (`rm -rf $DIR`,
 * `rm -rf *` after `cd $X`) → ask: an unknown target is not an allowed one.
 */
import type { Segment } from '../../shell/types.js';
import { lazyRe2 } from '../../util/re2.js';
import { classifyTarget, effectiveCwd, hasAny, scan, type Target, type TargetKind } from './argv.js';
import { definePack, type PackEnv, type PackFinding } from './types.js';

const RULES = {
  'rm-root': {
    verdict: 'deny',
    message:
      'deletes the whole file system from / and nothing brings it back. Delete the specific directory you mean, by a path inside the project.',
  },
  'rm-system': {
    verdict: 'deny',
    message:
      'recursively deletes a system directory, which breaks the machine. If a file there really must go, a human should remove that one file by hand.',
  },
  'rm-home': {
    verdict: 'deny',
    message:
      'recursively deletes the home directory (every project, key and config in it). Name the specific directory under ~ you mean, e.g. ~/.cache/<tool>.',
  },
  'rm-project': {
    verdict: 'deny',
    message:
      'recursively deletes the project root (all its files, and with them uncommitted work). Delete build output by name instead (rm -rf dist node_modules), or use git clean -n to preview.',
  },
  'rm-ancestor': {
    verdict: 'deny',
    message:
      'recursively deletes a directory that contains the project (the project goes with it). Name the specific directory you mean.',
  },
  'rm-git-dir': {
    verdict: 'deny',
    message:
      "deletes the repository's .git directory: every unpushed commit, branch, stash and the reflog go with it. To start over, clone again into a new directory.",
  },
  'rm-unknown-target': {
    verdict: 'ask',
    message:
      'recursively deletes a target only known at run time (a variable, a substitution, or * after a cd hookwise cannot follow); if it is empty or wrong this can delete far more than intended. A human confirms; prefer a literal path.',
  },
  'no-preserve-root': {
    verdict: 'deny',
    message: 'switches off the safety net that stops rm -rf /. There is no legitimate use for it from an agent.',
  },
  'find-delete-root': {
    verdict: 'deny',
    message:
      'deletes everything it matches under the root, a system directory, home, the project or its ancestor, where it starts. Run find without -delete first to see the list, and start it in the directory you mean.',
  },
  'format-device': {
    verdict: 'deny',
    message:
      'creates a file system, swap or partition table on a device, erasing everything on it. A human must run disk formatting by hand.',
  },
  'device-write': {
    verdict: 'deny',
    message:
      'writes raw bytes over a block device, destroying its file system. Write to an image file instead (dd of=disk.img); a human must do device writes by hand.',
  },
  'permissions-root': {
    verdict: 'deny',
    message:
      'recursively changes ownership or permissions on the root, a system directory, home, the project or its ancestor, which can break the system, ssh and every tool that checks permissions. Change only the files you mean.',
  },
  'world-writable': {
    verdict: 'ask',
    message:
      'recursively makes files writable by every user on the machine. Grant only what is needed (e.g. chmod -R u+w, or g+w for a shared group).',
  },
  'fork-bomb': {
    verdict: 'deny',
    message:
      'is a fork bomb: a function that pipes into itself in the background until the machine runs out of processes. To test process limits, use ulimit -u inside a throw-away container.',
  },
} as const;
type RuleId = keyof typeof RULES;

const TARGET_RULE: Record<TargetKind, RuleId | undefined> = {
  root: 'rm-root',
  system: 'rm-system',
  home: 'rm-home',
  project: 'rm-project',
  ancestor: 'rm-ancestor',
  'git-dir': 'rm-git-dir',
  unknown: 'rm-unknown-target',
  other: undefined,
};

/** Most severe first, so a command with several targets reports the worst. */
const SEVERITY: readonly TargetKind[] = [
  'root',
  'system',
  'home',
  'ancestor',
  'project',
  'git-dir',
  'unknown',
  'other',
];

function worst(targets: Target[]): Target | undefined {
  let best: Target | undefined;
  for (const t of targets) if (best === undefined || SEVERITY.indexOf(t.kind) < SEVERITY.indexOf(best.kind)) best = t;
  return best;
}

function targetFinding(
  target: Target | undefined,
  rule: (kind: TargetKind) => RuleId | undefined,
): PackFinding<RuleId> | undefined {
  if (target === undefined) return undefined;
  const id = rule(target.kind);
  return id === undefined ? undefined : { rule: id, detail: `target ${target.shown}` };
}

function rm(segment: Segment, env: PackEnv): PackFinding<RuleId> | undefined {
  const args = scan(segment.argv, { withValue: ['interactive'] });
  if (args.flags.has('no-preserve-root')) return { rule: 'no-preserve-root' };
  if (!hasAny(args, 'r', 'R', 'recursive')) return undefined; // single files: the write-target tier judges them
  const cwd = effectiveCwd(env);
  return targetFinding(
    worst(args.positionals.map((p) => classifyTarget(p.text, env, cwd))),
    (kind) => TARGET_RULE[kind],
  );
}

const FIND_ACTIONS_THAT_DELETE = new Set(['-delete']);
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);
const DELETERS = new Set(['rm', 'rmdir', 'shred', 'unlink']);
/** Tests that narrow what find matches (-type alone does not: -type f still means every file). */
const FIND_NARROWING = new Set([
  '-name',
  '-iname',
  '-path',
  '-ipath',
  '-wholename',
  '-iwholename',
  '-regex',
  '-iregex',
  '-empty',
  '-newer',
  '-mtime',
  '-mmin',
  '-atime',
  '-amin',
  '-ctime',
  '-cmin',
  '-size',
  '-user',
  '-group',
  '-perm',
  '-links',
  '-samefile',
  '-inum',
  '-lname',
  '-ilname',
]);

function find(segment: Segment, env: PackEnv): PackFinding<RuleId> | undefined {
  const argv = segment.argv;
  const deletes = argv.some(
    (a, i) => FIND_ACTIONS_THAT_DELETE.has(a) || (FIND_EXEC.has(a) && DELETERS.has(argv[i + 1] ?? '')),
  );
  if (!deletes) return undefined;
  // Start points: the words before the first expression word (-name, (, !, …).
  const starts: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-H' || a === '-L' || a === '-P') continue;
    if (a.startsWith('-') || a === '(' || a === '!' || a === ')') break;
    starts.push(a);
  }
  if (starts.length === 0) starts.push('.');
  const cwd = effectiveCwd(env);
  const target = worst(starts.map((s) => classifyTarget(s, env, cwd)));
  // Inside the project, a narrowed find (-name '*.tmp' -delete) deletes what it matches: ordinary
  // cleanup, left to the write-target tier. Unnarrowed, it deletes the project.
  const narrowed = argv.some((a) => FIND_NARROWING.has(a));
  return targetFinding(target, (kind) => {
    switch (kind) {
      case 'other':
        return undefined;
      case 'unknown':
        return 'rm-unknown-target';
      case 'project':
      case 'git-dir':
        return narrowed ? undefined : 'find-delete-root';
      default:
        return 'find-delete-root';
    }
  });
}

function permissions(segment: Segment, env: PackEnv): PackFinding<RuleId> | undefined {
  const withValue = segment.name === 'chmod' ? ['reference'] : ['reference', 'from'];
  const args = scan(segment.argv, { withValue });
  if (!hasAny(args, 'R', 'recursive')) return undefined;
  // chmod MODE FILE… / chown OWNER FILE…: the first positional is the mode or owner (unless --reference).
  const operands = args.values.has('reference') ? args.positionals : args.positionals.slice(1);
  const cwd = effectiveCwd(env);
  const target = worst(operands.map((p) => classifyTarget(p.text, env, cwd)));
  const found = targetFinding(target, (kind) =>
    kind === 'other' || kind === 'unknown' ? undefined : 'permissions-root',
  );
  if (found !== undefined) return found;
  const mode = args.values.has('reference') ? undefined : args.positionals[0]?.text;
  if (segment.name === 'chmod' && mode !== undefined && worldWritable(mode))
    return { rule: 'world-writable', detail: `mode ${mode}` };
  return undefined;
}

/** Octal modes whose "other" digit has the write bit, and symbolic modes granting w to o or a. */
const WORLD_WRITABLE_MODE = lazyRe2('^(?:[0-7]{0,2}[0-7][0-7][2367]|[ugoa]*[ao][ugoa]*[+=][rwxXst]*w[rwxXst]*)$');
function worldWritable(mode: string): boolean {
  return mode.split(',').some((part) => WORLD_WRITABLE_MODE().test(part));
}

/** Block devices (not /dev/null, /dev/zero, /dev/stdout, /dev/tty, /dev/fd/…). */
const BLOCK_DEVICE = lazyRe2(
  '^/dev/(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme[0-9]|mmcblk[0-9]|r?disk[0-9]|loop[0-9]|md[0-9]|dm-[0-9]|mapper/|nbd[0-9]|sr[0-9]|fd[0-9]|disk/)',
);

function isBlockDevice(path: string): boolean {
  return BLOCK_DEVICE().test(path);
}

const FORMATTERS = new Set([
  'mke2fs',
  'mkswap',
  'wipefs',
  'fdisk',
  'sfdisk',
  'cfdisk',
  'gdisk',
  'sgdisk',
  'parted',
  'newfs',
]);

function formats(segment: Segment): PackFinding<RuleId> | undefined {
  const isMkfs = segment.name === 'mkfs' || segment.name.startsWith('mkfs.') || segment.name.startsWith('newfs_');
  if (!isMkfs && !FORMATTERS.has(segment.name)) return undefined;
  const args = scan(segment.argv);
  // Listing and dry runs are reads.
  if (segment.name !== 'mkswap' && !isMkfs && hasAny(args, 'l', 'list', 'n', 'no-act', 'print')) return undefined;
  if (segment.name === 'parted' && args.positionals.some((p) => p.text === 'print')) return undefined;
  if (args.positionals.length === 0) return undefined; // usage / --help
  return { rule: 'format-device', detail: args.positionals.map((p) => p.text).join(' ') };
}

function deviceWrites(segment: Segment): PackFinding<RuleId> | undefined {
  if (segment.name === 'dd') {
    for (const word of segment.argv.slice(1)) {
      if (word.startsWith('of=') && isBlockDevice(word.slice(3))) return { rule: 'device-write', detail: word };
    }
  }
  if (segment.name === 'shred' || segment.name === 'blkdiscard') {
    const device = scan(segment.argv, {
      withValue: ['n', 's', 'iterations', 'size', 'o', 'l', 'offset', 'length'],
    }).positionals.find((p) => isBlockDevice(p.text));
    if (device !== undefined) return { rule: 'device-write', detail: device.text };
  }
  for (const r of segment.redirects) {
    const writes = r.op === '>' || r.op === '>>' || r.op === '>|' || r.op === '&>' || r.op === '&>>' || r.op === '<>';
    if (writes && isBlockDevice(r.target)) return { rule: 'device-write', detail: `${r.op} ${r.target}` };
  }
  return undefined;
}

/**
 * `name(){ … name|name& … }`: a function definition whose body pipes the function into itself.
 * Anchored at the start of the segment's text, so `echo ':(){ :|:& };:'` (data) is not one.
 */
const FUNCTION_DEFINITION = lazyRe2(
  '^\\s*(?:function\\s+)?([A-Za-z_:.][A-Za-z0-9_:.-]*)\\s*\\(\\s*\\)\\s*\\{([^}]*)\\}',
);

function forkBomb(segment: Segment, env: PackEnv): PackFinding<RuleId> | undefined {
  // Shape 1: the text holds the definition (however the parser split the body). The cheap test first.
  const text = segment.text;
  const match =
    text.includes('(') && text.includes('{') && text.includes('|') ? FUNCTION_DEFINITION().exec(text) : null;
  if (match !== null) {
    const name = match[1]!;
    const body = match[2]!.split(' ').join('');
    if (body.includes(`${name}|${name}`) && body.includes('&'))
      return { rule: 'fork-bomb', detail: `function ${name}` };
  }
  // Shape 2: the body's segments: `:` piped into `:` in the background. `:` is a no-op builtin; piping it
  // into itself has no other use.
  const previous = env.segments[env.index - 1];
  const next = env.segments[env.index + 1];
  const piped = segment.operator === '|' || segment.operator === '|&';
  const backgrounded = segment.flags.background === true || next?.operator === '&';
  if (segment.name === ':' && piped && previous?.name === ':' && previous.depth === segment.depth && backgrounded) {
    return { rule: 'fork-bomb', detail: ':|:&' };
  }
  return undefined;
}

export const filesystemPack = definePack<RuleId>({
  name: 'filesystem',
  kind: 'guard',
  description:
    'recursive deletion of /, system dirs, ~, the project or its parents; mkfs, dd to devices, chmod -R on /, fork bombs',
  commands: [
    'rm',
    'find',
    'chmod',
    'chown',
    'chgrp',
    'dd',
    'shred',
    'blkdiscard',
    'mkfs',
    'mke2fs',
    'mkswap',
    'wipefs',
    'fdisk',
    'sfdisk',
    'cfdisk',
    'gdisk',
    'sgdisk',
    'parted',
    ':',
  ],
  rules: RULES,
  classify(segment, env) {
    const name = segment.name;
    switch (name) {
      case 'rm':
        return rm(segment, env);
      case 'find':
        return find(segment, env);
      case 'chmod':
      case 'chown':
      case 'chgrp':
        return permissions(segment, env) ?? deviceWrites(segment);
      case 'rmdir':
        return undefined; // only removes empty directories
      default:
        return formats(segment) ?? deviceWrites(segment) ?? forkBomb(segment, env);
    }
  },
});
