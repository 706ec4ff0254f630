/**
 * Checks that prove a small program given as a value only prints (the `check:` of an operand in an entry):
 * an awk program without commands, pipes, output redirections or extension hooks. Anything the check does
 * not recognise is "no" — the program then counts as code the command runs, which knowledge never allows.
 * (sed's check is the read-only pack's sed recogniser: src/policy/packs/looks.ts.)
 */

/** Statements that run programs, read or write files, or load code. */
const AWK_REACHES_OUT = /\b(?:system|getline|close|fflush|PROCINFO)\b|[@|]/;

/**
 * Whether an awk program only computes and prints to stdout. String literals are blanked first (a `>` or `|`
 * inside a string is text); regular-expression literals too, where one may start. Then: no system /
 * getline / close / fflush / PROCINFO / `@` (gawk's @include, @load, indirect calls), no pipe, and no `>` after
 * `print`/`printf` in a statement (an output redirection; a comparison there is refused too).
 */
export function awkPrintsOnly(program: string): boolean {
  if (program.length > 4096) return false;
  let code = '';
  let i = 0;
  let prev = '';
  while (i < program.length) {
    const c = program[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < program.length && program[j] !== '"') j += program[j] === '\\' ? 2 : 1;
      if (j >= program.length) return false;
      code += '""';
      i = j + 1;
      prev = '"';
      continue;
    }
    if (c === '/' && (prev === '' || '(,{;!~&|\n'.includes(prev))) {
      let j = i + 1;
      while (j < program.length && program[j] !== '/' && program[j] !== '\n') {
        if (program[j] === '\\') j++;
        else if (program[j] === '[') {
          j++;
          while (j < program.length && program[j] !== ']') j++;
        }
        j++;
      }
      if (j >= program.length || program[j] !== '/') return false;
      code += '//';
      i = j + 1;
      prev = '/';
      continue;
    }
    code += c;
    if (c !== ' ' && c !== '\t') prev = c;
    i++;
  }
  if (AWK_REACHES_OUT.test(code.replace(/\|\|/g, '&&'))) return false;
  return code.split(/[;{}\n]/).every((statement) => {
    const print = statement.search(/\bprintf?\b/);
    return print === -1 || !statement.slice(print).includes('>');
  });
}

/**
 * A jq program that cannot load files: no `import` / `include` (which read modules and JSON data files
 * from paths the program names), no `input_filename`-style module metadata. Reading stdin and printing is
 * all that is left.
 */
export function jqPure(program: string): boolean {
  return program.length <= 4096 && !/\b(?:import|include|modulemeta|get_search_list|\$__prog_args)\b/.test(program);
}

/** A yq expression that cannot load files (`load`, `load_str`, `load_xml`, …) or read the environment into output files. */
export function yqPure(program: string): boolean {
  return program.length <= 4096 && !/\bload\w*\b|\bsplit_doc\b|\bfile_?index\b/.test(program);
}
