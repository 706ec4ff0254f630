/**
 * The `hookwise` executable. `check` and `session-check` run on every tool call, so they bypass commander
 * and every module they do not need; all other commands load the full CLI lazily.
 */
async function main(argv: string[]): Promise<number> {
  const command = argv[0];
  if (command === 'check' || command === 'session-check') {
    const { runHookCommand } = await import('./hook-command.js');
    return runHookCommand(argv.slice(1), command);
  }
  const { runProgram } = await import('./program.js');
  const code = await runProgram(argv);
  // A command may have set its own exit status (e.g. demo); keep the worse of the two.
  return Math.max(code, typeof process.exitCode === 'number' ? process.exitCode : 0);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  async (error: unknown) => {
    // Last line of defence: a message, not a stack trace, and exit 2 (a block for every host). The error may
    // quote the input: it is shown sanitized and cut (the sanitizer is loaded only on this path).
    process.exitCode = 2;
    const { shownError } = await import('../sanitize/shown.js');
    process.stderr.write(`hookwise: ${shownError(error)}\n`);
    if (process.env.HOOKWISE_DEBUG === '1' && error instanceof Error) process.stderr.write(`${error.stack ?? ''}\n`);
  },
);
