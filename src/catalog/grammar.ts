/**
 * The catalogue's shared vocabulary: the grammar of a program (what an imported CLI spec such as Fig's
 * gives: subcommands, option spellings, which options take a value, operands) and the kinds and effects
 * our own annotations put on top. Data only, no code: the importer (build time), the entry compiler and
 * the matcher all speak these types, so each can change without the others.
 *
 * Closed world: a word is *accounted for* only when the grammar knows it AND an annotation gives its
 * effect. Grammar without an annotation is "known form, unknown effect": never allowed on knowledge.
 */

/** What the value of an option, or an operand, is. */
export const VALUE_KINDS = [
  'path-read', // a file the program reads (and may print: judged like a Read)
  'path-write', // a file the program writes or creates (judged like a Write)
  'dir', // a directory it works in or lists
  'program', // a program it runs (never blessed by knowledge)
  'code', // code it evaluates (a script, an expression in a language that can run things)
  'url', // a URL it fetches or sends to
  'host', // a host name or address it connects to
  'pattern', // a search pattern / regular expression / glob (free for learning)
  'number', // a count, size, duration, id number (free for learning)
  'text', // free text: a message, a label (free for learning)
  'enum', // one of a fixed set of words
  'script', // a script or target the project defines (package.json, Makefile): judged by its name
  'unknown', // the grammar says a value follows, nobody says what it is
  'process', // a process it acts on, by number (never free for learning: another pid is another process)
] as const;
export type ValueKind = (typeof VALUE_KINDS)[number];

/** What a form of a program does. `none`: prints or computes only. */
export const EFFECTS = ['none', 'reads', 'writes', 'runs', 'network', 'process', 'system'] as const;
export type Effect = (typeof EFFECTS)[number];

/** Fig's argument templates: the only typing its specs give beyond names. */
export type GrammarTemplate = 'filepaths' | 'folders' | 'history' | 'help';

/** One option as a grammar knows it. */
export interface GrammarOption {
  /** Every spelling, with dashes: `-l`, `--lines`, `-name` (find-style), `+x`. */
  names: string[];
  /** Takes a value (`-o FILE`, `--out=FILE`, `-oFILE`). */
  takesValue: boolean;
  /** The value may be omitted (`--color[=WHEN]`): only the `=` form then carries one. */
  valueOptional?: boolean;
  /** The value must be joined with `=` (`--foo=bar`, never `--foo bar`). */
  requiresEquals?: boolean;
  /** The value must be joined with this string other than `=` (Fig's `requiresSeparator: ':'`: `-D:x`). */
  separator?: string;
  /** More than one value word follows (Fig options with several `args`: `--diff A B`): how many at most. */
  valueCount?: number;
  /** The value is every word up to one of these (`find -exec CMD … ;` or `… {} +`): a command line. */
  valueTerminators?: string[];
  /** The value's template when the spec gives one. */
  template?: GrammarTemplate;
  /** Known fixed values (Fig's suggestions), when the spec lists them. */
  values?: string[];
  /** Applies to every subcommand below (Fig's `isPersistent`). */
  persistent?: boolean;
  /** May be given more than once. */
  repeatable?: boolean;
}

/** One operand position. */
export interface GrammarArg {
  name?: string;
  template?: GrammarTemplate;
  /** Takes every remaining word. */
  variadic?: boolean;
  optional?: boolean;
  /** The rest of the words are a command it runs (`sudo`, `xargs`, `timeout`): Fig's `isCommand`. */
  isCommand?: boolean;
  /** A script it runs (Fig's `isScript`). */
  isScript?: boolean;
  /** Known fixed values (Fig's suggestions). */
  values?: string[];
}

/** A program or one of its subcommands. */
export interface GrammarNode {
  /** The spellings of this node (program name and aliases, or subcommand and aliases). */
  names: string[];
  options: GrammarOption[];
  subcommands: GrammarNode[];
  args: GrammarArg[];
  /** Options must come before operands (Fig's parserDirectives.optionsMustPrecedeArguments). */
  optionsBeforeArgs?: boolean;
  /** Single-dash long options (`-name`, Fig's flagsArePosixNoncompliant): no short-option clusters. */
  noClusters?: boolean;
}

/** Where a grammar came from, for reports and `explain`. */
export interface GrammarSource {
  /** `fig` (imported), `hookwise` (our own entries). */
  origin: 'fig' | 'hookwise';
  /** Package and version, or the entry file. */
  ref: string;
}
