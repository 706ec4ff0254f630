/** The fake Messages API (bench/fake-anthropic.ts), shared with bench/eval-supervisor.ts. */
export * from '../../bench/fake-anthropic.js';
