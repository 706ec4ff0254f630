/**
 * Words and getopt-style option scanning, shared by the wrapper unwrapper and the write-target extractors.
 * Each command gets a small spec (which options take a value) so that values are never mistaken for
 * operands: `cp -t dir a b`, `sed -e expr -i file`, `timeout -s KILL 5 rm x`.
 */

/** One word of a simple command after quote removal. */
export interface Word {
  text: string;
  /** Contains an expansion, substitution or glob whose value is only known at run time. */
  dynamic: boolean;
}

export interface OptionSpec {
  /** Short options that take a value: `-t DIR` or `-tDIR`. */
  readonly short?: string;
  /** Short options whose value is optional and can only be attached: `-i.bak`, `-I{}`-less `-i`. */
  readonly shortOptional?: string;
  /** Long options (without `--`) that take a value: `--target-directory DIR` or `--target-directory=DIR`. */
  readonly long?: readonly string[];
  /**
   * Stop at the first operand (POSIX getopt, and every wrapper: in `sudo rm -rf x` the `-rf` belongs to rm).
   * Without it, options may follow operands (GNU argument permutation: `rm x -rf`).
   */
  readonly stopAtOperand?: boolean;
}

export interface ParsedOption {
  /** `-t` or `--target-directory` (a unique prefix of a long option is expanded, as getopt_long does). */
  name: string;
  value?: Word;
}

export interface ParsedArgs {
  options: ParsedOption[];
  operands: Word[];
  /** Index in `words` of the first operand when `stopAtOperand` stopped there, else `words.length`. */
  rest: number;
}

/** Scan `words` from `start` getopt-style. Pure; never throws. */
export function parseArgs(words: readonly Word[], start: number, spec: OptionSpec): ParsedArgs {
  const options: ParsedOption[] = [];
  const operands: Word[] = [];
  const short = spec.short ?? '';
  const shortOptional = spec.shortOptional ?? '';
  const long = spec.long ?? [];
  for (let i = start; i < words.length; i++) {
    const word = words[i]!;
    const text = word.text;
    if (text === '--') {
      for (let k = i + 1; k < words.length; k++) operands.push(words[k]!);
      return { options, operands, rest: spec.stopAtOperand === true ? i + 1 : words.length };
    }
    if (text.length < 2 || !text.startsWith('-')) {
      if (spec.stopAtOperand === true) {
        for (let k = i; k < words.length; k++) operands.push(words[k]!);
        return { options, operands, rest: i };
      }
      operands.push(word);
      continue;
    }
    if (text.startsWith('--')) {
      const eq = text.indexOf('=');
      const given = eq === -1 ? text.slice(2) : text.slice(2, eq);
      const name = longName(given, long);
      if (eq !== -1) options.push({ name: `--${name}`, value: { text: text.slice(eq + 1), dynamic: word.dynamic } });
      else if (long.includes(name) && i + 1 < words.length) options.push({ name: `--${name}`, value: words[++i]! });
      else options.push({ name: `--${name}` });
      continue;
    }
    // A cluster of short options: -rf, -tDIR, -t DIR, -i.bak.
    for (let k = 1; k < text.length; k++) {
      const letter = text[k]!;
      const rest = text.slice(k + 1);
      if (short.includes(letter)) {
        if (rest !== '') options.push({ name: `-${letter}`, value: { text: rest, dynamic: word.dynamic } });
        else if (i + 1 < words.length) options.push({ name: `-${letter}`, value: words[++i]! });
        else options.push({ name: `-${letter}` });
        break;
      }
      if (shortOptional.includes(letter)) {
        options.push(
          rest === '' ? { name: `-${letter}` } : { name: `-${letter}`, value: { text: rest, dynamic: word.dynamic } },
        );
        break;
      }
      options.push({ name: `-${letter}` });
    }
  }
  return { options, operands, rest: words.length };
}

/** getopt_long accepts any unambiguous prefix of a long option (`--target` for `--target-directory`). */
function longName(given: string, known: readonly string[]): string {
  if (given.length < 3 || known.includes(given)) return given;
  const matches = known.filter((k) => k.startsWith(given));
  return matches.length === 1 ? matches[0]! : given;
}

export function hasOption(args: ParsedArgs, ...names: string[]): boolean {
  return args.options.some((o) => names.includes(o.name));
}

/** Values of every occurrence of the named options, in order. */
export function optionValues(args: ParsedArgs, ...names: string[]): Word[] {
  const values: Word[] = [];
  for (const o of args.options) if (o.value !== undefined && names.includes(o.name)) values.push(o.value);
  return values;
}

/** The name rules match on: the basename of the command word (`/usr/bin/rm` → `rm`). */
export function commandName(text: string): string {
  const slash = text.lastIndexOf('/');
  return slash === -1 || slash === text.length - 1 ? text : text.slice(slash + 1);
}

/** `dir` + `/` + `name`, without doubling a slash the user wrote. */
export function joinPath(dir: string, name: string): string {
  if (dir === '' || dir === '.') return name;
  return dir.endsWith('/') ? dir + name : `${dir}/${name}`;
}

/** The last path component (`a/b/` → `b`), as `cp`/`mv`/`ln` name the entry they create in a directory. */
export function baseName(path: string): string {
  let end = path.length;
  while (end > 1 && path[end - 1] === '/') end--;
  const trimmed = path.slice(0, end);
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}
