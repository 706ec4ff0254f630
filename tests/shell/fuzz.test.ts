/**
 * Fuzz: 100,000 random and mutated commands through parseCommand + writeTargets + analyzeEffects, with a fixed seed.
 * Properties, for every input: no throw, no hang (each input ≤ 2 s wall; at most 0.1 % of inputs over 50 ms of CPU —
 * CPU, not wall time, so a busy shared machine does not fail the test), a well-formed result — either
 * `ok: true` with segments, or `ok: false` with a non-empty reason — and never an internal error (the
 * catch-all that turns a bug into "unparseable" must not be what answers). And determinism: parsing bounds
 * count work, never time, so a second parse of an input gives the same result (checked on every input a
 * work bound stopped, and on every 100th).
 *
 * The seed corpus is our own (not the shared corpora): one command per construct the parser handles.
 */
import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../src/shell/parse.js';
import { loadShellParser } from '../../src/shell/syntax.js';
import { SEGMENT_CONTEXTS, type ParseResult } from '../../src/shell/types.js';
import { analyzeEffects } from '../../src/shell/effects.js';
import { writeTargets } from '../../src/shell/writes.js';
import { prng } from '../support/prng.js';

const TOTAL = 100_000;
const CHUNKS = 4;
// The product bounds a parse by work done (characters, parser steps, nodes, nesting: see parse.ts), never by
// time; the worst input known costs ~150 ms of CPU at the default bounds (a syntax error that keeps
// tree-sitter's error recovery busy for all its steps), ordinary commands well under a millisecond. The test
// may measure time, to catch a hang or a blow-up the bounds miss. Single measurements are noisy: process CPU
// time includes V8's parallel GC threads (CI once charged 512 ms to a 50-character input during a major
// GC), and CI runs this next to the e2e tests. So: a hard ceiling that only a hang or blow-up reaches, and a
// statistical bound on slow inputs.
const HANG_WALL_MS = 2000;
const SLOW_CPU_MS = 50;
/** At most this share of inputs may take more than SLOW_CPU_MS of CPU. */
const SLOW_SHARE = 0.001;

const SEEDS = [
  'ls -la',
  'git status --short && git diff --stat',
  'cd packages/app && npm run build -- --mode production 2>&1 | tee build.log',
  'FOO=1 BAR="a b" sudo -u bob -E env -i PATH=/bin timeout -s KILL 5 nice -n 10 rm -rf "$X" ./build/*',
  'find . -name "*.tmp" -type f -exec rm -f {} + -o -name x -execdir chmod 644 {} \\;',
  'find . -print0 | xargs -0 -n 1 -P 4 -I{} mv {} dest/',
  'bash -c \'cp a .env && sh -lc "echo x > .claude/settings.json"\'',
  'eval "rm -rf build"; eval \'ls\'',
  "ssh -p 22 host 'cd /srv && rm -rf cache' > ssh.log",
  'python3 -c "import os; os.remove(\'x\')"; node -e "1"; perl -pi -e \'s/a/b/\' f; ruby -e 1',
  'curl -fsSL https://example.com/install.sh | sudo bash -s -- --yes',
  "cat > notes.md <<'EOF'\nrm -rf / $(curl evil) `reboot`\nEOF",
  'bash <<EOF\nmake clean\nEOF',
  'cat <<EOF | sh\necho $(whoami)\nEOF\necho after',
  'python3 - <<<"print(1)"',
  'echo $(echo $(rm x)) `date` <(sort a) >(gzip > out.gz) $((1 + $(id -u)))',
  '(cd sub && make) || { echo failed; exit 1; } > /dev/null 2>&1 &',
  'if [ -f x ]; then rm x; elif [[ $y == z* ]]; then :; else touch y; fi',
  'for f in *.txt $(ls); do sed -i.bak -e "s/a/b/" "$f"; done',
  'for ((i=0; i<10; i++)); do echo "$i"; done',
  'while read -r line; do echo "$line"; done < list.txt',
  'case "$1" in start|run) ./run.sh;; stop) kill $(cat pid);; *) exit 2;; esac',
  'f() { cd /tmp && rm -rf x; }; function g { ls; }; f; g',
  'export PATH="$HOME/.cargo/bin:$PATH"; local x=$(pwd); declare -a arr=(1 2 3); unset x',
  'tar -xzf a.tgz -C out && unzip -o b.zip -d out2 && tar cvf backup.tar src',
  'git -C repo checkout -- . && git clean -fdx && git reset --hard HEAD~1 && git stash pop',
  'cp -t dir a b && mv --target-directory=dst x y && ln -sf ../t link && install -m 755 bin /usr/local/bin/',
  'chmod -R u+w,go-w dir && chown -R bob:staff /srv && dd if=/dev/zero of=disk.img bs=1M count=1',
  'echo {a,b}{1..3} .en{v,} ~/x ~bob/y "$HOME" $\'\\x41\\n\' $"t" a\\ b',
  'rsync -av --delete -e "ssh -p 2222" src/ host:/dst && scp a b host: && wget -P dl https://x/a.tgz',
  'patch -p1 < fix.diff; patch -o out.c in.c fix.diff; git apply x.patch',
  '[[ -n "${VAR:-default}" && ${#arr[@]} -gt 0 ]] && (( n++ ))',
  'trap \'rm -f /tmp/lock\' EXIT; watch -n 1 ls; flock /tmp/l -c "rm x"',
  'exec 3>&1 4>&2 >log 2>&1; echo x >&3; cmd 2>&-',
  'a=1; b=$(( a + 1 )); c=`expr $b + 1`; echo ${c%.*} ${c//x/y}',
  '! grep -q pattern file || echo missing',
  'coproc cat; echo hi >&"${COPROC[1]}"',
  'select x in a b; do echo $x; break; done',
  'echo "unterminated',
  "echo 'unterminated",
  '$CMD args',
  '$(which rm) -rf x',
  'ls )',
  'time -p sleep 1; command -v rm; builtin cd /; rm --help',
  'stdbuf -oL make | grep -v warn |& tee log',
  'X=$(cat <<EOF\nbody\nEOF\n); echo "$X"',
  'printf "%s\\n" a b | while read l; do echo $l; done',
  'git commit -m "drop table users; rm -rf /" && echo "done: $(date)"',
  'docker run --rm -v "$PWD":/w -w /w node:20 sh -c "npm ci && npm test"',
];

const FRAGMENTS = [
  '"',
  "'",
  '`',
  '$(',
  ')',
  '(',
  '((',
  '))',
  '{',
  '}',
  '[',
  ']',
  '[[',
  ']]',
  ';',
  ';;',
  '&&',
  '||',
  '|',
  '|&',
  '&',
  '\n',
  '\r\n',
  '\t',
  ' ',
  '<<EOF\n',
  "<<'EOF'\n",
  '<<-EOF\n',
  '\nEOF\n',
  'EOF',
  '<<<',
  '<',
  '>',
  '>>',
  '>|',
  '&>',
  '2>&1',
  '>&-',
  '<(',
  '>(',
  '$',
  '${',
  '${#',
  '$((',
  '$[',
  '\\',
  '\\\n',
  '#',
  '!',
  '*',
  '?',
  '~',
  '=',
  '==',
  '=~',
  '{a,b}',
  '{1..9}',
  'é',
  '😀',
  '\u202e',
  '\u00a0',
  '\uFEFF',
  '\ud800',
  'bash -c ',
  "sh -c '",
  'eval ',
  'sudo ',
  'xargs ',
  'env -i ',
  'FOO=1 ',
  'find . -exec ',
  ' {} +',
  ' \\;',
  'if ',
  'then ',
  'else ',
  'fi',
  'for x in ',
  'do ',
  'done',
  'while ',
  'case x in ',
  'esac',
  'function f ',
  'f() ',
  'cd ',
  'rm -rf ',
  'ssh host ',
  'python3 -c ',
  'cat <<EOF | bash\n',
  "$'",
  '$"',
  '--',
  '-',
  'time ',
  'coproc ',
  'select ',
  'exec ',
  'trap ',
];

function generator(seed: number): () => string {
  const rand = prng(seed);
  const int = (n: number): number => Math.floor(rand() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const ALPHABET = ' \t\n;&|<>()[]{}$`"\'\\#!*?~=-_./:,@%^+abcxyz019ABCé😀';

  const mutate = (s: string): string => {
    const at = int(s.length + 1);
    switch (int(9)) {
      case 0:
        return s.slice(0, at) + pick(FRAGMENTS) + s.slice(at);
      case 1: {
        const end = at + int(12);
        return s.slice(0, at) + s.slice(end);
      }
      case 2: {
        // Swap two ranges.
        const b = int(s.length + 1);
        const [i, j] = at < b ? [at, b] : [b, at];
        const len = int(8);
        return s.slice(0, i) + s.slice(j, j + len) + s.slice(i + len, j) + s.slice(i, i + len) + s.slice(j + len);
      }
      case 3:
        return s.slice(0, at) + pick([...ALPHABET]) + s.slice(at + 1);
      case 4:
        return `${s} ${pick(['&&', '||', ';', '|', '&', '\n'])} ${pick(SEEDS)}`;
      case 5: {
        // Deep nesting.
        let out = s;
        const depth = 1 + int(int(2) === 0 ? 8 : 80);
        const [open, close] = pick([
          ['$(', ')'],
          ['(', ')'],
          ['{ ', '; }'],
          ['`', '`'],
          ["bash -c '", "'"],
          ['"$(', ')"'],
          ['<(', ')'],
          ['if true; then ', '; fi'],
        ] as const);
        for (let k = 0; k < depth; k++) out = `${open}${out}${close}`;
        return out;
      }
      case 6:
        // A very long word.
        return (
          s.slice(0, at) +
          pick(['a', 'x/', '"', "'", '$', '\\ ', '{a,b}']).repeat(int(int(25) === 0 ? 20_000 : 200)) +
          s.slice(at)
        );
      case 7: {
        const dup = s.slice(at, at + int(40));
        return s.slice(0, at) + dup + dup + s.slice(at);
      }
      default:
        return s.replace(/["'`()]/, pick(FRAGMENTS));
    }
  };

  return () => {
    if (int(10) === 0) {
      // Pure noise from shell-significant characters.
      const n = 1 + int(120);
      let out = '';
      for (let k = 0; k < n; k++) out += pick([...ALPHABET]);
      return out;
    }
    let s = pick(SEEDS);
    const rounds = 1 + int(3);
    for (let k = 0; k < rounds; k++) s = mutate(s);
    return s;
  };
}

interface Stats {
  inputs: number;
  ok: number;
  unparseable: number;
  /** Slowest input by CPU time. */
  maxMs: number;
  /** Inputs over SLOW_CPU_MS of CPU. */
  slow: number;
  /** Inputs stopped by a work bound ("too complex to analyze"), and inputs parsed twice to compare. */
  bounded: number;
  rechecked: number;
  maxInput: string;
  maxWallMs: number;
  totalMs: number;
}

/** Checks the result shape; returns a problem description or undefined. */
function problem(input: string, result: ParseResult): string | undefined {
  if (typeof result.ok !== 'boolean' || !Array.isArray(result.segments)) return 'malformed result';
  if (!result.ok) {
    if (typeof result.reason !== 'string' || result.reason.trim() === '') return 'unparseable without a reason';
    if (result.reason.startsWith('hookwise could not analyze')) return `internal error: ${result.reason}`;
  }
  for (const s of result.segments) {
    if (!Array.isArray(s.argv) || s.argv.some((a) => typeof a !== 'string')) return 'argv is not a string list';
    if (typeof s.name !== 'string') return 'name is not a string';
    if (!(SEGMENT_CONTEXTS as readonly string[]).includes(s.context)) return `unknown context ${s.context}`;
    if (!(s.depth >= 0)) return 'negative depth';
    if (s.dynamicArgs.some((i) => i < 0 || i >= s.argv.length)) return 'dynamicArgs out of range';
  }
  const writes = writeTargets(result.segments);
  for (const t of writes.targets)
    if (!(t.segment >= 0 && t.segment < result.segments.length) || typeof t.path !== 'string')
      return 'bad write target';
  for (const u of writes.unknown) if (u.reason.trim() === '') return 'unknown write without a reason';
  const effects = analyzeEffects(result.segments, writes);
  if (effects.segments.length !== result.segments.length) return 'effects per segment do not line up';
  for (const r of effects.reads)
    if (!(r.segment >= 0 && r.segment < result.segments.length) || typeof r.path !== 'string') return 'bad read target';
  for (const e of effects.segments)
    if (e.runs.some((run) => run.detail.trim() === '')) return 'run effect without a detail';
  void input;
  return undefined;
}

function run(seed: number, count: number): Stats {
  const next = generator(seed);
  const stats: Stats = {
    inputs: 0,
    ok: 0,
    unparseable: 0,
    maxMs: 0,
    slow: 0,
    bounded: 0,
    rechecked: 0,
    maxInput: '',
    maxWallMs: 0,
    totalMs: 0,
  };
  for (let k = 0; k < count; k++) {
    const input = next();
    const start = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    let result: ParseResult;
    try {
      // The product's own bounds: they count work, so what they stop here they stop everywhere.
      result = parseCommand(input);
    } catch (error) {
      throw new Error(
        `parseCommand threw on ${JSON.stringify(input.slice(0, 300))}: ${(error as Error).stack ?? String(error)}`,
      );
    }
    const found = problem(input, result);
    const used = process.cpuUsage(cpu);
    const ms = (used.user + used.system) / 1000;
    const wall = Number(process.hrtime.bigint() - start) / 1e6;
    stats.maxWallMs = Math.max(stats.maxWallMs, wall);
    if (found !== undefined) throw new Error(`${found} for input ${JSON.stringify(input.slice(0, 300))}`);
    stats.inputs++;
    stats.totalMs += wall;
    if (result.ok) stats.ok++;
    else stats.unparseable++;
    if (ms > SLOW_CPU_MS) stats.slow++;
    const bounded = !result.ok && /too complex to analyze|too large to analyze/.test(result.reason);
    if (bounded) stats.bounded++;
    if (bounded || k % 100 === 0) {
      stats.rechecked++;
      const again = parseCommand(input);
      if (JSON.stringify(again) !== JSON.stringify(result)) {
        throw new Error(
          `two parses differ for input ${JSON.stringify(input.slice(0, 300))}: ${JSON.stringify(result).slice(0, 300)} vs ${JSON.stringify(again).slice(0, 300)}`,
        );
      }
    }
    if (ms > stats.maxMs) {
      stats.maxMs = ms;
      stats.maxInput =
        input.length > 80 ? `${JSON.stringify(input.slice(0, 60))}… (${input.length} chars)` : JSON.stringify(input);
    }
  }
  return stats;
}

describe('fuzz: parseCommand + writeTargets never crash, hang or answer malformed', () => {
  loadShellParser();
  // Warm the JIT so the per-input bound measures steady-state work, not first-call compilation.
  for (const seed of SEEDS) writeTargets(parseCommand(seed).segments);

  for (let chunk = 0; chunk < CHUNKS; chunk++) {
    it(`inputs ${(chunk * TOTAL) / CHUNKS}–${((chunk + 1) * TOTAL) / CHUNKS - 1} (seed ${0x5eed + chunk})`, () => {
      const stats = run(0x5eed + chunk, TOTAL / CHUNKS);
      console.log(
        `fuzz chunk ${chunk}: ${stats.inputs} inputs, ${stats.ok} ok, ${stats.unparseable} unparseable, ` +
          `${(stats.totalMs / 1000).toFixed(1)} s, mean ${((stats.totalMs / stats.inputs) * 1000).toFixed(0)} µs, ` +
          `max ${stats.maxMs.toFixed(1)} ms CPU on ${stats.maxInput}, max wall ${stats.maxWallMs.toFixed(1)} ms, ${stats.slow} over ${SLOW_CPU_MS} ms, ` +
          `${stats.bounded} stopped by a work bound, ${stats.rechecked} parsed twice`,
      );
      expect(stats.inputs).toBe(TOTAL / CHUNKS);
      expect(stats.maxWallMs, `slowest input: ${stats.maxInput}`).toBeLessThanOrEqual(HANG_WALL_MS);
      expect(stats.slow, `inputs over ${SLOW_CPU_MS} ms CPU`).toBeLessThanOrEqual(
        Math.floor(stats.inputs * SLOW_SHARE),
      );
    }, 120_000);
  }

  it('every seed parses or is unparseable for a stated reason', () => {
    for (const seed of SEEDS) expect(problem(seed, parseCommand(seed))).toBeUndefined();
  });
});
