/** This build's version (package.json, set by the bundler); 'dev' when run from sources. */
declare const __HOOKWISE_VERSION__: string;
export const VERSION = typeof __HOOKWISE_VERSION__ === 'string' ? __HOOKWISE_VERSION__ : 'dev';
