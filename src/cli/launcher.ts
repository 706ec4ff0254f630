/**
 * The `hookwise` executable: hands a hook call to the running daemon (cli/thin-client.ts), and otherwise
 * runs the hook-path bundle (dist/hook.cjs) through a V8 code cache (see src/util/code-cache.ts). The cache is (re)written only by a `check` run, so it holds the functions a
 * decision needs rather than those of some other command.
 */
import { writeSync } from 'node:fs';
import { join } from 'node:path';
import { loadWithCodeCache } from '../util/code-cache.js';
import { answerFromDaemon } from './thin-client.js';

declare const __dirname: string;

const loadCli = (): unknown =>
  loadWithCodeCache(join(__dirname, 'hook.cjs'), require, { writeCache: process.argv[2] === 'check' });

// A crash must block, never pass: every host treats an exit status other than 0 and 2 as a non-blocking error
// and runs the tool call anyway. So anything thrown and not caught ends the process with 2 and a message.
process.on('uncaughtException', (error: unknown) => {
  writeSync(
    2,
    `hookwise: crashed, so this call is blocked: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(2);
});

// A hook call goes to the running daemon first (cli/thin-client.ts); only without an answer is the CLI loaded.
answerFromDaemon(process.argv.slice(2)).then(
  (code) => {
    if (code === undefined) loadCli();
    else process.exitCode = code;
  },
  () => loadCli(),
);
