// A first draft of a grammar entry (src/catalog/grammar/<program>.yml) from a program's --help, for a
// contributor to review line by line against the manual before committing it; never run by the build.
//
//   node scripts/catalog/draft-entry.mjs PROGRAM [HELP-ARGS…]      (HELP-ARGS default: --help)
//
// It copies the option column of the help text (`-f, --file=FILE`, `--color[=WHEN]`, `-E, --dedup <column>`)
// into the entry's option syntax; operands, subcommands and the merge rule are left for the reviewer.
import { spawnSync } from 'node:child_process';

const [program, ...rest] = process.argv.slice(2);
if (!program || !/^[\w.+-]+$/.test(program)) {
  console.error('usage: node scripts/catalog/draft-entry.mjs PROGRAM [HELP-ARGS…]');
  process.exit(2);
}
const helpArgs = rest.length > 0 ? rest : ['--help'];
const run = (args) => {
  const r = spawnSync(program, args, { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } });
  return `${r.stdout ?? ''}${r.stderr ?? ''}`;
};
const version = run(['--version']).split('\n')[0]?.trim() || `${program} (version unknown)`;

const options = [];
const seen = new Set();
// The option column: spellings, each with at most one placeholder (`-E, --dedup <column>`, `-M --machine=X`,
// `-i|--install <.deb file>`), up to the description (two spaces in GNU's help, one in util-linux's).
const SPELLING =
  /[ \t]*(-{1,2}[^\s,|<[=]+(?:\[=?[^\]]*\]|=[^\s,]+)?(?: (?:<[^>]+>|[A-Z][A-Z0-9_.:-]*(?![a-z])|[a-z][\w-]*(?=,)))?)[ \t]*([,|])?/y;
function optionColumn(line) {
  if (!/^\s{1,10}-/.test(line)) return undefined;
  const parts = [];
  SPELLING.lastIndex = 0;
  for (let m; (m = SPELLING.exec(line));) {
    parts.push(m[1]);
    if (!m[2] && !/^\s*-/.test(line.slice(SPELLING.lastIndex))) break;
  }
  return parts.length > 0 ? parts.join(', ') : undefined;
}

for (const line of run(helpArgs).split('\n')) {
  const spec = optionColumn(line);
  if (!spec) continue;
  const names = spec.split(/,\s*/).map((s) => s.split(/[\s=[]/)[0]);
  if (names.some((n) => seen.has(n))) continue;
  names.forEach((n) => seen.add(n));
  options.push(spec);
}

const quote = (s) => `'${s.replace(/'/g, "''")}'`;
console.log(`source: ${quote(`${version}, \`${program} ${helpArgs.join(' ')}\``)}`);
console.log(`program: ${program}`);
console.log('merge: replace # or extend: see docs/catalogue.md');
console.log('options:');
for (const o of options) console.log(`  - ${quote(o)}`);
console.log('args: [] # operands: { name, template, variadic, optional, isCommand, isScript, values }');
