/**
 * The normalized form of a shell command: what every tier that judges Bash sees. The parser
 * (src/shell/parse.ts) produces it from a real grammar; rules, packs and write-target extraction consume
 * it. Nothing downstream ever looks at the raw command string.
 */

/** How a segment is joined to the one before it. */
export const OPERATORS = ['&&', '||', ';', '|', '|&', '&', '\n'] as const;
export type Operator = (typeof OPERATORS)[number];

/** Where a segment was found. */
export const SEGMENT_CONTEXTS = [
  'command', // a simple command at top level (or in a list, pipeline, if/for/while/case body, function)
  'subshell', // ( … ) or { …; }
  'substitution', // $( … ) or ` … `
  'process-substitution', // <( … ) or >( … )
  'shell-string', // bash|sh|zsh|dash -c '…', eval '…'
  'heredoc', // a heredoc body fed to a shell interpreter (bash <<EOF …)
  'find-exec', // find … -exec/-execdir/-ok cmd {} ;|+
  'xargs', // xargs [opts] cmd (runs with arguments it reads at run time)
] as const;
export type SegmentContext = (typeof SEGMENT_CONTEXTS)[number];

export const REDIRECT_OPS = ['>', '>>', '>|', '&>', '&>>', '<', '<<', '<<-', '<<<', '>&', '<&', '<>'] as const;
export type RedirectOp = (typeof REDIRECT_OPS)[number];

export interface Redirect {
  op: RedirectOp;
  /** File descriptor written before the operator (`2>`), if any. */
  fd?: number;
  /** The target word after quote removal (`/dev/null`, `out.txt`, `1` for `>&1`). */
  target: string;
  /** The target contains an expansion the parser cannot resolve ($VAR, $(…), a glob). */
  dynamic: boolean;
}

export interface Segment {
  /**
   * The command's words after quote removal and wrapper unwrapping: argv[0] is the command as written
   * (`/usr/bin/rm`, `rm`), the rest its arguments. Words are literal text; see `dynamicArgs`.
   */
  argv: string[];
  /** The command name used by rules: basename of argv[0] without a leading backslash (`rm`). */
  name: string;
  /** Indices into argv of words containing expansions the parser cannot resolve ($VAR, $(…), globs). */
  dynamicArgs: number[];
  /** The operator joining this segment to the previous one at the same level (undefined for the first). */
  operator?: Operator;
  /** Wrappers peeled off to reach this command, outermost first: `sudo`, `env`, `timeout`, `bash -c`, … */
  wrappers: string[];
  /** `VAR=value` assignments before the command (including `env VAR=value`). */
  assignments: Record<string, string>;
  redirects: Redirect[];
  context: SegmentContext;
  /** 0 at top level; +1 per level of substitution / shell string / subshell. */
  depth: number;
  /**
   * Where the segment runs when an earlier literal `cd`/`pushd` in the same shell moved it (`cd sub && rm x`
   * → `sub`; `cd /tmp && cd a` → `/tmp/a`; bare `cd` → `~`), as written and relative to the command's own
   * working directory. Undefined: the command's working directory (or unknown, see `flags.cwdUnknown`).
   * Where the `cd` succeeded; `cwdOrElse` says where the segment runs if it failed.
   */
  cwd?: string;
  /**
   * The other directories the segment may run in, because a `cd` joined to what follows by `;`, a newline
   * or `&` may have failed (`cd missing; rm -rf build` removes ./build then): as `cwd` writes them, `''` for
   * the command's own directory. Relative paths are judged in each, and the strictest verdict wins.
   */
  cwdOrElse?: string[];
  /** Facts a rule may care about. */
  flags: {
    /**
     * `ssh host 'cmd'`: the command runs on this host, not here; `docker exec db cmd`, `kubectl exec pod -- cmd`:
     * in this container (its wrappers say which: `ssh`, `docker exec`, …). Its paths are over there.
     */
    remote?: string;
    /** `python -c`, `node -e`, `perl -e`, `ruby -e`, …: the language of inline code it runs. */
    inlineCode?: string;
    /** The argv index of the word that holds that inline program (`node -e CODE` → 2): code, never a path. */
    inlineCodeArg?: number;
    /**
     * A pipe feeds a program to an interpreter (`curl … | sh`, `… | sudo python3 -`): set on the segments
     * that feed it (the stage before the interpreter) and on the interpreter segment itself.
     */
    pipeToShell?: boolean;
    /**
     * Inside an if/while/until/for/case statement or a function body (it may run once, many times or not at
     * all, whatever the operators around it say: the walk flattens those statements), or negated with `!`
     * (the `&&` after it runs when it failed).
     */
    conditional?: boolean;
    /** Run in the background (`cmd &`). */
    background?: boolean;
    /** xargs / find -exec: more arguments are appended at run time. */
    appendsArgs?: boolean;
    /**
     * An earlier `cd` went somewhere hookwise cannot know (`cd $DIR`, `cd -`, `popd`, a `cd` inside an
     * `if`/loop body or after `||`): relative paths in this segment cannot be resolved.
     */
    cwdUnknown?: boolean;
  };
  /**
   * The heredoc / herestring data the command reads on stdin (bodies joined, as written), when it has any.
   * Data to a data sink, code to an interpreter (`psql <<SQL`, `python3 - <<EOF`): either way it is part of
   * what the call does, so memory keys cover it.
   */
  stdin?: string;
  /** The source text of the segment, for explain output. */
  text: string;
}

export type ParseResult =
  | { ok: true; segments: Segment[] }
  /** Syntax error, unbalanced quotes, an expansion in command position, depth exceeded, …: never allow. */
  | { ok: false; reason: string; segments: Segment[] };

export interface WriteTarget {
  /** Index into the segment list. */
  segment: number;
  /** The path as written (relative paths are relative to the command's cwd). */
  path: string;
  /** What writes it: `>`, `>>`, `tee`, `cp`, `mv`, `rm`, `sed -i`, `git checkout`, … */
  via: string;
  /** The path contains an expansion or glob (judged as written, e.g. `tests/*`). */
  dynamic: boolean;
  /**
   * The segment's working directory relative to the command's (its `cwd`, after a literal `cd`); a relative
   * `path` is relative to it. Undefined: the command's own working directory.
   */
  cwd?: string;
  /**
   * The program rewrites a directory here file by file (a formatter given `.`), never entering directories
   * of these names: judged as every path below it (path-policy judgeTreeWrite) when it is a directory.
   */
  treeSkips?: string[];
}

export interface WriteAnalysis {
  targets: WriteTarget[];
  /** Segments that write somewhere hookwise cannot determine (→ ask). */
  unknown: { segment: number; reason: string }[];
}
