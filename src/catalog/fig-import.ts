/**
 * Fig autocomplete specs → GrammarNode trees. Build time only (scripts/catalog/build-grammar.ts runs it;
 * nothing at run time imports it): the specs are JavaScript modules, loaded here through an injected loader
 * so that tests can hand in small fixture modules.
 *
 * What is kept is what a parser of argv needs: spellings, which options take a value (and how it is joined),
 * operands, fixed values, Fig's templates and its parser directives. Descriptions, icons, priorities and the
 * `generators` (functions that run shell commands to suggest values) are dropped: a generator says nothing
 * about the grammar, only about which values exist on one machine. The work is bounded by depth and by a count
 * of nodes per program; whatever a bound cuts off, or the specs leave to code, is reported as a skip note, never
 * silently lost: a cut subtree is simply unknown grammar (nothing there is ever allowed on knowledge).
 */
import { byNames } from './grammar-codec.js';
import type { GrammarArg, GrammarNode, GrammarOption, GrammarTemplate } from './grammar.js';

/** Loads a spec module by its path in Fig's build folder (`git`, `aws/s3`); undefined when there is none. */
export type FigModuleLoader = (path: string) => Promise<Record<string, unknown> | undefined>;

export interface FigImportLimits {
  /** Subcommand nesting below the program. */
  maxDepth: number;
  /** Subcommands + options + operands of one program, all levels together. */
  maxNodes: number;
}

/** Deep enough for the deepest real spec (aws service → operation), small enough to bound a bad one. */
export const FIG_IMPORT_LIMITS: FigImportLimits = { maxDepth: 12, maxNodes: 400_000 };

export const SKIP_KINDS = [
  'not-a-spec', // the module exports no spec object
  'generator-only', // everything the spec knows comes from code run at completion time: no static grammar
  'dynamic-subtree', // a node whose static part was kept but whose generateSpec (code) adds more
  'version-diffs', // a versioned spec: the latest version's base is imported, its minor-version diffs are not
  'load-spec-missing', // a loadSpec names a module the package does not have
  'load-spec-cycle', // a loadSpec leads back to a spec being loaded
  'arg-load-spec', // an operand whose value selects another spec (Fig's Arg.loadSpec): not followed
  'separator-directive', // parserDirectives.optionArgSeparators: more than one way to join a value, not kept
  'depth-limit', // subcommands below FigImportLimits.maxDepth
  'node-limit', // subcommands and options beyond FigImportLimits.maxNodes
  'bad-name', // a name that is not a plain word (not a string, empty, too long, control characters, an en dash)
  'dashless-alias', // an option's spelling without a dash beside dashed ones (tar's C for -C): dropped
  'dashless-option', // an option spelled only without a dash (dd's bs=, ps's o): kept, the matcher must know
] as const;
export type SkipKind = (typeof SKIP_KINDS)[number];

export interface SkipNote {
  program: string;
  /** Subcommand path below the program, space-separated ('' for the program itself). */
  where: string;
  kind: SkipKind;
}

export interface FigImportResult {
  /** Undefined when the whole program was skipped (see notes). */
  node?: GrammarNode;
  notes: SkipNote[];
  /** Every spec module read for this program (itself and what its loadSpecs pulled in). */
  modules: string[];
}

const MAX_NAME_LENGTH = 200;
// Control characters or line breaks have no business in an argv spelling; a name with them is data damage.
// eslint-disable-next-line no-control-regex
const BAD_NAME = /[\u0000-\u001f\u007f]/;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const asList = (v: unknown): unknown[] => (v === undefined ? [] : Array.isArray(v) ? v.flat(4) : [v]);

/** Fig lets a template be one or several; a path of any kind covers a folder, so filepaths wins. */
function templateOf(value: unknown): GrammarTemplate | undefined {
  const all = asList(value);
  for (const t of ['filepaths', 'folders', 'history', 'help'] as const) if (all.includes(t)) return t;
  return undefined;
}

class ProgramImport {
  readonly notes: SkipNote[] = [];
  readonly modules = new Set<string>();
  private nodes = 0;
  private readonly noted = new Set<string>();

  constructor(
    readonly program: string,
    private readonly load: FigModuleLoader,
    private readonly limits: FigImportLimits,
  ) {}

  /** Records a skip note (once per kind and place); false, so that a filter can note and drop at once. */
  note(where: string[], kind: SkipKind): false {
    const key = `${kind}\u0000${where.join(' ')}`;
    if (!this.noted.has(key)) {
      this.noted.add(key);
      this.notes.push({ program: this.program, where: where.join(' '), kind });
    }
    return false;
  }

  /** Counts one unit of work; false once the program's budget is spent. */
  private spend(where: string[]): boolean {
    if (this.nodes >= this.limits.maxNodes) {
      this.note(where.slice(0, 1), 'node-limit');
      return false;
    }
    this.nodes++;
    return true;
  }

  names(value: unknown, where: string[]): string[] {
    const out: string[] = [];
    for (const n of asList(value)) {
      if (typeof n === 'string' && n.length > 0 && n.length <= MAX_NAME_LENGTH && !BAD_NAME.test(n)) {
        if (!out.includes(n)) out.push(n);
      } else this.note(where, 'bad-name');
    }
    return out;
  }

  /** Fixed values: string suggestions and the names of suggestion objects (sorted, unique). */
  values(suggestions: unknown, where: string[]): string[] | undefined {
    const out = new Set<string>();
    for (const s of asList(suggestions)) {
      for (const n of this.names(isObj(s) ? s.name : s, where)) out.add(n);
    }
    return out.size > 0 ? [...out].sort() : undefined;
  }

  arg(spec: Obj, where: string[]): GrammarArg {
    const arg: GrammarArg = {};
    if (typeof spec.name === 'string' && spec.name.length > 0) arg.name = this.names(spec.name, where)[0];
    const template = templateOf(spec.template);
    if (template) arg.template = template;
    if (spec.isVariadic === true) arg.variadic = true;
    if (spec.isOptional === true) arg.optional = true;
    if (spec.isCommand === true) arg.isCommand = true;
    if (spec.isScript === true) arg.isScript = true;
    const values = this.values(spec.suggestions, where);
    if (values) arg.values = values;
    if (spec.loadSpec !== undefined) this.note(where, 'arg-load-spec');
    if (arg.name === undefined) delete arg.name;
    return arg;
  }

  option(spec: Obj, where: string[]): GrammarOption | undefined {
    // An en or em dash where a hyphen belongs (`–-help`) is a typo in the spec, never a word an agent types.
    const typed = this.names(spec.name, where).filter(
      (n) => !/^[\u2013\u2014]/.test(n) || this.note(where, 'bad-name'),
    );
    const dashed = typed.filter((n) => /^[-+]/.test(n));
    // tar's `C` beside `-C` is an old-style key letter, valid only inside the first word (`tar xzf`): as a word
    // of its own it is an operand, and a matcher must not read a file named C as the option.
    if (dashed.length > 0 && dashed.length < typed.length) this.note(where, 'dashless-alias');
    if (typed.length > 0 && dashed.length === 0) this.note(where, 'dashless-option');
    const names = dashed.length > 0 ? dashed : typed;
    if (names.length === 0) return undefined;
    const args = asList(spec.args).filter(isObj);
    const option: GrammarOption = { names, takesValue: args.length > 0 };
    const first = args[0];
    if (first) {
      if (first.isOptional === true) option.valueOptional = true;
      const separator = spec.requiresSeparator;
      if (spec.requiresEquals === true || separator === true || separator === '=') option.requiresEquals = true;
      else if (typeof separator === 'string' && separator.length > 0) option.separator = separator;
      const template = templateOf(first.template);
      if (template) option.template = template;
      const values = this.values(first.suggestions, where);
      if (values) option.values = values;
      if (args.length > 1) option.valueCount = args.length;
    }
    if (spec.isPersistent === true) option.persistent = true;
    if (spec.isRepeatable === true || (typeof spec.isRepeatable === 'number' && spec.isRepeatable > 1))
      option.repeatable = true;
    return option;
  }

  /** One spec node (program or subcommand) and everything below it; a loadSpec's module is merged in. */
  async node(spec: Obj, where: string[], loading: string[]): Promise<GrammarNode | undefined> {
    // A program is known by its module's name, as Fig matches argv[0]; the spec's own name field is a label
    // (hub's spec calls itself "git", kubecolor's "kubectl") and would alias the wrong program.
    const names = where.length === 0 ? [this.program] : this.names(spec.name, where);
    if (names.length === 0) return undefined;
    const node: GrammarNode = { names, options: [], subcommands: [], args: [] };
    await this.fill(node, spec, where, loading);
    if (typeof spec.loadSpec === 'string') {
      const loaded = await this.loadSpec(spec.loadSpec, where, loading);
      // The node's own words come first: Fig completes them alongside the loaded spec's.
      if (loaded) await this.fill(node, loaded, where, [...loading, spec.loadSpec]);
    }
    node.options.sort(byNames);
    node.subcommands.sort(byNames);
    return node;
  }

  private async fill(node: GrammarNode, spec: Obj, where: string[], loading: string[]): Promise<void> {
    const directives = spec.parserDirectives;
    if (isObj(directives)) {
      if (directives.optionsMustPrecedeArguments === true) node.optionsBeforeArgs = true;
      if (directives.flagsArePosixNoncompliant === true) node.noClusters = true;
      if (directives.optionArgSeparators !== undefined) this.note(where, 'separator-directive');
    }
    if (spec.generateSpec !== undefined) this.note(where, 'dynamic-subtree');
    for (const o of asList(spec.options)) {
      if (!isObj(o) || !this.spend(where)) continue;
      const option = this.option(o, where);
      if (option && !node.options.some((known) => known.names.some((n) => option.names.includes(n))))
        node.options.push(option);
    }
    if (node.args.length === 0)
      for (const a of asList(spec.args)) {
        if (!isObj(a) || !this.spend(where)) continue;
        node.args.push(this.arg(a, where));
      }
    for (const s of asList(spec.subcommands)) {
      if (!isObj(s)) continue;
      const childWhere = [...where, ...this.names(s.name, where).slice(0, 1)];
      if (childWhere.length === where.length) continue;
      if (childWhere.length > this.limits.maxDepth) {
        this.note(where, 'depth-limit');
        continue;
      }
      if (!this.spend(childWhere)) continue;
      const child = await this.node(s, childWhere, loading);
      if (child && !node.subcommands.some((known) => known.names.some((n) => child.names.includes(n))))
        node.subcommands.push(child);
    }
  }

  private async loadSpec(path: string, where: string[], loading: string[]): Promise<Obj | undefined> {
    if (loading.includes(path) || path === this.program) {
      this.note(where, 'load-spec-cycle');
      return undefined;
    }
    const spec = await specOf(path, this.load, (kind) => this.note(where, kind), this.modules);
    if (!spec) this.note(where, 'load-spec-missing');
    return spec;
  }
}

/**
 * The spec object a module path stands for. A versioned program (`az/index`) exports a function that picks
 * a version folder; asked with no version it picks the latest, whose base spec is taken.
 */
async function specOf(
  path: string,
  load: FigModuleLoader,
  note: (kind: SkipKind) => void,
  modules: Set<string>,
): Promise<Obj | undefined> {
  let mod = await load(path);
  let at = path;
  if (!mod) {
    mod = await load(`${path}/index`);
    at = `${path}/index`;
  }
  if (!mod) return undefined;
  modules.add(at);
  let spec = mod.default;
  if (typeof spec === 'function') {
    const picked: unknown = await (spec as (version?: string) => unknown)(undefined);
    const target = isObj(picked) && typeof picked.versionedSpecPath === 'string' ? picked.versionedSpecPath : undefined;
    const versioned = target === undefined ? undefined : await load(target);
    if (!versioned || target === undefined) return undefined;
    modules.add(target);
    spec = versioned.default;
    if (
      isObj(versioned.versions) &&
      Object.values(versioned.versions).some((d) => isObj(d) && Object.keys(d).length > 0)
    )
      note('version-diffs');
  }
  return isObj(spec) ? spec : undefined;
}

function isEmpty(node: GrammarNode): boolean {
  return node.options.length === 0 && node.subcommands.length === 0 && node.args.length === 0;
}

/** Imports one program (a top-level spec, by its module path in Fig's build folder). */
export async function importFigProgram(
  program: string,
  load: FigModuleLoader,
  limits: FigImportLimits = FIG_IMPORT_LIMITS,
): Promise<FigImportResult> {
  const run = new ProgramImport(program, load, limits);
  const spec = await specOf(program, load, (kind) => run.note([], kind), run.modules);
  if (!spec) {
    run.note([], 'not-a-spec');
    return { notes: run.notes, modules: [...run.modules].sort() };
  }
  const node = await run.node(spec, [], [program]);
  if (node && isEmpty(node) && (spec.generateSpec !== undefined || hasGenerators(spec))) {
    run.note([], 'generator-only');
    return { notes: run.notes, modules: [...run.modules].sort() };
  }
  return { ...(node ? { node } : {}), notes: run.notes, modules: [...run.modules].sort() };
}

function hasGenerators(spec: Obj): boolean {
  return asList(spec.args).some((a) => isObj(a) && a.generators !== undefined);
}
