/**
 * Fig-shaped spec modules and grammar entries written for the tests (not copies of Fig's), and the input
 * that builds a grammar table from them: a counter with BSD-style options our GNU entry replaces, a
 * version-control tool our entry extends, a versioned cloud CLI large enough to be split per service.
 */
import type { FigModuleLoader } from '../../src/catalog/fig-import.js';
import type { GrammarTableInput } from '../../src/catalog/grammar-build.js';

export const FIXTURE_SPECS: Record<string, Record<string, unknown>> = {
  counter: { default: { name: 'counter', options: [{ name: '-l' }, { name: '-w' }], args: { template: 'filepaths' } } },
  vcs: {
    default: {
      name: 'vcs',
      subcommands: [
        { name: 'commit', options: [{ name: ['-m', '--message'], args: { name: 'msg' } }] },
        { name: 'log', options: [{ name: '--oneline' }] },
      ],
    },
  },
  'cloud/index': { default: async () => ({ versionedSpecPath: 'cloud/1.0.0' }) },
  'cloud/1.0.0': {
    default: {
      name: 'cloud',
      subcommands: Array.from({ length: 8 }, (_, s) => ({
        name: `svc${s}`,
        subcommands: Array.from({ length: 40 }, (_, c) => ({
          name: `call${c}`,
          options: Array.from({ length: 30 }, (_, o) => ({ name: `--option-number-${o}`, args: {} })),
        })),
      })),
    },
  },
  'cloud/1.0.0/part': { default: { name: 'part' } },
  '@scope/tool': { default: { name: 'tool', options: [{ name: '--x' }] } },
};

export const fixtureLoader: FigModuleLoader = async (path) =>
  Object.hasOwn(FIXTURE_SPECS, path) ? FIXTURE_SPECS[path] : undefined;

export const FIXTURE_ENTRIES = [
  {
    file: 'src/catalog/grammar/counter.yml',
    text: 'source: GNU coreutils 9.1, `counter --help`\nprogram: counter\nmerge: replace\noptions: ["-l, --lines", "--files0-from=F"]\n',
  },
  {
    file: 'src/catalog/grammar/vcs.yml',
    text: 'source: vcs 2.39, `man vcs-stash`\nprogram: vcs\nmerge: extend\nsubcommands: [{ name: stash, options: [-p] }]\n',
  },
  {
    file: 'src/catalog/grammar/onlyours.yml',
    text: 'source: onlyours 1.0, `onlyours --help`\nprogram: onlyours\nmerge: extend\noptions: [-a]\n',
  },
];

export const fixtureInput = (): GrammarTableInput => ({
  fig: { version: '9.9.9', licence: 'MIT License (fixture)', modules: Object.keys(FIXTURE_SPECS), load: fixtureLoader },
  hand: FIXTURE_ENTRIES,
});
