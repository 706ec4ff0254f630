/**
 * Which hookwise wiring a user has: the hookwise handlers in every agent settings file `install` may write
 * (both scopes, both Claude Code wirings), and the Claude Code plugin. `doctor` judges it; the daemon
 * commands and `install` word their hints by it (the http gate blocks while the daemon is down, a command
 * wiring decides in process).
 */
import { existsSync, readFileSync } from 'node:fs';
import type { HostName } from '../core/tool-call.js';
import { HOST_SPECS, INSTALL_SCOPES, isHookwiseHandler, WIRINGS, type InstallContext } from './install.js';

/** One settings file's hookwise handlers, by event. */
export interface Wired {
  file: string;
  host: HostName;
  events: Map<string, Record<string, unknown>[]>;
}

export interface WiringScan {
  wired: Wired[];
  /** Settings files that exist but are not a JSON object: the host ignores them, hooks included. */
  unreadable: { file: string; problem: string }[];
  /** The enabled hookwise plugin (`<id> in <file>`), if any. */
  plugin: string | undefined;
}

const PLUGIN_ID = /^hookwise@/;

export function gateEvent(host: HostName): string {
  return host === 'gemini' ? 'BeforeTool' : 'PreToolUse';
}

export function scanWiring(ctx: InstallContext): WiringScan {
  const wired: Wired[] = [];
  const unreadable: WiringScan['unreadable'] = [];
  for (const { file, host } of settingsFiles(ctx)) {
    const settings = readJson(file);
    if (settings === undefined) continue;
    if (settings instanceof Error) {
      unreadable.push({ file, problem: settings.message });
      continue;
    }
    const events = hookwiseHandlers(settings);
    if (events.size > 0) wired.push({ file, host, events });
  }
  const claudeFiles = settingsFiles(ctx)
    .filter((f) => f.host === 'claude')
    .map((f) => f.file);
  return { wired, unreadable, plugin: pluginEnabled(claudeFiles) };
}

/** The settings files whose gate posts to the daemon's loopback endpoint (Claude Code's http wiring). */
export function httpGates(scan: WiringScan): string[] {
  return scan.wired.filter((w) => (w.events.get('PreToolUse') ?? []).some((h) => h.type === 'http')).map((w) => w.file);
}

function settingsFiles(ctx: InstallContext): { file: string; host: HostName }[] {
  const out: { file: string; host: HostName }[] = [];
  for (const host of ['claude', 'gemini', 'codex'] as const) {
    const files = new Set(
      INSTALL_SCOPES.flatMap((scope) => WIRINGS.map((w) => HOST_SPECS[host].settingsFile(scope, ctx, w))),
    );
    for (const file of files) out.push({ file, host });
  }
  return out;
}

function readJson(file: string): Record<string, unknown> | undefined | Error {
  if (!existsSync(file)) return undefined;
  try {
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : new Error('not a JSON object');
  } catch (error) {
    return error as Error;
  }
}

function hookwiseHandlers(settings: Record<string, unknown>): Map<string, Record<string, unknown>[]> {
  const events = new Map<string, Record<string, unknown>[]>();
  const hooks = settings.hooks;
  if (typeof hooks !== 'object' || hooks === null) return events;
  for (const [event, groups] of Object.entries(hooks as Record<string, unknown>)) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups as { hooks?: unknown[] }[]) {
      for (const handler of group?.hooks ?? []) {
        if (isHookwiseHandler(handler))
          events.set(event, [...(events.get(event) ?? []), handler as Record<string, unknown>]);
      }
    }
  }
  return events;
}

/** The enabled hookwise plugin's id in any Claude settings file, if any. */
function pluginEnabled(files: string[]): string | undefined {
  for (const file of files) {
    const settings = readJson(file);
    if (settings === undefined || settings instanceof Error) continue;
    const enabled = settings.enabledPlugins;
    if (typeof enabled !== 'object' || enabled === null) continue;
    for (const [id, on] of Object.entries(enabled as Record<string, unknown>))
      if (PLUGIN_ID.test(id) && on === true) return `${id} in ${file}`;
  }
  return undefined;
}
