/**
 * The store's connection uses TLS when the URL asks for it, against a real PostgreSQL started with `ssl=on`
 * and a certificate this test makes (openssl), which takes TCP connections only over TLS (`hostssl`):
 * verify-full with the right CA connects (and the session is encrypted), a wrong CA is refused, a URL that
 * turns TLS off is refused by the server.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStore } from '../../src/store/postgres.js';
import { findPostgres, startCluster, type Cluster } from '../support/postgres.js';

const binaries = findPostgres();
let skip = 'missing' in binaries ? binaries.missing : undefined;
if (skip === undefined) {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
  } catch {
    skip = 'openssl is not installed (the test makes its certificates with it)';
  }
}
if (skip !== undefined) console.warn(`tests/store/tls: skipped: ${skip}`);

let cluster: Cluster | undefined;
let certs: string;
let port: number;

const openssl = (...args: string[]): void => {
  execFileSync('openssl', args, { cwd: certs, stdio: 'ignore' });
};

/** Two self-signed CAs, and a certificate for localhost / 127.0.0.1 that the first signs. */
function makeCerts(): void {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  for (const ca of ['ca', 'other-ca'])
    openssl(
      'req',
      '-x509',
      ...ec,
      '-keyout',
      `${ca}.key`,
      '-out',
      `${ca}.crt`,
      '-days',
      '2',
      '-subj',
      `/CN=hookwise test ${ca}`,
    );
  openssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  writeFileSync(join(certs, 'san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.crt',
    '-days',
    '2',
    '-extfile',
    'san.ext',
  );
}

/** A free TCP port on the loopback (the kernel picks; closed again before the server takes it). */
async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

beforeAll(async () => {
  if (skip !== undefined || 'missing' in binaries) return;
  certs = mkdtempSync(join(tmpdir(), 'hookwise-tls-'));
  makeCerts();
  port = await freePort();
  cluster = startCluster(binaries, {
    port,
    cert: readFileSync(join(certs, 'server.crt'), 'utf8'),
    key: readFileSync(join(certs, 'server.key'), 'utf8'),
  });
}, 60_000);
afterAll(() => {
  cluster?.stop();
  if (certs !== undefined) rmSync(certs, { recursive: true, force: true });
});

const url = (query: string): string => `postgresql://${cluster!.tcpUser}@localhost:${port}/postgres?${query}`;

/** Connects with the URL and answers whether this session is encrypted, or throws the driver's refusal. */
async function encrypted(query: string): Promise<boolean> {
  const store = await PostgresStore.open(
    { kind: 'postgres', url: url(query), team: 'tls', user: 'ada', source: 'test' },
    '0'.repeat(32),
  );
  try {
    const [row] = await store.query<{ ssl: boolean }>('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()');
    return row!.ssl;
  } finally {
    await store.close();
  }
}

describe.skipIf(skip !== undefined)('TLS to the store', () => {
  it('verify-full with the CA that signed the server certificate connects, encrypted', async () => {
    expect(await encrypted(`sslmode=verify-full&sslrootcert=${join(certs, 'ca.crt')}`)).toBe(true);
  });

  it('a certificate signed by another CA is refused', async () => {
    await expect(encrypted(`sslmode=verify-full&sslrootcert=${join(certs, 'other-ca.crt')}`)).rejects.toThrow(
      /certificate/i,
    );
  });

  it('sslmode=require checks the certificate too with this driver: the right CA connects, none known refuses', async () => {
    expect(await encrypted(`sslmode=require&sslrootcert=${join(certs, 'ca.crt')}`)).toBe(true);
    await expect(encrypted('sslmode=require')).rejects.toThrow(/certificate/i);
  });

  it('sslmode=disable against a server that takes TCP only over TLS is refused', async () => {
    await expect(encrypted('sslmode=disable')).rejects.toThrow(/no encryption|pg_hba/i);
  });
});
