/**
 * Whether confinement is on for a project, and why, in one sentence: `doctor`, `init` and `install` say the
 * same thing. On by default where bubblewrap works and Claude Code's own sandbox is off (engine/confine.ts);
 * the user's config.yml or a project's policy.yml may turn it off.
 */
import { confinementByDefault } from '../engine/confine.js';
import { loadConfig } from '../policy/config.js';
import { configFiles } from '../policy/files.js';
import type { Locations } from '../util/locations.js';

export interface ConfinementStatus {
  on: boolean;
  /** "on by default (…)", "off (…)": what and why, without the consequences. */
  summary: string;
  /** The whole sentence for a new user: what it means and how to change it. */
  line: string;
}

const TURN_OFF =
  'turn it off with `confine: {enabled: false}` in ~/.config/hookwise/config.yml (or a project’s .hookwise/policy.yml)';
const ASKED = 'commands hookwise cannot judge are asked';

export async function confinementStatus(projectRoot: string, where: Locations): Promise<ConfinementStatus> {
  const { confine } = loadConfig(projectRoot, configFiles(projectRoot, where.userConfigDir)).config;
  if (confine.mode === 'off') {
    const summary = `off (confine.enabled: false in ${confine.source})`;
    return { on: false, summary, line: `confinement: ${summary}: ${ASKED}` };
  }
  const byDefault = await confinementByDefault(where, { host: 'claude' }, projectRoot);
  if (confine.mode === 'on') {
    const summary = `on (confine.enabled: true in ${confine.source})${byDefault.on ? '' : `, but ${byDefault.why}`}`;
    return {
      on: byDefault.on,
      summary,
      line: `confinement: ${summary}${byDefault.on ? '' : `: ${ASKED}, each saying why it was not run confined`}`,
    };
  }
  if (byDefault.on) {
    const summary = `on by default (${byDefault.why})`;
    return {
      on: true,
      summary,
      line: `confinement: ${summary}: a command no rule or memory decides runs inside walls instead of being asked — writes in the project only, no credentials, no network (docs/confine.md); ${TURN_OFF}`,
    };
  }
  const summary = `off by default here (${byDefault.why})`;
  return { on: false, summary, line: `confinement: ${summary}: ${ASKED}` };
}
