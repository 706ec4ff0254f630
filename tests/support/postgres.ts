/**
 * The throwaway PostgreSQL cluster the store's tests start once per file: bench/postgres-cluster.ts, shared
 * with `hookwise bench --fleet` (as bench/confine-box.ts is with the confinement tests).
 */
import { afterAll, beforeAll } from 'vitest';
import type { StoreSettings } from '../../src/store/settings.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { findPostgres, startCluster, type Cluster } from '../../bench/postgres-cluster.js';

export {
  findPostgres,
  startCluster,
  type Cluster,
  type ClusterTls,
  type PostgresBinaries,
} from '../../bench/postgres-cluster.js';

/** Bring a team's schema to this hookwise's migrations (what `hookwise store migrate` does). */
export async function migrateTeam(settings: Extract<StoreSettings, { kind: 'postgres' }>): Promise<void> {
  const store = await PostgresStore.open(settings, '0'.repeat(32));
  try {
    await store.migrate();
  } finally {
    await store.close();
  }
}

/** A team on this file's throwaway cluster: its settings, the cluster, and why the file skips (no binaries). */
export interface TeamCluster {
  /** Why the file's tests skip (PostgreSQL's binaries are missing), or undefined. */
  skip: string | undefined;
  cluster: () => Cluster;
  /** The settings of `team` (default: the team migrated at start) for the user `ada`. */
  settings: (team?: string) => Extract<StoreSettings, { kind: 'postgres' }>;
}

/**
 * Registers the file's beforeAll (start a cluster, migrate `team`) and afterAll (stop it); without
 * PostgreSQL's binaries it warns once, naming the file, and starts nothing.
 */
export function useTeamCluster(file: string, team: string): TeamCluster {
  const binaries = findPostgres();
  const skip = 'missing' in binaries ? binaries.missing : undefined;
  if (skip !== undefined) console.warn(`${file}: skipped: ${skip}`);
  let cluster: Cluster | undefined;
  const settings = (name = team): Extract<StoreSettings, { kind: 'postgres' }> => ({
    kind: 'postgres',
    url: cluster!.url(),
    team: name,
    user: 'ada',
    source: 'test',
  });
  beforeAll(async () => {
    if ('missing' in binaries) return;
    cluster = startCluster(binaries);
    await migrateTeam(settings());
  }, 60_000);
  afterAll(() => cluster?.stop());
  return { skip, cluster: () => cluster!, settings };
}
