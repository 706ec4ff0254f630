/**
 * A throw-away npm registry on 127.0.0.1 that serves exactly the runtime packages package-lock.json pins,
 * from the tarballs `npm install` already put into npm's cache. It lets a test install the packed hookwise
 * tarball the way a user installs it (npm resolves and fetches its dependencies from a registry) without
 * the network and without depending on anything the README's `npm install` did not fetch.
 *
 * Why not `npm install --offline`: npm 11 resolves every dependency of a tarball through its full packument
 * (build-ideal-tree fetchManifest, fullMetadata), which `npm install` from a lockfile never caches; and even
 * a cached packument names versions newer than the lockfile's, whose tarballs are not in the cache.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';

interface LockEntry {
  name?: string;
  version?: string;
  integrity?: string;
  dev?: boolean;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  engines?: Record<string, string>;
  bin?: Record<string, string>;
  hasInstallScript?: boolean;
}

export interface LocalRegistry {
  url: string;
  /** Packages (name@version) the lockfile pins whose tarball is not in the cache (other platforms' optional binaries). */
  uncached: string[];
  close(): Promise<void>;
}

/** npm's cache directory (`npm config get cache`). */
export function npmCacheDir(): string {
  const r = spawnSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' });
  const dir = r.status === 0 ? r.stdout.trim() : '';
  return dir !== '' ? dir : join(homedir(), '.npm');
}

/** The cached tarball for an SRI integrity string, as cacache stores it (content-v2/<algo>/<hex split 2/2/rest>). */
function cachedTarball(cacheDir: string, integrity: string): string | undefined {
  for (const sri of integrity.split(/\s+/)) {
    const m = /^(sha\d+)-(.+)$/.exec(sri);
    if (m === null) continue;
    const hex = Buffer.from(m[2]!, 'base64').toString('hex');
    const file = join(cacheDir, '_cacache', 'content-v2', m[1]!, hex.slice(0, 2), hex.slice(2, 4), hex.slice(4));
    if (existsSync(file)) return file;
  }
  return undefined;
}

/** Every non-dev package the lockfile pins, by name, then version. */
function runtimePackages(lockFile: string): Map<string, Map<string, LockEntry>> {
  const lock = JSON.parse(readFileSync(lockFile, 'utf8')) as { packages: Record<string, LockEntry> };
  const byName = new Map<string, Map<string, LockEntry>>();
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (
      path === '' ||
      entry.dev === true ||
      entry.link === true ||
      entry.version === undefined ||
      entry.integrity === undefined
    )
      continue;
    const name = entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const versions = byName.get(name) ?? new Map<string, LockEntry>();
    versions.set(entry.version, entry);
    byName.set(name, versions);
  }
  return byName;
}

export async function startLocalRegistry(lockFile: string, cacheDir = npmCacheDir()): Promise<LocalRegistry> {
  const packages = runtimePackages(lockFile);
  const tarballs = new Map<string, string>(); // "/-/<name>/<version>.tgz" → cached file
  const uncached: string[] = [];
  for (const [name, versions] of packages) {
    for (const [version, entry] of versions) {
      const file = cachedTarball(cacheDir, entry.integrity!);
      if (file === undefined) uncached.push(`${name}@${version}`);
      else tarballs.set(`/-/${name}/${version}.tgz`, file);
    }
  }
  let base = '';
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]!);
    const tarball = tarballs.get(path);
    if (tarball !== undefined) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(readFileSync(tarball));
      return;
    }
    const versions = packages.get(path.slice(1));
    if (versions === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not found"}');
      return;
    }
    const name = path.slice(1);
    const manifests: Record<string, unknown> = {};
    for (const [version, e] of versions) {
      manifests[version] = {
        name,
        version,
        ...(e.dependencies && { dependencies: e.dependencies }),
        ...(e.optionalDependencies && { optionalDependencies: e.optionalDependencies }),
        ...(e.peerDependencies && { peerDependencies: e.peerDependencies }),
        // Without it an optional peer (pg's pg-native) reads as required, and npm asks for a package no one installs.
        ...(e.peerDependenciesMeta && { peerDependenciesMeta: e.peerDependenciesMeta }),
        ...(e.os && { os: e.os }),
        ...(e.cpu && { cpu: e.cpu }),
        ...(e.libc && { libc: e.libc }),
        ...(e.engines && { engines: e.engines }),
        ...(e.bin && { bin: e.bin }),
        ...(e.hasInstallScript === true && { hasInstallScript: true }),
        dist: { tarball: `${base}/-/${name}/${version}.tgz`, integrity: e.integrity },
      };
    }
    const latest = [...versions.keys()].sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).at(-1)!;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ name, 'dist-tags': { latest }, versions: manifests }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/`,
    uncached,
    // npm keeps connections alive after it is done: close them too, or close() waits for their timeout.
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
