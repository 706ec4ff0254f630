/**
 * Is Claude Code's own Bash sandbox on for this project? Read from the settings files Claude Code merges, in
 * its precedence order — managed, then the project's local, then the project's shared, then the user's — the
 * first that sets `sandbox.enabled` decides (docs: code.claude.com/docs/en/settings, /sandboxing).
 *
 * Why hookwise asks: a command hookwise wraps for its own walls is wrapped again by Claude Code's sandbox, and
 * that fails (Claude Code 2.1.330: "Sandboxed command is too long for one shell argument even with the mounts
 * passed through a file"). Relying on Claude Code's walls instead is not the same allow: they leave `.hookwise/`
 * writable, and where the sandbox cannot start Claude Code runs the command unsandboxed unless
 * `failIfUnavailable` is set. So the engine neither wraps twice nor allows on walls it does not draw.
 *
 * A settings file that cannot be read or parsed counts as "maybe on" (`unknown`): the fail-closed answer is the
 * same ask. Settings given on Claude Code's command line (`--settings`) are not visible to a hook.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAbsent, statIfPresent } from '../util/fs-safe.js';

export type HostSandbox = 'on' | 'off' | 'unknown';

/** Settings files are small; a bigger one is not read (and counts as unknown). */
const MAX_SETTINGS_BYTES = 1024 * 1024;

export interface ClaudeSettingsPlaces {
  projectRoot: string;
  home: string;
  env: NodeJS.ProcessEnv;
}

/** The settings files Claude Code reads, highest precedence first. */
export function claudeSettingsFiles(places: ClaudeSettingsPlaces): string[] {
  const configDir =
    places.env.CLAUDE_CONFIG_DIR !== undefined && places.env.CLAUDE_CONFIG_DIR !== ''
      ? places.env.CLAUDE_CONFIG_DIR
      : join(places.home, '.claude');
  return [
    process.platform === 'darwin'
      ? '/Library/Application Support/ClaudeCode/managed-settings.json'
      : '/etc/claude-code/managed-settings.json',
    join(places.projectRoot, '.claude', 'settings.local.json'),
    join(places.projectRoot, '.claude', 'settings.json'),
    join(configDir, 'settings.json'),
  ];
}

export function claudeSandbox(
  places: ClaudeSettingsPlaces,
  read: (file: string) => string | undefined = readSettings,
): HostSandbox {
  for (const file of claudeSettingsFiles(places)) {
    let text: string | undefined;
    try {
      text = read(file);
    } catch {
      return 'unknown';
    }
    if (text === undefined) continue;
    let enabled: unknown;
    try {
      const settings = JSON.parse(text) as { sandbox?: { enabled?: unknown } } | null;
      if (settings === null || typeof settings !== 'object') return 'unknown';
      enabled = settings.sandbox?.enabled;
    } catch {
      return 'unknown';
    }
    if (enabled === true) return 'on';
    if (enabled === false) return 'off';
    if (enabled !== undefined) return 'unknown';
  }
  return 'off';
}

/** The file's text, or undefined when it does not exist; throws when it exists but cannot be read whole. */
function readSettings(file: string): string | undefined {
  // Usually absent: a stat says so without the failed read's exception (a stack trace each).
  if (statIfPresent(file) === undefined) return undefined;
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    if (isAbsent(error)) return undefined;
    throw error;
  }
  if (bytes.length > MAX_SETTINGS_BYTES) throw new Error(`${file} is larger than ${MAX_SETTINGS_BYTES} bytes`);
  return bytes.toString('utf8');
}
