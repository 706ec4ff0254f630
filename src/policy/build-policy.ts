/** The slow path behind the policy cache: YAML → validated config → compiled policy. */
import type { Locations } from '../util/locations.js';
import type { CompiledPolicy } from './compiled.js';
import { compilePolicy } from './compile.js';
import { loadConfig } from './config.js';
import { configFiles } from './files.js';
import { configError } from './load.js';
import { formatDiagnostic } from './schema.js';

export function compileProjectPolicy(projectRoot: string, where: Locations): CompiledPolicy {
  const { config, diagnostics } = loadConfig(projectRoot, configFiles(projectRoot, where.userConfigDir));
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw configError(errors.map(formatDiagnostic));
  return compilePolicy(config, where.home, diagnostics.filter((d) => d.severity === 'warning'));
}
