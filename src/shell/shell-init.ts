/**
 * Shell init code printed by well-known tools, loaded the way their documentation says:
 * `eval "$(direnv hook bash)"`. The parser (unwrap.ts) lets exactly these through as `eval` of a
 * substitution, and the workflow pack allows them; any other spelling keeps `eval` of a run-time value
 * unparseable. A separate module so the packs can share the list without loading the parser.
 */
export const SHELL_INIT_GENERATORS: ReadonlySet<string> = new Set([
  'direnv hook bash',
  'direnv hook zsh',
  'ssh-agent',
  'ssh-agent -s',
  'pyenv init -',
  'pyenv init --path',
  'pyenv init - bash',
  'pyenv init - zsh',
  'pyenv virtualenv-init -',
  'rbenv init -',
  'rbenv init - bash',
  'rbenv init - zsh',
  'nodenv init -',
  'goenv init -',
  'fnm env',
  'fnm env --use-on-cd',
  'starship init bash',
  'starship init zsh',
  'zoxide init bash',
  'zoxide init zsh',
  'mise activate bash',
  'mise activate zsh',
  'brew shellenv',
  'dircolors',
  'dircolors -b',
]);

/** The generator of `$(generator)` when it is one of SHELL_INIT_GENERATORS, exactly. */
export function shellInitGenerator(substitution: string): string | undefined {
  const m = /^\$\((.*)\)$/s.exec(substitution);
  return m !== null && SHELL_INIT_GENERATORS.has(m[1]!) ? m[1] : undefined;
}
