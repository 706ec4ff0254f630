/**
 * A throwaway PostgreSQL cluster for the store's tests and `hookwise bench --fleet`: initdb into a temp dir, a unix socket in that dir
 * (no TCP port, nothing reachable off this machine), `pg_ctl start`; `stop()` stops it and removes the dir.
 * As root the binaries run as the `postgres` user (initdb refuses root), and the temp dir is made theirs.
 * Without the binaries `findPostgres()` says why, and the tests skip with that reason.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '../src/util/fs-safe.js';

export interface PostgresBinaries {
  bin: string;
}

const CANDIDATE_DIRS = ['/usr/lib/postgresql'];

/** The newest installed PostgreSQL's bin dir, or the reason there is none. */
export function findPostgres(): PostgresBinaries | { missing: string } {
  if (process.env.HOOKWISE_TEST_PG_BIN !== undefined) return { bin: process.env.HOOKWISE_TEST_PG_BIN };
  for (const root of CANDIDATE_DIRS) {
    if (!existsSync(root)) continue;
    const versions = readdirSync(root)
      .filter((v) => /^\d+$/.test(v) && existsSync(join(root, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length > 0) return { bin: join(root, versions[0]!, 'bin') };
  }
  return { missing: "PostgreSQL's binaries (initdb, pg_ctl) are not installed: apt-get install postgresql" };
}

export interface Cluster {
  /** A connection URL over the cluster's unix socket. */
  url(database?: string): string;
  /** The database user to connect as (over TCP too, with TLS). */
  readonly tcpUser: string;
  /** Stops the server (fast shutdown), keeping its data: `start()` brings it back. */
  stopServer(): void;
  /** Kills the server at once (SIGKILL to the postmaster): the fault a crashed or unplugged store looks like. */
  kill(): void;
  start(): void;
  /** Stops the server and removes the cluster's directory. */
  stop(): void;
  readonly dir: string;
}

const isRoot = (): boolean => process.getuid?.() === 0;

function run(bin: string, args: string[], asUser: boolean): string {
  const [cmd, argv] = asUser ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  return execFileSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * TLS on TCP (the store's TLS tests): the server listens on 127.0.0.1:`port` with this certificate and key
 * (PEM text), and pg_hba.conf takes TCP connections only over TLS (`hostssl`); the unix socket stays.
 */
export interface ClusterTls {
  port: number;
  cert: string;
  key: string;
}

export function startCluster(binaries: PostgresBinaries, tls?: ClusterTls): Cluster {
  const dir = mkdtempSync(join(tmpdir(), 'hookwise-pg-'));
  const asUser = isRoot();
  let owner: { uid: number; gid: number } | undefined;
  if (asUser) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
    owner = { uid, gid };
  }
  const data = join(dir, 'data');
  const user = asUser ? 'postgres' : (process.env.USER ?? 'postgres');
  run(join(binaries.bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', user, '--no-sync', '-E', 'UTF8'], asUser);
  let options = `-k ${dir} -c listen_addresses='' -c fsync=off -c max_connections=200`;
  if (tls !== undefined) {
    // The server refuses a key that others may read: 0600, owned by the server's user.
    for (const [name, text] of [
      ['server.crt', tls.cert],
      ['server.key', tls.key],
    ] as const) {
      writeFileSync(join(data, name), text, { mode: 0o600 });
      if (owner !== undefined) chownSync(join(data, name), owner.uid, owner.gid);
    }
    writeFileSync(join(data, 'pg_hba.conf'), 'local all all trust\nhostssl all all 127.0.0.1/32 trust\n');
    options = `-k ${dir} -c listen_addresses=127.0.0.1 -p ${tls.port} -c ssl=on -c fsync=off -c max_connections=200`;
  }
  const start = (): void => {
    run(join(binaries.bin, 'pg_ctl'), ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start'], asUser);
  };
  start();
  const pid = (): number | undefined => {
    try {
      return Number(execFileSync('head', ['-1', join(data, 'postmaster.pid')], { encoding: 'utf8' }).trim());
    } catch {
      return undefined; // not running: no pid file
    }
  };
  let stopped = false;
  return {
    dir,
    url: (database = 'postgres') =>
      `postgresql://${user}@/${database}?host=${encodeURIComponent(dir)}${tls === undefined ? '' : `&port=${tls.port}`}`,
    tcpUser: user,
    start,
    stopServer: () => run(join(binaries.bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop'], asUser),
    kill: () => {
      const p = pid();
      if (p === undefined) return;
      process.kill(p, 'SIGKILL');
      for (let i = 0; i < 400 && processAlive(p, undefined); i++) execFileSync('sleep', ['0.025']);
    },
    stop: () => {
      if (stopped) return;
      stopped = true;
      try {
        run(join(binaries.bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'], asUser);
      } catch {
        // already stopped (a test killed it): removing the dir is all that is left
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
