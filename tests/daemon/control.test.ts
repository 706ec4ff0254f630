/** Starting a daemon in a runtime directory where a link was planted at its log. */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnDaemon } from '../../src/daemon/control.js';
import { daemonPaths } from '../../src/daemon/paths.js';
import { locations } from '../../src/util/locations.js';
import { makeProject } from '../support/project.js';

describe('spawnDaemon', () => {
  it('never writes its log through a link planted at the log path', () => {
    const p = makeProject();
    const where = locations(p.env);
    mkdirSync(where.runtimeDir, { recursive: true, mode: 0o700 });
    const bashrc = join(p.home, '.bashrc');
    writeFileSync(bashrc, 'alias ll="ls -l"\n');
    symlinkSync(bashrc, daemonPaths(where).log);
    expect(() => spawnDaemon(where)).toThrow(/symbolic link/);
    expect(readFileSync(bashrc, 'utf8')).toBe('alias ll="ls -l"\n');
    expect(existsSync(daemonPaths(where).startLock)).toBe(false);
  });
});
