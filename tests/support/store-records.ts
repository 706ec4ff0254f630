/** The store's record builder lives with bench --fleet, which uses it too (tests import bench, never the reverse). */
export { sharedRecord } from '../../bench/store-records.js';
