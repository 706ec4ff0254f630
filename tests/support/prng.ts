/** mulberry32: a tiny seedable PRNG, the same sequence everywhere (fuzz inputs, fake secrets); shared with bench/. */
export { prng } from '../../bench/prng.js';
