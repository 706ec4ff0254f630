/**
 * Tokens for similarity: a subject split into words, interned to integer IDs, kept as a sorted set in an
 * Int32Array — so Jaccard is a merge of two sorted integer arrays and an inverted index is keyed by int.
 *
 * Paths are split into their components with the project root folded to `.` and the home directory to
 * `~`, so `./src/a.ts` in this project is three short tokens rather than a dozen that every path shares
 * (which would make any two commands on long paths look alike). A stored subject from another project
 * keeps its own root's components and so looks less alike — conservative, by design.
 */

/**
 * Separators: whitespace, path separators, quotes, shell operators. Not `=` or `:`: `--privileged=false`
 * and `sites:delete` are one word each, and must not look like `--privileged` or `sites`.
 */
const SPLIT = /[\s/,;|&()<>'"`{}[\]]+/;

export interface TokenContext {
  projectRoot: string;
  home: string;
}

/** The distinct tokens of a subject (in first-seen order). */
export function tokenize(text: string, ctx: TokenContext): string[] {
  let folded = text;
  if (ctx.projectRoot.length > 1)
    folded = folded.split(`${ctx.projectRoot}/`).join('./').split(ctx.projectRoot).join('.');
  if (ctx.home.length > 1) folded = folded.split(`${ctx.home}/`).join('~/');
  const seen = new Set<string>();
  for (const token of folded.split(SPLIT)) {
    // '.' and '~' alone carry nothing once folded; the `# writes` marker is ours, not the call's.
    if (token === '' || token === '.' || token === '~' || token === '#' || token === 'writes') continue;
    seen.add(token);
  }
  return [...seen];
}

/** Token text ↔ dense integer IDs, for one index. */
export class TokenInterner {
  private readonly ids = new Map<string, number>();
  private readonly texts: string[] = [];

  static fromVocabulary(vocabulary: readonly string[]): TokenInterner {
    const interner = new TokenInterner();
    for (const token of vocabulary) interner.intern(token);
    return interner;
  }

  /** Every token, by ID. */
  vocabulary(): string[] {
    return [...this.texts];
  }

  get size(): number {
    return this.texts.length;
  }

  /** The ID of a token, assigning the next one if it is new. */
  intern(token: string): number {
    let id = this.ids.get(token);
    if (id === undefined) {
      id = this.texts.length;
      this.ids.set(token, id);
      this.texts.push(token);
    }
    return id;
  }

  /** The ID of a known token, or undefined. */
  lookup(token: string): number | undefined {
    return this.ids.get(token);
  }

  text(id: number): string | undefined {
    return this.texts[id];
  }

  /** Interned, sorted, distinct IDs of tokens (for stored entries: unknown tokens are added). */
  internAll(tokens: readonly string[]): Int32Array {
    return sortedSet(tokens.map((t) => this.intern(t)));
  }

  /**
   * A query's known IDs (sorted) and how many of its tokens the index has never seen: those still count
   * in the union, so an unseen word makes a query less similar, never more.
   */
  query(tokens: readonly string[]): { ids: Int32Array; unknown: number } {
    const known: number[] = [];
    let unknown = 0;
    for (const t of tokens) {
      const id = this.ids.get(t);
      if (id === undefined) unknown++;
      else known.push(id);
    }
    return { ids: sortedSet(known), unknown };
  }
}

function sortedSet(ids: number[]): Int32Array {
  const out = Int32Array.from(new Set(ids));
  out.sort();
  return out;
}

/** |a ∩ b| of two sorted ID sets. */
export function intersectionSize(a: Int32Array, b: Int32Array): number {
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      n++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return n;
}
