/** The slow path behind the policy cache: YAML → validated config → compiled policy. */
import type { Locations } from '../util/locations.js';
import type { CompiledPolicy } from './compiled.js';
import { compilePolicy } from './compile.js';
import { loadConfig } from './config.js';
import { configFiles } from './files.js';
import { HookwiseError } from '../core/errors.js';
import { formatDiagnostic } from './schema.js';

export function compileProjectPolicy(projectRoot: string, where: Locations): CompiledPolicy {
  const { config, diagnostics } = loadConfig(projectRoot, configFiles(projectRoot, where.userConfigDir));
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw configError(errors.map(formatDiagnostic));
  return compilePolicy(
    config,
    where.home,
    diagnostics.filter((d) => d.severity === 'warning'),
  );
}

export function configError(problems: string[]): HookwiseError {
  const shown = problems.slice(0, 10);
  const more = problems.length > shown.length ? `\n… and ${problems.length - shown.length} more` : '';
  return new HookwiseError('CONFIG_INVALID', `hookwise config has errors:\n${shown.join('\n')}${more}`);
}
