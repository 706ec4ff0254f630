/**
 * knownAssignments: which `$NAME` of a command may be taken as literal text — a top-level `NAME=value` made
 * once, of plain text (or `$(mktemp)` heading an `&&` list), in a command that can assign no variable without
 * spelling its name. Rows read `command → NAME=value …` (`marker` for a fresh-temp directory).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { hasFreshTempMarker } from '../../src/shell/fresh-temp.js';
import { knownAssignments } from '../../src/shell/known-values.js';
import { loadShellParser, syntaxTree } from '../../src/shell/syntax.js';

function known(command: string, freshTemp = true): string[] {
  const root = syntaxTree(command, 'the command', { nodes: 6000, steps: 5000, maxSteps: 5000 });
  return [...knownAssignments(root, command, freshTemp)].map(([name, v]) =>
    v.marker && hasFreshTempMarker(v.value) ? `${name}=marker` : `${name}=${v.value}`,
  );
}

beforeAll(() => loadShellParser());

describe('a variable is known', () => {
  it.each([
    ['d=out && cat $d/log', ['d=out']],
    ['d=out; cat "${d}"', ['d=out']],
    ["d='build/x' && rm -r $d", ['d=build/x']],
    ['a=1 b=two; echo $a $b', ['a=1', 'b=two']],
    ['d=$(mktemp -d) && cd $d', ['d=marker']],
  ])('%s → %j', (command, expected) => {
    expect(known(command)).toEqual(expected);
  });
});

describe('a variable is not known', () => {
  it.each([
    ['d=x; d=y; cat $d', 'assigned twice'],
    ['d="a b"; cat $d', 'not plain text'],
    ['HOME=/tmp; cat $HOME/x', 'one of bash’s own'],
    ['IFS=/; d=x; cat $d', 'IFS changes how expansions split'],
    ['d=x; read d; cat $d', 'read assigns it'],
    ['d=x; command read d; cat $d', 'read behind command'],
    ['d=x; printf -v d y; cat $d', 'printf -v assigns it'],
    ['d=x; eval "$1"; cat $d', 'eval may assign anything'],
    ['d=x; f() { :; }; cat $d', 'a function definition'],
    ['d=x; echo $((d=1)); cat $d', 'arithmetic can assign'],
    ['d=x; echo ${d:=y}', 'a ${d:=…} expansion assigns'],
    ['d=x; for d in a b; do :; done; cat $d', 'for assigns it'],
    ['if true; then d=x; fi; cat $d', 'not at top level'],
    ['d=x & cat $d', 'assigned in a background job'],
    ['d=$(mktemp -d); cd $d', 'a fresh temp outside an && list'],
  ])('%s (%s)', (command) => {
    expect(known(command)).toEqual([]);
  });

  it('a fresh temp is not known when the caller does not track them', () => {
    expect(known('d=$(mktemp -d) && cd $d', false)).toEqual([]);
  });
});
