/**
 * The entry compiler: one program's entry (the YAML under src/catalog/programs/, parsed to plain data) →
 * its compiled node tree, merged over an imported grammar when the entry says `grammar: <source>`. Pure
 * (no file system, no YAML parser): scripts/build.mjs runs it at build time and writes the table the hot path
 * loads (table.ts); the tests run it over the same files.
 *
 * An entry, in short (docs/catalogue.md has the whole format):
 *
 *   program: wc                 # or a list: [grep, egrep]
 *   effect: reads               # what the bare form does: none | reads | writes | runs | network | process | system
 *   rule: read-file             # optional: the reviewed reason a form beyond reading may be allowed (CATALOG_RULES)
 *   options:
 *     -l --lines: flag          # spellings → flag, a value kind, `kind?` (value only with `=`), `enum(a|b)`
 *     -o --output: path-write
 *     --fix: { effect: writes, rule: format }
 *   args: [path-read...]        # operand kinds; `...` takes the rest, `?` may be absent
 *   commands: { test: { … } }   # subcommands, the same fields
 *
 * Imported grammar without our annotation compiles as `annotated: false`: known form, unknown effect.
 */
import { createHash } from 'node:crypto';
import { EFFECTS, VALUE_KINDS, type Effect, type GrammarNode, type ValueKind } from './grammar.js';

/** The reviewed reasons an entry may give a form whose effect goes beyond reading (the allow's rule id). */
export const CATALOG_RULES = [
  'inspect', // prints or computes only
  'read-file', // reads the files it names
  'search', // searches or lists files
  'write-named', // writes only the files it names (judged by the path policy)
  'test-runner', // runs the project's tests (the repository's own code)
  'lint', // checks code without changing it
  'version', // prints a version or help
  'git-read', // reads git state or history (the repository's objects, refs and index)
  'vcs-read', // reads a jj or hg repository's state or history
  // The workflow's rules: each vouches for the effects listed in match.ts (VOUCHES), nothing more.
  'git-local', // changes only the local repository (index, commits, branches, stash)
  'git-sync', // fetches from a remote and fast-forwards or merges
  'vcs-local', // records a jj or hg change locally: a new commit, a description, a bookmark (nothing leaves the machine)
  'build', // builds the project with its own toolchain and configuration
  'project-script', // runs one of the project's own scripts, judged by its name
  'install-declared', // installs what the project already declares (package.json and its lockfile)
  'temp-file', // creates a new temporary file or directory
  'format', // rewrites the project's files with its own formatter
  'cli-query', // lists the state of a container, cloud or service CLI (containers, images, volumes)
  'package-query', // queries package metadata or the installed dependency tree (may ask the registry)
  'dry-run', // reports what it would do: the option its documentation says changes nothing (kubectl --dry-run)
  'local-fetch', // fetches from a service on this machine (a local URL)
] as const;
export type CatalogRule = (typeof CATALOG_RULES)[number];

/**
 * Checks on a value: for code, proof that it only computes and prints (awk, sed, jq and yq programs without
 * commands, file loading or output files); for other kinds, a shape the value must have (`date-format`: a
 * `+FORMAT`, since `date MMDDhhmm` sets the clock; `number-list`: `1,2,3`; `local-path`: not rsync's or
 * scp's `host:path`). `local-url` on a URL: an http(s) URL of this machine uses no network; any other URL does.
 */
export const CODE_CHECKS = [
  'awk-print',
  'sed-print',
  'jq-pure',
  'yq-pure',
  'date-format',
  'pathspec-named', // names files, not the whole tree (`.`, `:/`, `*`, pathspec magic)
  'git-refspec', // a remote or ref: no transport helper (`ext::…`), no forced update (`+src:dst`)
  'in-project', // a word handed on (`npm run build -- …`): no absolute, home or `..` path, no URL, not `-`
  'go-package', // an import path or a pattern of one (`./...`, `example.com/m/...`), inside the project
  'plain-variable', // `NAME=value` whose name does not say it holds a secret (a build argument stays in the image)
  'number-list',
  'local-path',
  'local-url',
  'backup-suffix', // sed -i's suffix: a name ending, no `/` (a backup in another directory) and no `*`
  'requirement', // a package requirement (`requests`, `flask[async]>=3,<4`): not a path, URL or VCS link
  'npm-package', // a package from the registry by name (`express`, `@scope/pkg@^1`): not a path, URL, git or alias
  'api-path', // a service's API path (`repos/o/r/pulls`): no scheme, no `//` host, no query language endpoint
  'dry-run-target', // a make target a dry run may print: no VAR=value, no name that says it reaches out (deploy)
  'setting-name', // a setting named, not set (`sysctl vm.swappiness`; `vm.swappiness=10` would write it)
  'config-name', // a git or hg configuration name in a section that holds no credential (`user.email`, `ui.username`)
] as const;
export type CodeCheck = (typeof CODE_CHECKS)[number];

export interface CompiledOption {
  names: string[];
  /** Undefined: a flag. */
  value?: ValueKind;
  valueOptional?: boolean;
  requiresEquals?: boolean;
  values?: string[];
  /** Effects of using this option, beyond the form's and its value's. */
  effects?: Effect[];
  rule?: CatalogRule;
  /** Using this option changes what the whole form does (`tsc --noEmit`: reads instead of writes). */
  formEffects?: Effect[];
  /** Words of value it takes (`jq --arg NAME VALUE`: 2). Default 1. */
  arity?: number;
  persistent?: boolean;
  check?: CodeCheck;
  /**
   * Accounted for only together with one of these options (`pip install --dry-run` with `--only-binary`: the
   * dry run runs no package's build code only when no source package may be chosen).
   */
  with?: string[];
  /** Its value stands for the form's first operand (`sed -e SCRIPT`, `grep -e PATTERN`): operands start at the second. */
  insteadOfOperand?: boolean;
  /** The form then also writes each file operand it reads (`sed -i`, `prettier --write`). */
  writesOperands?: boolean;
  /** Its value is where the outputs go (`tsc --outDir`): nothing is written beside the sources (CompiledArg.emits). */
  emitsInto?: boolean;
  /**
   * The operands of the form this option names, in place of the node's (`git add -n .` lists what the whole
   * tree would add, while `git add .` is not annotated; `make -n TARGET` prints any target's recipe).
   */
  args?: CompiledArg[];
  /** False: known to an imported grammar, effect not annotated by us (never allowed on knowledge). */
  annotated: boolean;
}

export interface CompiledArg {
  /** Undefined when an imported grammar knows the operand but nobody said what it is. */
  kind?: ValueKind;
  variadic?: boolean;
  optional?: boolean;
  values?: string[];
  check?: CodeCheck;
  /** The rest of the words are a command it runs (never allowed on knowledge). */
  isCommand?: boolean;
  /** An operand here changes what the form does (`git branch NAME` creates where `git branch` lists). */
  formEffects?: Effect[];
  rule?: CatalogRule;
  /**
   * A source the program compiles, writing its outputs beside it (`tsc a.ts` writes `a.js`, `a.d.ts`,
   * `a.js.map`): source ending → the endings written in its place. A file with no listed ending is not
   * accounted for.
   */
  emits?: Record<string, string[]>;
  /** Accounted for only together with one of these options (`npm install --dry-run express`: a name only in a dry run). */
  with?: string[];
}

export interface CompiledNode {
  names: string[];
  /** Absent: the form's effect is not annotated (an imported grammar only). */
  effects?: Effect[];
  rule?: CatalogRule;
  options: CompiledOption[];
  /** Spelling → index into options. */
  optionIndex: Record<string, number>;
  commands: CompiledNode[];
  /** Name or alias → index into commands. */
  commandIndex: Record<string, number>;
  args: CompiledArg[];
  optionsBeforeArgs?: boolean;
  /** Single-dash long options (`-name`): no short clusters. */
  noClusters?: boolean;
  /**
   * How the program reads a single-dash word of several letters (`-am`), for this node and those below it:
   * `clusters`, always one-letter options (getopt, git's parse-options: a spelling such as Fig's `-am` is
   * only a shorthand of the cluster); `listed-first`, the option so spelled when the grammar lists one, else
   * a cluster (Apache Commons CLI: mvn). Undeclared, a word both readings fit is unknown (match.ts).
   */
  shortWords?: ShortWords;
  /** No options at all: every word is an operand (`test`, `echo`). */
  allOperands?: boolean;
  /** `-5` is an option (head -5): a count. */
  numericOption?: boolean;
  /**
   * The entry vouches that no option of the real program does harm (echo, printf, test): a word that is
   * only known at run time (`"$x"`, which may split into several words) is still harmless.
   */
  mayExpand?: boolean;
  /**
   * The program replaces any word `@FILE` with the words of FILE before parsing (binutils, gcc): such a word
   * reads a file nobody vetted and prints its words in errors, so it is never accounted for.
   */
  responseFiles?: boolean;
  /**
   * The program loads any value from a file when it starts with one of these prefixes (aws: `file://`,
   * `fileb://`; az and curl: `@`): such a value is a read of the rest, whatever the option's kind.
   */
  fileValues?: string[];
  /**
   * A package runner may start the tool by name (`npx vitest`, `pnpm exec eslint`: `node`; `python -m pytest`:
   * `python`), and the tool's entry then accounts for its words. Only for tools whose entry says so: a runner
   * followed by any other name may download and run any package.
   */
  packageRunner?: PackageRunner;
  /**
   * Options whose value names a subcommand (`python -m venv`): the word after one of them is looked up among
   * the node's commands, and only those listed are known.
   */
  optionCommands?: string[];
  /**
   * The form rewrites the files it is given (`black src`, `terraform fmt`): while its effect is `writes`
   * (no option such as `--check` made it a read), each file operand is also a write.
   */
  writesOperands?: boolean;
  /**
   * Directories (by name, at any depth) the program never enters when it rewrites a directory it is given
   * (prettier skips `.git` and `node_modules`): what lies in them is not written. Absent: it may write
   * anything below the directory.
   */
  treeSkips?: string[];
}

export const SHORT_WORDS = ['clusters', 'listed-first'] as const;
export type ShortWords = (typeof SHORT_WORDS)[number];

export const PACKAGE_RUNNERS = ['node', 'python'] as const;
export type PackageRunner = (typeof PACKAGE_RUNNERS)[number];

export interface CompiledProgram {
  root: CompiledNode;
  /** Where it came from: the entry file, and the imported grammar it annotates. */
  source: { entry?: string; grammar?: string };
}

export interface EntryProblem {
  file: string;
  /** Where in the entry: `options.--lines`, `commands.test.args[0]`. */
  at: string;
  problem: string;
}

const KIND_SET = new Set<string>(VALUE_KINDS);
const EFFECT_SET = new Set<string>(EFFECTS);
const RULE_SET = new Set<string>(CATALOG_RULES);
const CHECK_SET = new Set<string>(CODE_CHECKS);
const OPTION_KEYS = new Set([
  'value',
  'effect',
  'rule',
  'persistent',
  'form-effect',
  'count',
  'check',
  'with',
  'instead-of-operand',
  'writes-operands',
  'emits-into',
  'args',
]);
const NODE_KEYS = new Set([
  'program',
  'grammar',
  'note',
  'effect',
  'rule',
  'options',
  'args',
  'commands',
  'options-before-args',
  'no-clusters',
  'short-words',
  'numeric-option',
  'words-may-expand',
  'response-files',
  'all-operands',
  'subcommands-inherit-options',
  'file-values',
  'package-runner',
  'option-commands',
  'writes-operands',
  'tree-skips',
]);

type Raw = Record<string, unknown>;

function isRecord(v: unknown): v is Raw {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

class Compiler {
  readonly problems: EntryProblem[] = [];
  constructor(readonly file: string) {}

  fail(at: string, problem: string): undefined {
    this.problems.push({ file: this.file, at, problem });
    return undefined;
  }

  effects(value: unknown, at: string): Effect[] | undefined {
    const list = Array.isArray(value) ? value : [value];
    const out: Effect[] = [];
    for (const e of list) {
      if (typeof e !== 'string' || !EFFECT_SET.has(e))
        return this.fail(at, `effect ${JSON.stringify(e)} is not one of ${EFFECTS.join(', ')}`);
      out.push(e as Effect);
    }
    return out;
  }

  rule(value: unknown, at: string): CatalogRule | undefined {
    if (typeof value !== 'string' || !RULE_SET.has(value))
      return this.fail(at, `rule ${JSON.stringify(value)} is not one of ${CATALOG_RULES.join(', ')}`);
    return value as CatalogRule;
  }

  /** `number`, `path-read?`, `enum(a|b)`, `enum?(a|b)`, `text=` (value only joined with `=`). */
  valueSpec(
    spec: string,
    at: string,
  ): { kind: ValueKind; optional: boolean; equals: boolean; values?: string[] } | undefined {
    const m = /^([a-z-]+)(\?)?(=)?(?:\(([^()]*)\))?$/.exec(spec);
    if (m === null || !KIND_SET.has(m[1]!))
      return this.fail(at, `value ${JSON.stringify(spec)} is not a kind (${VALUE_KINDS.join(', ')}) or enum(a|b)`);
    const out: { kind: ValueKind; optional: boolean; equals: boolean; values?: string[] } = {
      kind: m[1] as ValueKind,
      optional: m[2] === '?',
      equals: m[3] === '=',
    };
    if (m[4] !== undefined) out.values = m[4].split('|');
    if (out.kind === 'enum' && out.values === undefined) return this.fail(at, 'an enum lists its values: enum(a|b)');
    return out;
  }

  option(key: string, spec: unknown, at: string): CompiledOption | undefined {
    const names = key.split(/\s+/).filter((n) => n !== '');
    if (names.length === 0) return this.fail(at, 'an option needs a spelling');
    const out: CompiledOption = { names, annotated: true };
    const fields: Raw = isRecord(spec) ? spec : { value: spec };
    for (const k of Object.keys(fields)) {
      if (!OPTION_KEYS.has(k)) this.fail(`${at}.${k}`, 'unknown field');
    }
    const value = fields['value'];
    if (value !== 'flag' && value !== undefined) {
      if (typeof value !== 'string') return this.fail(at, 'the value is a string: flag, a kind, or enum(a|b)');
      const v = this.valueSpec(value, at);
      if (v === undefined) return undefined;
      out.value = v.kind;
      if (v.optional) out.valueOptional = true;
      if (v.equals || v.optional) out.requiresEquals = true;
      if (v.values !== undefined) out.values = v.values;
    }
    if (fields['effect'] !== undefined) {
      const e = this.effects(fields['effect'], `${at}.effect`);
      if (e === undefined) return undefined;
      out.effects = e;
    }
    if (fields['rule'] !== undefined) {
      const r = this.rule(fields['rule'], `${at}.rule`);
      if (r === undefined) return undefined;
      out.rule = r;
    }
    if (fields['form-effect'] !== undefined) {
      const e = this.effects(fields['form-effect'], `${at}.form-effect`);
      if (e === undefined) return undefined;
      out.formEffects = e;
    }
    const count = fields['count'];
    if (count !== undefined) {
      if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 4)
        return this.fail(`${at}.count`, 'count is the number of value words, 1 to 4');
      if (out.value === undefined) return this.fail(`${at}.count`, 'count needs a value kind');
      out.arity = count;
    }
    const check = fields['check'];
    if (check !== undefined) {
      if (typeof check !== 'string' || !CHECK_SET.has(check))
        return this.fail(`${at}.check`, `check is one of ${CODE_CHECKS.join(', ')}`);
      out.check = check as CodeCheck;
    }
    if (fields['persistent'] === true) out.persistent = true;
    const together = fields['with'];
    if (together !== undefined) {
      const list = typeof together === 'string' ? together.split(/\s+/) : together;
      if (!Array.isArray(list) || list.length === 0 || !list.every((w) => typeof w === 'string' && w.startsWith('-')))
        return this.fail(`${at}.with`, 'with lists option spellings: [--only-binary]');
      out.with = list as string[];
    }
    for (const [key, field] of [
      ['instead-of-operand', 'insteadOfOperand'],
      ['writes-operands', 'writesOperands'],
      ['emits-into', 'emitsInto'],
    ] as const) {
      if (fields[key] === undefined) continue;
      if (fields[key] !== true) return this.fail(`${at}.${key}`, `${key} is true or absent`);
      out[field] = true;
    }
    if (out.insteadOfOperand === true && out.value === undefined)
      return this.fail(`${at}.instead-of-operand`, 'only an option with a value stands for an operand');
    const args = fields['args'];
    if (args !== undefined) {
      if (out.formEffects === undefined)
        return this.fail(`${at}.args`, 'only an option that names the form (form-effect) gives its operands');
      const compiled = this.args(args, `${at}.args`);
      if (compiled === undefined) return undefined;
      out.args = compiled;
    }
    return out;
  }

  /** A node's or an option's operand list; undefined (and a problem) when one of them does not compile. */
  args(raw: unknown, at: string): CompiledArg[] | undefined {
    if (!Array.isArray(raw)) return this.fail(at, 'args is a list of operand kinds');
    const compiled = raw.map((a, i) => this.arg(a, `${at}[${i}]`));
    compiled.slice(0, -1).forEach((a, i) => {
      if (a?.variadic === true) this.fail(`${at}[${i}]`, 'only the last operand may take the rest (...)');
    });
    return compiled.every((a): a is CompiledArg => a !== undefined) ? compiled : undefined;
  }

  arg(spec: unknown, at: string): CompiledArg | undefined {
    const fields: Raw = isRecord(spec) ? spec : { kind: spec };
    const text = fields['kind'];
    if (typeof text !== 'string') return this.fail(at, 'an operand is a kind: path-read, text, enum(a|b), …');
    const variadic = text.endsWith('...');
    const core = variadic ? text.slice(0, -3) : text;
    const v = this.valueSpec(core, at);
    if (v === undefined) return undefined;
    const out: CompiledArg = { kind: v.kind };
    if (variadic) out.variadic = true;
    if (v.optional || variadic) out.optional = true;
    if (v.values !== undefined) out.values = v.values;
    const check = fields['check'];
    if (check !== undefined) {
      if (typeof check !== 'string' || !CHECK_SET.has(check))
        return this.fail(`${at}.check`, `check is one of ${CODE_CHECKS.join(', ')}`);
      out.check = check as CodeCheck;
    }
    if (fields['command'] === true) out.isCommand = true;
    for (const k of Object.keys(fields))
      if (!['kind', 'check', 'command', 'form-effect', 'rule', 'emits', 'with'].includes(k))
        this.fail(`${at}.${k}`, 'unknown field');
    const together = fields['with'];
    if (together !== undefined) {
      if (
        !Array.isArray(together) ||
        together.length === 0 ||
        !together.every((w) => typeof w === 'string' && w.startsWith('-'))
      )
        this.fail(`${at}.with`, 'with lists option spellings: [--dry-run]');
      else out.with = together as string[];
    }
    const emits = fields['emits'];
    if (emits !== undefined) {
      const endings = (v: unknown): v is string[] =>
        Array.isArray(v) && v.every((e) => typeof e === 'string' && /^\.[\w.]+$/.test(e));
      if (!isRecord(emits) || !Object.entries(emits).every(([k, v]) => /^\.[\w.]+$/.test(k) && endings(v)))
        this.fail(`${at}.emits`, 'emits maps a source ending to the endings written beside it: { .ts: [.js, .d.ts] }');
      else if (out.kind !== 'path-read') this.fail(`${at}.emits`, 'only a path-read operand emits outputs');
      else out.emits = emits as Record<string, string[]>;
    }
    if (fields['form-effect'] !== undefined) {
      const e = this.effects(fields['form-effect'], `${at}.form-effect`);
      if (e !== undefined) out.formEffects = e;
    }
    if (fields['rule'] !== undefined) {
      const r = this.rule(fields['rule'], `${at}.rule`);
      if (r !== undefined) out.rule = r;
    }
    return out;
  }

  node(raw: unknown, names: string[], at: string, imported: GrammarNode | undefined): CompiledNode {
    const base = imported === undefined ? emptyNode(names) : fromGrammar(imported);
    base.names = [...new Set([...names, ...base.names])];
    if (!isRecord(raw)) {
      if (raw !== null && raw !== undefined) this.fail(at, 'an entry or subcommand is a mapping');
      return base;
    }
    for (const k of Object.keys(raw)) if (!NODE_KEYS.has(k)) this.fail(`${at}.${k}`, 'unknown field');
    if (raw['effect'] !== undefined) {
      const e = this.effects(raw['effect'], `${at}.effect`);
      if (e !== undefined) base.effects = e;
    }
    if (raw['rule'] !== undefined) {
      const r = this.rule(raw['rule'], `${at}.rule`);
      if (r !== undefined) base.rule = r;
    }
    if (raw['options-before-args'] === true) base.optionsBeforeArgs = true;
    if (raw['no-clusters'] === true) base.noClusters = true;
    if (raw['numeric-option'] === true) base.numericOption = true;
    if (raw['words-may-expand'] === true) base.mayExpand = true;
    if (raw['response-files'] === true) base.responseFiles = true;
    if (raw['all-operands'] === true) base.allOperands = true;
    if (raw['writes-operands'] === true) base.writesOperands = true;
    const skips = raw['tree-skips'];
    if (skips !== undefined) {
      if (!Array.isArray(skips) || !skips.every((s) => typeof s === 'string' && /^[^/*?[{]+$/.test(s)))
        this.fail(`${at}.tree-skips`, 'tree-skips lists directory names, no slash or glob: [.git, node_modules]');
      else base.treeSkips = skips as string[];
    }
    const fileValues = raw['file-values'];
    if (fileValues !== undefined) {
      if (!Array.isArray(fileValues) || !fileValues.every((p) => typeof p === 'string' && p !== '' && !/\s/.test(p)))
        this.fail(`${at}.file-values`, 'file-values lists the prefixes of a value loaded from a file: [file://, @]');
      else base.fileValues = fileValues as string[];
    }
    const shortWords = raw['short-words'];
    if (shortWords !== undefined) {
      if (typeof shortWords !== 'string' || !(SHORT_WORDS as readonly string[]).includes(shortWords))
        this.fail(`${at}.short-words`, `short-words is one of ${SHORT_WORDS.join(', ')}`);
      else if (base.noClusters === true)
        this.fail(`${at}.short-words`, 'a node without clusters (no-clusters) reads every word as one option');
      else base.shortWords = shortWords as ShortWords;
    }
    const runner = raw['package-runner'];
    if (runner !== undefined) {
      if (typeof runner !== 'string' || !(PACKAGE_RUNNERS as readonly string[]).includes(runner))
        this.fail(`${at}.package-runner`, `package-runner is one of ${PACKAGE_RUNNERS.join(', ')}`);
      else base.packageRunner = runner as PackageRunner;
    }
    const optionCommands = raw['option-commands'];
    if (optionCommands !== undefined) {
      if (!Array.isArray(optionCommands) || !optionCommands.every((o) => typeof o === 'string' && o.startsWith('-')))
        this.fail(`${at}.option-commands`, 'option-commands lists the options whose value names a subcommand: [-m]');
      else base.optionCommands = optionCommands as string[];
    }
    const options = raw['options'];
    if (options !== undefined) {
      if (!isRecord(options)) this.fail(`${at}.options`, 'options is a mapping of spellings to specs');
      else
        for (const [key, spec] of Object.entries(options)) {
          const o = this.option(key, spec, `${at}.options.${key}`);
          if (o !== undefined) overlayOption(base, o);
        }
      reindex(base);
      for (const o of base.options)
        for (const w of o.with ?? [])
          if (!Object.hasOwn(base.optionIndex, w) || base.options[base.optionIndex[w]!]!.annotated !== true)
            this.fail(`${at}.options.${o.names[0]}.with`, `${w} is not an option this entry annotates here`);
    }
    if (raw['args'] !== undefined) {
      const compiled = this.args(raw['args'], `${at}.args`);
      if (compiled !== undefined) base.args = compiled;
    }
    const commands = raw['commands'];
    if (commands !== undefined) {
      if (!isRecord(commands)) this.fail(`${at}.commands`, 'commands is a mapping of names to subcommands');
      else
        for (const [key, sub] of Object.entries(commands)) {
          const subNames = key.split(/\s+/).filter((n) => n !== '');
          for (const n of subNames)
            if (n.includes('*') && (n.indexOf('*') !== n.length - 1 || n.length === 1))
              this.fail(`${at}.commands.${key}`, `${n}: a pattern is a prefix followed by one * (describe-*)`);
          // A key may name subcommands the grammar keeps apart (`add remove move`): each is laid over its own
          // node (laying all over the first would leave the others' grammar unannotated under their names).
          const byNode = new Map<number | undefined, string[]>();
          for (const n of subNames) byNode.set(base.commandIndex[n], [...(byNode.get(base.commandIndex[n]) ?? []), n]);
          for (const [existing, names] of byNode) {
            const importedSub = existing === undefined ? undefined : base.commands[existing];
            const compiled = this.node(sub, names, `${at}.commands.${key}`, importedSub && toGrammar(importedSub));
            if (existing === undefined) base.commands.push(compiled);
            else base.commands[existing] = compiled;
          }
        }
    }
    if (raw['subcommands-inherit-options'] === true) for (const o of base.options) if (o.annotated) o.persistent = true;
    reindex(base);
    return base;
  }
}

function emptyNode(names: string[]): CompiledNode {
  return { names, options: [], optionIndex: {}, commands: [], commandIndex: {}, args: [] };
}

/** An imported grammar node as a compiled node with nothing annotated. */
export function fromGrammar(g: GrammarNode): CompiledNode {
  const node = emptyNode([...g.names]);
  node.options = g.options.map((o) => {
    const out: CompiledOption = { names: [...o.names], annotated: false };
    if (o.takesValue) out.value = 'unknown';
    if (o.valueOptional === true) out.valueOptional = true;
    if (o.requiresEquals === true || o.valueOptional === true) out.requiresEquals = true;
    if (o.persistent === true) out.persistent = true;
    return out;
  });
  node.commands = g.subcommands.map(fromGrammar);
  node.args = g.args.map((a) => {
    const out: CompiledArg = {};
    if (a.variadic === true) out.variadic = true;
    if (a.optional === true || a.variadic === true) out.optional = true;
    if (a.isCommand === true || a.isScript === true) out.isCommand = true;
    return out;
  });
  if (g.optionsBeforeArgs === true) node.optionsBeforeArgs = true;
  if (g.noClusters === true) node.noClusters = true;
  reindex(node);
  return node;
}

/** Back to grammar shape, so a subcommand of an imported tree can be overlaid the same way as a root. */
function toGrammar(n: CompiledNode): GrammarNode {
  return {
    names: n.names,
    options: n.options.map((o) => ({ names: o.names, takesValue: o.value !== undefined })),
    subcommands: n.commands.map(toGrammar),
    args: n.args.map((a) => {
      const out: GrammarNode['args'][number] = {};
      if (a.variadic === true) out.variadic = true;
      if (a.optional === true) out.optional = true;
      if (a.isCommand === true) out.isCommand = true;
      return out;
    }),
  };
}

/**
 * Our annotation takes over every imported option it names a spelling of, with all that option's aliases
 * (`-v` vouches for `--verbose`: one option, two spellings). One line of an entry may group several flags
 * (`-c --bytes -m --chars: flag`), so it may take over more than one imported option.
 */
function overlayOption(node: CompiledNode, option: CompiledOption): void {
  const ours = new Set(option.names);
  const taken = node.options.filter((o) => o.names.some((n) => ours.has(n)));
  const names = [...new Set([...option.names, ...taken.flatMap((o) => o.names)])];
  node.options = node.options.filter((o) => !taken.includes(o));
  node.options.push({ ...option, names });
}

function reindex(node: CompiledNode): void {
  node.optionIndex = {};
  node.options.forEach((o, i) => o.names.forEach((n) => (node.optionIndex[n] = i)));
  node.commandIndex = {};
  node.commands.forEach((c, i) => c.names.forEach((n) => (node.commandIndex[n] = i)));
}

/**
 * One entry file's data → its compiled program(s) (an entry may name aliases: `[grep, egrep]`).
 * `grammars` is the second source: imported grammar by program name (Fig's, when the importer has run).
 */
export function compileEntry(
  raw: unknown,
  file: string,
  grammars: ReadonlyMap<string, { node: GrammarNode; ref: string }> = new Map(),
): { programs: Map<string, CompiledProgram>; problems: EntryProblem[] } {
  const c = new Compiler(file);
  const programs = new Map<string, CompiledProgram>();
  if (!isRecord(raw)) {
    c.fail('', 'an entry is a mapping with at least `program:`');
    return { programs, problems: c.problems };
  }
  const program = raw['program'];
  const names = typeof program === 'string' ? [program] : Array.isArray(program) ? program : [];
  if (names.length === 0 || !names.every((n): n is string => typeof n === 'string' && /^[\w.+:[-]+$/.test(n))) {
    c.fail('program', 'program is a name or a list of names (letters, digits, . _ + - :)');
    return { programs, problems: c.problems };
  }
  const grammarName = raw['grammar'];
  let imported: { node: GrammarNode; ref: string } | undefined;
  if (grammarName !== undefined) {
    if (typeof grammarName !== 'string')
      c.fail('grammar', 'grammar names an imported source (table: the grammar table; fig: src/catalog/imported/)');
    else imported = grammars.get(names[0]!);
    // A missing import is not an error: the entry's own annotations still compile (the importer may be absent).
  }
  const root = c.node(raw, names, 'entry', imported?.node);
  if (root.effects === undefined && imported === undefined)
    c.fail('effect', 'the program needs an effect (what its bare form does)');
  const source: CompiledProgram['source'] = { entry: file };
  if (imported !== undefined) source.grammar = imported.ref;
  const compiled = { root, source };
  for (const name of names) programs.set(name, compiled);
  return { programs, problems: c.problems };
}

/** The table format: bump when CompiledNode changes shape (the loader refuses another version). */
export const CATALOG_FORMAT = 3;

export interface CatalogTable {
  format: typeof CATALOG_FORMAT;
  /** sha256 of the programs, so a report or a bug can say which catalogue decided. */
  checksum: string;
  /** Program name (and alias) → index into `entries`. */
  programs: Record<string, number>;
  /** Compiled entries (dist/catalog/ keeps each as its own text: table-codec.ts). */
  entries: CompiledProgram[];
  /**
   * The version and help forms (`node -v`, `python --help`): per program of the grammar table, the spellings
   * of its own `--version` and `--help` options, as text (`\nname\t-v --version -h --help`, searched, never
   * parsed). Absent: no such form is known.
   */
  versionForms?: string;
}

/**
 * A program's version and help spellings from its grammar: every spelling of a root option that takes no value
 * and is spelled `--version` or `--help` (its aliases come with it: node's `-v`, python's `-V`).
 */
export function versionSpellings(node: GrammarNode): string[] {
  return node.options
    .filter((o) => !o.takesValue && o.names.some((n) => n === '--version' || n === '--help'))
    .flatMap((o) => o.names)
    .filter((n) => /^-{1,2}[\w?][\w-]*$/.test(n));
}

/** The text form of CatalogTable.versionForms. */
export function versionFormsText(forms: ReadonlyMap<string, readonly string[]>): string {
  let text = '';
  for (const [name, spellings] of [...forms].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    if (spellings.length > 0 && /^[\w.+:@/-]+$/.test(name)) text += `\n${name}\t${spellings.join(' ')}`;
  return text === '' ? '' : `${text}\n`;
}

/**
 * Every entry compiled into one table. Imported grammars the entries do not annotate are kept too
 * (grammar only: explain can say "known option, effect not annotated"). Problems are collected, never thrown.
 */
export function compileCatalog(
  entries: readonly { file: string; data: unknown }[],
  grammars: readonly { node: GrammarNode; ref: string }[] = [],
  versionForms = '',
): { table: CatalogTable; problems: EntryProblem[] } {
  const byName = new Map<string, { node: GrammarNode; ref: string }>();
  for (const g of grammars) for (const n of g.node.names) if (!byName.has(n)) byName.set(n, g);
  const programs: Record<string, CompiledProgram> = {};
  const problems: EntryProblem[] = [];
  for (const g of grammars) {
    const root = fromGrammar(g.node);
    for (const n of g.node.names) programs[n] = { root, source: { grammar: g.ref } };
  }
  const seen = new Map<string, string>();
  for (const entry of entries) {
    const compiled = compileEntry(entry.data, entry.file, byName);
    problems.push(...compiled.problems);
    for (const [name, program] of compiled.programs) {
      const other = seen.get(name);
      if (other !== undefined) {
        problems.push({ file: entry.file, at: 'program', problem: `${name} already has an entry (${other})` });
        continue;
      }
      seen.set(name, entry.file);
      programs[name] = program;
    }
  }
  // Aliases share one compiled entry.
  const entryList: CompiledProgram[] = [];
  const index = new Map<CompiledProgram, number>();
  const names: Record<string, number> = {};
  for (const [name, program] of Object.entries(programs).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    let at = index.get(program);
    if (at === undefined) index.set(program, (at = entryList.push(program) - 1));
    names[name] = at;
  }
  const checksum = createHash('sha256')
    .update(JSON.stringify([names, entryList, versionForms]))
    .digest('hex');
  const table: CatalogTable = { format: CATALOG_FORMAT, checksum, programs: names, entries: entryList };
  if (versionForms !== '') table.versionForms = versionForms;
  return { table, problems };
}
