/** `hookwise undo`: restore the project's files from the snapshot taken before the last confined command. */
import { findProjectRoot } from '../paths/canonical.js';
import { sanitize } from '../sanitize/index.js';
import { undo, UndoError, type UndoReport } from '../confine/undo.js';
import { locations } from '../util/locations.js';

export interface UndoCommandOptions {
  json?: boolean;
  dryRun?: boolean;
  removeCreated?: boolean;
}

export interface CommandResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export function undoCommand(
  options: UndoCommandOptions,
  cwd = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
): CommandResult {
  const projectRoot = findProjectRoot(cwd);
  let report: UndoReport;
  try {
    report = undo({
      projectRoot,
      runtimeDir: locations(env).runtimeDir,
      dryRun: options.dryRun === true,
      removeCreated: options.removeCreated === true,
      env,
    });
  } catch (error) {
    if (!(error instanceof UndoError)) throw error;
    return options.json === true
      ? { stdout: JSON.stringify({ ok: false, project: projectRoot, error: error.message }), stderr: '', exitCode: 1 }
      : { stdout: '', stderr: `hookwise undo: ${error.message}\n`, exitCode: 1 };
  }
  // The command was sanitized when recorded; sanitized again here in case the ref was written by something else.
  const command = sanitize(report.command).text;
  if (options.json === true)
    return { stdout: JSON.stringify({ ok: true, ...report, command }), stderr: '', exitCode: 0 };
  return { stdout: renderUndo(report, command), stderr: '', exitCode: 0 };
}

/** Control characters in a file name or command would drive the terminal: shown escaped. */
function shown(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is escaped
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) =>
    c === '\n' ? '\\n' : c === '\t' ? '\\t' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}

export function renderUndo(r: UndoReport, command: string): string {
  const cmd = shown(command.length > 200 ? `${command.slice(0, 199)}…` : command);
  const source = `the snapshot taken ${r.takenAt} before \`${cmd}\` (${r.ref}, ${r.commit.slice(0, 12)})`;
  const lines: string[] = [];
  const n = r.restored.length;
  const files = (k: number) => `${k} file${k === 1 ? '' : 's'}`;
  if (n === 0 && r.removed.length === 0) lines.push(`nothing to restore in ${r.project}: its files match ${source}`);
  else
    lines.push(
      `${r.dryRun ? 'would restore' : 'restored'} ${files(n)} in ${r.project} from ${source}${n > 0 ? ':' : ''}`,
    );
  for (const f of r.restored) lines.push(`  ${f.change.padEnd(9)} ${shown(f.path)}`);
  if (r.created.length > 0) {
    if (r.removed.length > 0)
      lines.push(`${r.dryRun ? 'would remove' : 'removed'} ${files(r.removed.length)} that did not exist then:`);
    else lines.push(`${files(r.created.length)} did not exist then, left in place (--remove-created removes them):`);
    for (const p of r.created) lines.push(`  ${shown(p)}`);
  }
  if (r.skipped.length > 0) {
    lines.push(`not restored (${r.skipped.length}):`);
    for (const s of r.skipped) lines.push(`  ${shown(s.path)}: ${s.why}`);
  }
  if (r.keptAs !== undefined)
    lines.push(
      `the files as they were before this undo are kept in ${r.keptAs} (git restore --source=${r.keptAs} --worktree -- <path> brings one back)`,
    );
  if (r.dryRun) lines.push('dry run: nothing was changed');
  lines.push('ignored files (node_modules, build output) are not in the snapshot and were not touched');
  return lines.join('\n');
}
