/**
 * Loading config is total: read every scope's file, validate it against one schema, merge, and return the
 * effective config plus typed diagnostics. Nothing here throws at the user; callers decide what an error
 * means (check fails closed, `status` prints).
 *
 * Scopes, lowest trust first: built-in defaults, the project's committed .hookwise/ files, the user's
 * ~/.config/hookwise/config.yml. Roles and categories are the project's to define (that is what they are
 * for); settings that would loosen the gate (dropping a sensitive path, declaring a tool safe, allowing
 * writes outside the root) are honoured only from the user's file — a cloned repo cannot weaken them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import type { ConfigFiles } from './files.js';
import { parseYaml, type Diagnostic, type Parsed, type Schema } from './schema.js';
import { POLICY_SCHEMA, ROLES_SCHEMA, USER_CONFIG_SCHEMA, type RawConfig, type Source } from './config-schema.js';
import type { EffectiveConfig } from './config-types.js';
import { merge } from './config-merge.js';

export interface LoadedConfig {
  config: EffectiveConfig;
  diagnostics: Diagnostic[];
}

export function loadConfig(projectRoot: string, files: ConfigFiles): LoadedConfig {
  const diagnostics: Diagnostic[] = [];
  const label = (file: string): string => (file.startsWith(projectRoot + '/') ? relative(projectRoot, file) : file);
  const read = (file: string, schema: Schema, trusted: boolean): Source | undefined => {
    if (!existsSync(file)) return undefined;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      diagnostics.push({
        severity: 'error',
        file: label(file),
        line: 1,
        field: '',
        problem: `cannot read: ${(error as Error).message}`,
      });
      return undefined;
    }
    const parsed: Parsed = parseYaml(text, label(file), schema, diagnostics);
    if (parsed.value === undefined) return undefined;
    return { label: label(file), raw: parsed.value as RawConfig, lines: parsed.lines, trusted };
  };
  // Order = merge order: later overrides earlier for roles/categories.
  const sources = [
    read(files.user, USER_CONFIG_SCHEMA, true),
    read(files.policy, POLICY_SCHEMA, false),
    read(files.roles, ROLES_SCHEMA, false),
  ].filter((s): s is Source => s !== undefined);
  const config = merge(sources, diagnostics, { projectRoot, userConfigDir: dirname(files.user) });
  return { config, diagnostics };
}
