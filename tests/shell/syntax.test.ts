/**
 * The syntax tree as plain data: Bash precedence restored where tree-sitter-bash nests differently, and every
 * parse bounded by counts of work (nodes, parser steps), each overrun a clear "cannot analyze" reason.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadShellParser, syntaxTree, Unparseable, type Budget, type Node } from '../../src/shell/syntax.js';

const budget = (over: Partial<Budget> = {}): Budget => ({ nodes: 6000, steps: 5000, maxSteps: 5000, ...over });

/** The tree's statements as nested text: `list(a && pipeline(b | c))`. */
function shape(node: Node, source: string): string {
  const named = node.children.filter((c) => c.named && c.type !== 'comment');
  switch (node.type) {
    case 'program':
      return named.map((c) => shape(c, source)).join('; ');
    case 'list':
    case 'pipeline': {
      const parts = node.children.filter((c) => c.type !== 'comment').map((c) => (c.named ? shape(c, source) : c.type));
      return `${node.type}(${parts.join(' ')})`;
    }
    case 'redirected_statement':
      return `redirected(${shape(named[0]!, source)})`;
    default:
      return source.slice(node.start, node.end);
  }
}

beforeAll(() => loadShellParser());

describe('Bash precedence', () => {
  it.each([
    ['a && b | c', 'list(a && pipeline(b | c))'],
    ['cd a && make 2>&1 | tee log', 'list(cd a && pipeline(redirected(make) | tee log))'],
    ['a | b && c', 'list(pipeline(a | b) && c)'],
    ['a | b | c', 'pipeline(a | b | c)'],
    ['a && b || c', 'list(a && b || c)'],
  ])('%s → %s', (command, expected) => {
    expect(shape(syntaxTree(command, 'the command', budget()), command)).toBe(expected);
  });
});

describe('what cannot be analyzed says why', () => {
  it.each([
    ["echo 'open", /the command is incomplete|the command has a Bash syntax error/],
    ['echo )', /the command has a Bash syntax error/],
  ])('%s', (command, reason) => {
    expect(() => syntaxTree(command, 'the command', budget())).toThrow(reason);
  });

  it('more syntax nodes than the budget allows', () => {
    expect(() => syntaxTree('echo a b c d e f', 'the command', budget({ nodes: 3 }))).toThrow(Unparseable);
    expect(() => syntaxTree('echo a b c d e f', 'the command', budget({ nodes: 3 }))).toThrow(/too large/);
  });

  it('more parser steps than the budget allows (a short source is charged its length)', () => {
    expect(() => syntaxTree('echo hello', 'the command', budget({ steps: 5, maxSteps: 5 }))).toThrow(
      /too complex to analyze \(more than the 5 parser steps/,
    );
  });

  it('the budget is shared: what one parse spends, the next cannot', () => {
    const shared = budget({ steps: 15, maxSteps: 15 });
    syntaxTree('echo hello', 'the command', shared);
    expect(shared.steps).toBe(5);
    expect(() => syntaxTree('echo hello', 'the code run by bash -c', shared)).toThrow(/the code run by bash -c/);
  });
});
