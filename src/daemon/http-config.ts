/**
 * The loopback HTTP endpoint's port and bearer token: `<config>/daemon/http.json`, made once (a free port, 32
 * random bytes) and kept, because Claude Code's settings name both. Trusted only when it is ours: a regular
 * file (not a link) owned by this user, mode 0600, in a 0700 directory we own.
 */
import { randomBytes } from 'node:crypto';
import { lstatSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { HookwiseError } from '../core/errors.js';
import { ensurePrivateDir, writeFileAtomic } from '../util/fs-safe.js';
import type { Locations } from '../util/locations.js';
import { daemonPaths } from './paths.js';

export interface HttpConfig {
  port: number;
  token: string;
}

export function readHttpConfig(where: Locations): HttpConfig | undefined {
  const { httpDir, http } = daemonPaths(where);
  const stat = lstatSync(http, { throwIfNoEntry: false });
  if (stat === undefined) return undefined;
  ensurePrivateDir(httpDir);
  const uid = process.getuid?.();
  if (!stat.isFile() || (uid !== undefined && stat.uid !== uid) || (stat.mode & 0o077) !== 0) {
    throw new HookwiseError(
      'RUNTIME_DIR_UNSAFE',
      `${http} must be a regular file of yours with mode 0600 (it holds the daemon's token); remove it and run hookwise daemon start --http`,
    );
  }
  let parsed: Partial<HttpConfig>;
  try {
    parsed = JSON.parse(readFileSync(http, 'utf8')) as Partial<HttpConfig>;
  } catch (error) {
    throw new HookwiseError(
      'CONFIG_INVALID',
      `${http} is not valid JSON (${(error as Error).message}); remove it and run hookwise daemon start --http`,
    );
  }
  if (
    !Number.isInteger(parsed.port) ||
    parsed.port! <= 0 ||
    parsed.port! > 65535 ||
    typeof parsed.token !== 'string' ||
    !/^[A-Za-z0-9_-]{32,}$/.test(parsed.token)
  ) {
    throw new HookwiseError(
      'CONFIG_INVALID',
      `${http} must hold {"port": 1-65535, "token": "<at least 32 url-safe characters>"}; remove it and run hookwise daemon start --http`,
    );
  }
  return { port: parsed.port!, token: parsed.token };
}

/** The kept config, or a new one with a free loopback port (`port` to choose it). */
export async function ensureHttpConfig(where: Locations, port?: number): Promise<HttpConfig> {
  const held = readHttpConfig(where);
  if (held !== undefined && (port === undefined || held.port === port)) return held;
  const config: HttpConfig = {
    port: port ?? (await freePort()),
    token: held?.token ?? randomBytes(32).toString('base64url'),
  };
  const { httpDir, http } = daemonPaths(where);
  ensurePrivateDir(httpDir);
  writeFileAtomic(http, JSON.stringify(config) + '\n', { mode: 0o600, durable: true });
  return config;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}
