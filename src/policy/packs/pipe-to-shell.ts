/**
 * Running code fetched from the network without looking at it: `curl … | sh`, `wget -O- … | sudo bash`,
 * `bash <(curl …)`, `python3 - < <(curl …)`. Whatever the server sends (or an attacker in between)
 * runs with the user's rights → ask; as root → deny.
 * Recognised structurally: an interpreter that reads its program from stdin, downstream of a network
 * fetcher in the same pipeline (or fed by one through a process substitution). A fetched file that is
 * merely saved, or piped into a non-interpreter (`curl … | jq`), is not this pack's concern.
 */
import type { Segment } from '../../shell/types.js';
import { lazyRe2 } from '../../util/re2.js';
import { runsAsRoot, scan, upstreamOf } from './argv.js';
import { definePack, type PackEnv, type PackFinding } from './types.js';

const RULES = {
  'pipe-to-shell': {
    verdict: 'ask',
    message:
      'runs a script straight from the network without anyone reading it. Download it to a file first, read it, then run it (curl -fsSLo install.sh URL && less install.sh); a human confirms.',
  },
  'pipe-to-root-shell': {
    verdict: 'deny',
    message:
      'runs a script straight from the network as root (| sudo sh): whatever the server sends owns the machine. Download it, review it, and have a human run it.',
  },
} as const;
type RuleId = keyof typeof RULES;

const FETCHERS = new Set(['curl', 'wget', 'fetch', 'http', 'https', 'xh', 'aria2c', 'nc', 'ncat', 'netcat', 'socat']);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'busybox']);
const INTERPRETERS = new Set(['perl', 'ruby', 'node', 'php', 'lua', 'pwsh', 'deno', 'bun', 'osascript']);

function isInterpreter(name: string): boolean {
  if (SHELLS.has(name) || INTERPRETERS.has(name)) return true;
  // python, python3, python3.12, pypy3
  return name.startsWith('python') || name.startsWith('pypy');
}

/** The interpreter takes its program from stdin: no script operand, `-`, or `sh -s`. */
function readsProgramFromStdin(segment: Segment): boolean {
  if (segment.flags.inlineCode !== undefined) return false; // python -c / node -e: the program is the argument
  const args = scan(segment.argv, { stopAtPositional: true, withValue: ['O', 'o', 'W', 'X', 'm'] });
  if (args.values.has('m')) return false; // python -m module
  if (args.flags.has('c')) return false; // sh -c 'string': the parser judges the string
  const first = args.positionals[0];
  return first === undefined || first.text === '-' || args.flags.has('s');
}

/** `bash <(curl …)`, `source <(wget -O- …)`: a fetcher inside a substitution feeding an interpreter. */
const FETCH_SUBSTITUTION = lazyRe2(
  '(?:<\\(|\\$\\(|`)\\s*(?:(?:sudo|command|env)\\s+)*(?:curl|wget|fetch|http|https|xh)\\b',
);

function fedBySubstitution(segment: Segment, env: PackEnv): boolean {
  const operandTexts = [
    ...segment.argv.slice(1),
    ...segment.redirects.filter((r) => r.op === '<').map((r) => r.target),
  ];
  if (operandTexts.some((t) => t.includes('(') && FETCH_SUBSTITUTION().test(t))) return true;
  // Or structurally: a fetcher one level down, in a (process) substitution, next to this segment.
  const dynamic = segment.dynamicArgs.length > 0 || segment.redirects.some((r) => r.dynamic);
  return (
    dynamic &&
    env.segments.some(
      (s) =>
        FETCHERS.has(s.name) &&
        s.depth === segment.depth + 1 &&
        (s.context === 'process-substitution' || s.context === 'substitution'),
    )
  );
}

function classifyPipeToShell(segment: Segment, env: PackEnv): PackFinding<RuleId> | undefined {
  const finding = (shell: Segment, source: string): PackFinding<RuleId> => ({
    rule: runsAsRoot(shell) || shell.name === 'su' ? 'pipe-to-root-shell' : 'pipe-to-shell',
    detail: `${source} → ${runsAsRoot(shell) ? 'sudo ' : ''}${shell.name}`,
  });
  // The fetcher itself, when the parser flagged that it feeds a shell (the shell may be out of view).
  if (FETCHERS.has(segment.name) && segment.flags.pipeToShell === true)
    return { rule: 'pipe-to-shell', detail: `${segment.name} | shell` };
  if (segment.name === 'source' || segment.name === '.' || segment.name === 'eval' || isInterpreter(segment.name)) {
    if (fedBySubstitution(segment, env)) return finding(segment, 'network substitution');
  }
  if (!isInterpreter(segment.name) || !readsProgramFromStdin(segment)) return undefined;
  const fetcher = upstreamOf(env.segments, env.index).find((s) => FETCHERS.has(s.name));
  return fetcher === undefined ? undefined : finding(segment, fetcher.name);
}

export const pipeToShellPack = definePack<RuleId>({
  name: 'pipe-to-shell',
  kind: 'guard',
  description: 'curl/wget … | sh, bash <(curl …): running unreviewed code from the network (as root: deny)',
  commands: [...FETCHERS, ...SHELLS, ...INTERPRETERS, 'python', 'python3', 'source', '.', 'eval'],
  rules: RULES,
  classify: classifyPipeToShell,
});
