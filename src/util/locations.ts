/** Where hookwise keeps things, from the environment (read once, at the edge). */
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface Locations {
  home: string;
  /** Private per-user runtime directory: sessions, audit log, caches, sockets. */
  runtimeDir: string;
  /** User config: config.yml, user and org rules. */
  userConfigDir: string;
  /** Claude Code's config directory when CLAUDE_CONFIG_DIR moves it from ~/.claude (its transcripts, its hooks). */
  claudeConfigDir?: string;
}

export function locations(env: NodeJS.ProcessEnv = process.env): Locations {
  const home = env.HOME !== undefined && env.HOME !== '' ? env.HOME : homedir();
  const runtimeDir =
    nonEmpty(env.HOOKWISE_RUNTIME_DIR) ??
    (nonEmpty(env.XDG_RUNTIME_DIR) !== undefined ? join(env.XDG_RUNTIME_DIR!, 'hookwise') : undefined) ??
    join(nonEmpty(env.XDG_CACHE_HOME) ?? join(home, '.cache'), 'hookwise');
  const userConfigDir =
    nonEmpty(env.HOOKWISE_CONFIG_DIR) ?? join(nonEmpty(env.XDG_CONFIG_HOME) ?? join(home, '.config'), 'hookwise');
  const claudeConfigDir = nonEmpty(env.CLAUDE_CONFIG_DIR);
  return { home, runtimeDir, userConfigDir, ...(claudeConfigDir === undefined ? {} : { claudeConfigDir }) };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
