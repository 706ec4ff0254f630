/**
 * Which store this machine uses: the files (the default: one machine, exactly as before) or a team's
 * PostgreSQL. Only the user's own config (`<userConfigDir>/config.yml`, `store: {url, team, user}`) or the
 * environment (`HOOKWISE_STORE_URL`, `HOOKWISE_STORE_TEAM`, `HOOKWISE_STORE_USER`) may choose PostgreSQL —
 * never a project's files, which the policy schema does not let name a store at all.
 *
 * Loading is total: a bad setting is a problem naming the file and field, and the store stays the files
 * (nothing is sent anywhere on a setting we could not read).
 */
import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { USER_CONFIG_SCHEMA, type RawConfig } from '../policy/config-schema.js';
import { parseYaml, type Diagnostic } from '../policy/schema.js';
import { findSecrets } from '../sanitize/index.js';
import { isAbsent } from '../util/fs-safe.js';

export const STORE_KINDS = ['files', 'postgres'] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

export type StoreSettings =
  | { kind: 'files' }
  | {
      kind: 'postgres';
      /** The connection URL as given (it may hold a password: never log it; see `describeUrl`). */
      url: string;
      /** The team: its rows live in the schema `hookwise_<team>` (store/postgres.ts). */
      team: string;
      /** Whose user-scope decisions this machine shares (the same name on each of the user's machines). */
      user: string;
      /** Where the URL came from: the env variable or the config file. */
      source: string;
    };

export interface StoreSettingsLoad {
  settings: StoreSettings;
  problems: string[];
}

/** Team and user names name a schema and rows: a short, plain alphabet (and no secret). */
const TEAM_NAME = /^[a-z][a-z0-9_]{0,39}$/;
const USER_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
export const DEFAULT_TEAM = 'default';

export function storeSettings(userConfigDir: string, env: NodeJS.ProcessEnv = process.env): StoreSettingsLoad {
  const problems: string[] = [];
  const file = join(userConfigDir, 'config.yml');
  const raw = readStoreSection(file, problems);
  const fromEnv = nonEmpty(env.HOOKWISE_STORE_URL);
  const url = fromEnv ?? raw?.url;
  if (url === undefined) return { settings: { kind: 'files' }, problems };
  const source = fromEnv !== undefined ? 'HOOKWISE_STORE_URL' : `${file} (store.url)`;
  if (!/^postgres(ql)?:\/\//.test(url)) {
    problems.push(`${source}: the store URL must start with postgres:// or postgresql://; using the local files`);
    return { settings: { kind: 'files' }, problems };
  }
  const team = nonEmpty(env.HOOKWISE_STORE_TEAM) ?? raw?.team ?? DEFAULT_TEAM;
  if (!TEAM_NAME.test(team)) {
    problems.push(
      `store team "${team}" must be lower-case letters, digits and _ (at most 40, a letter first); using the local files`,
    );
    return { settings: { kind: 'files' }, problems };
  }
  const user = nonEmpty(env.HOOKWISE_STORE_USER) ?? raw?.user ?? localUser();
  if (!USER_NAME.test(user) || findSecrets(user).length > 0) {
    problems.push(
      `store user must be 1-64 letters, digits or . _ @ - (set store.user in ${file}); using the local files`,
    );
    return { settings: { kind: 'files' }, problems };
  }
  return { settings: { kind: 'postgres', url, team, user, source }, problems };
}

/** The URL without its password, for messages. */
export function describeUrl(url: string): string {
  // Not through URL: a unix-socket URL (`postgresql://user@/db?host=/run/postgresql`) has no host it accepts.
  return url.replace(/^(postgres(?:ql)?:\/\/[^:@/]*):[^@/]*@/, '$1:***@');
}

function readStoreSection(file: string, problems: string[]): RawConfig['store'] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (isAbsent(error)) return undefined;
    problems.push(`${file}: cannot read: ${(error as Error).message}`);
    return undefined;
  }
  const diagnostics: Diagnostic[] = [];
  const parsed = parseYaml(text, file, USER_CONFIG_SCHEMA, diagnostics);
  for (const d of diagnostics)
    if (d.severity === 'error' && d.field.startsWith('store')) problems.push(`${d.file}:${d.line}: ${d.problem}`);
  return (parsed.value as RawConfig | undefined)?.store;
}

function localUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
