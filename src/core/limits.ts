/** Limits that every edge shares (the hook command, the daemon, the engine), in a module that loads nothing. */

/** The largest hook payload hookwise reads (a Write of a large file); larger ones fail closed. */
export const MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;
