/**
 * The throwaway PostgreSQL cluster the store's tests start once per file: bench/postgres-cluster.ts, shared
 * with `hookwise bench --fleet` (as bench/confine-box.ts is with the confinement tests).
 */
export {
  findPostgres,
  startCluster,
  type Cluster,
  type ClusterTls,
  type PostgresBinaries,
} from '../../bench/postgres-cluster.js';
