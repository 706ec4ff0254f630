/**
 * Checks that prove a small program given as a value only prints (the `check:` of an operand in an entry):
 * an awk program without commands, pipes, output redirections or extension hooks. Anything the check does
 * not recognise is "no" — the program then counts as code the command runs, which knowledge never allows.
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
 * from paths the program names), no `input_filename`-style module metadata; and that does not read the
 * environment (`env`, `$ENV`), which holds the tokens of the program that runs it (`gh api --jq`) or of the
 * shell. Reading its input and printing is all that is left. A field named env (`.env`, `.spec.env`) is data.
 */
export function jqPure(program: string): boolean {
  return (
    program.length <= 4096 &&
    !/\b(?:import|include|modulemeta|get_search_list|\$__prog_args)\b/.test(program) &&
    !/\$ENV\b|\$__loc__|(?<![.\w$"])env\b/.test(program)
  );
}

/** A yq expression that cannot load files (`load`, `load_str`, `load_xml`, …) or read the environment into output files. */
export function yqPure(program: string): boolean {
  return program.length <= 4096 && !/\bload\w*\b|\bsplit_doc\b|\bfile_?index\b/.test(program);
}

/** sed commands that only print or work on the pattern/hold space. */
const SED_PLAIN_COMMANDS = new Set([
  '=',
  'd',
  'D',
  'g',
  'G',
  'h',
  'H',
  'l',
  'n',
  'N',
  'p',
  'P',
  'q',
  'Q',
  'x',
  'z',
  'F',
]);

/**
 * Whether a sed script only prints: a small recogniser of sed's grammar (addresses, `!`, `{ }`, labels and
 * branches, `s` and `y` with any delimiter and bracket expressions, `a`/`i`/`c` text). Anything it does not
 * recognise — and `w`, `W`, `r`, `R`, `e`, `v`, an `s` flag other than g, p, i, I, m, M or a number — is
 * "no".
 */
export function sedScriptPrintsOnly(script: string): boolean {
  let i = 0;
  const n = script.length;
  const skipBlank = (): void => {
    while (i < n && (script[i] === ' ' || script[i] === '\t')) i++;
  };
  /** Past a delimited part (`/re/`, `s/a/b/`), honouring `\` escapes and `[…]` bracket expressions. */
  const delimited = (delim: string, brackets: boolean): boolean => {
    while (i < n) {
      const c = script[i]!;
      if (c === '\\') {
        i += 2;
        continue;
      }
      if (c === '\n' && delim !== '\n') return false;
      if (brackets && c === '[') {
        // `[]…]` and `[^]…]`: a leading `]` is literal; `[:alpha:]` classes end with `:]`.
        let j = i + 1;
        if (script[j] === '^') j++;
        if (script[j] === ']') j++;
        while (j < n && script[j] !== ']') {
          if (script[j] === '[' && (script[j + 1] === ':' || script[j + 1] === '.' || script[j + 1] === '=')) {
            const close = script.indexOf(`${script[j + 1]}]`, j + 2);
            if (close === -1) return false;
            j = close + 2;
          } else j++;
        }
        if (j >= n) return false;
        i = j + 1;
        continue;
      }
      i++;
      if (c === delim) return true;
    }
    return false;
  };
  const address = (): boolean => {
    const c = script[i];
    if (c === undefined) return true;
    if (/[0-9]/.test(c)) {
      while (i < n && /[0-9~]/.test(script[i]!)) i++;
      return true;
    }
    if (c === '$') {
      i++;
      return true;
    }
    if (c === '/' || c === '\\') {
      let delim = '/';
      if (c === '\\') {
        delim = script[i + 1] ?? '';
        if (delim === '' || delim === '\n' || delim === '\\') return false;
        i++;
      }
      i++;
      if (!delimited(delim, true)) return false;
      while (i < n && (script[i] === 'I' || script[i] === 'M')) i++;
      return true;
    }
    return true; // no address
  };
  /** To the end of the command: `;`, newline, `}` or end (for labels and branch targets). */
  const toEnd = (): void => {
    while (i < n && script[i] !== ';' && script[i] !== '\n' && script[i] !== '}') i++;
  };
  let depth = 0;
  while (i < n) {
    skipBlank();
    const start = script[i];
    if (start === undefined) break;
    if (start === ';' || start === '\n') {
      i++;
      continue;
    }
    if (start === '#') {
      while (i < n && script[i] !== '\n') i++;
      continue;
    }
    if (start === '}') {
      if (--depth < 0) return false;
      i++;
      continue;
    }
    if (!address()) return false;
    skipBlank();
    if (script[i] === ',') {
      i++;
      skipBlank();
      if (script[i] === '+' || script[i] === '~') i++;
      if (!address()) return false;
      skipBlank();
    }
    while (script[i] === '!') {
      i++;
      skipBlank();
    }
    const command = script[i];
    if (command === undefined) return false;
    i++;
    if (command === '{') {
      depth++;
      continue;
    }
    if (SED_PLAIN_COMMANDS.has(command)) {
      // `l 5`, `q 1`, `Q 1`: an optional number.
      skipBlank();
      while (i < n && /[0-9]/.test(script[i]!)) i++;
      continue;
    }
    if (command === ':' || command === 'b' || command === 't' || command === 'T') {
      toEnd();
      continue;
    }
    if (command === 'a' || command === 'i' || command === 'c') {
      // Text to print: to the end of the line, continued by a trailing backslash.
      while (i < n) {
        if (script[i] === '\\' && script[i + 1] === '\n') i += 2;
        else if (script[i] === '\n') break;
        else i++;
      }
      continue;
    }
    if (command === 's' || command === 'y') {
      const delim = script[i];
      if (delim === undefined || delim === '\n' || delim === '\\' || delim === ' ') return false;
      i++;
      if (!delimited(delim, command === 's') || !delimited(delim, false)) return false;
      if (command === 's') {
        while (i < n && /[gpiImM0-9]/.test(script[i]!)) i++;
        // Anything else right after the flags (`e`, `w file`) is a command that runs or writes.
        skipBlank();
        if (i < n && script[i] !== ';' && script[i] !== '\n' && script[i] !== '}' && script[i] !== '#') return false;
      }
      continue;
    }
    return false; // w, W, r, R, e, v, and anything unknown
  }
  return depth === 0;
}
