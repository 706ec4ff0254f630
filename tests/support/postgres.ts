/**
 * The throwaway PostgreSQL cluster the store's tests start once per file: bench/postgres-cluster.ts, shared
 * with `hookwise bench --fleet` (as bench/confine-box.ts is with the confinement tests).
 */
import type { StoreSettings } from '../../src/store/settings.js';
import { PostgresStore } from '../../src/store/postgres.js';

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
