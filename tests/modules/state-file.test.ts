/** Signed module state: round trip, file modes, and every kind of tampering fails closed. */
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { breakerFailure, breakerSuccess, INITIAL_STATE, toolUseKey } from '../../src/modules/machine.js';
import { moduleStateFile, readModuleState, signingKey, updateModuleState } from '../../src/modules/state-file.js';
import type { Locations } from '../../src/util/locations.js';
import { makeProject } from '../support/project.js';

function where(): Locations {
  const p = makeProject();
  return { home: p.home, runtimeDir: p.runtimeDir, userConfigDir: p.configDir };
}
const mode = (path: string): number => statSync(path).mode & 0o777;

describe('signed module state', () => {
  it('absent → the initial state; written → verified, 0600 files in 0700 directories, no key until first write', () => {
    const w = where();
    expect(readModuleState(w, 's1')).toEqual({ kind: 'absent', state: INITIAL_STATE });
    expect(signingKey(w.userConfigDir, false)).toBeUndefined();
    updateModuleState(w, 's1', (s) => ({ ...s, safemode: true }));
    expect(readModuleState(w, 's1')).toEqual({ kind: 'valid', state: { ...INITIAL_STATE, safemode: true } });
    const file = moduleStateFile(w.runtimeDir, 's1');
    expect(mode(file)).toBe(0o600);
    expect(mode(join(w.runtimeDir, 'modules'))).toBe(0o700);
    expect(mode(join(w.userConfigDir, 'module-state.key'))).toBe(0o600);
    // The session id is stored as shown (sanitized), the file named by its hash.
    expect(file).toMatch(/modules\/s-[0-9a-f]{16}\.json$/);
  });

  it('an edited body does not verify → tampered', () => {
    const w = where();
    updateModuleState(w, 's1', (s) => ({ ...s, safemode: true }));
    const file = moduleStateFile(w.runtimeDir, 's1');
    const envelope = JSON.parse(readFileSync(file, 'utf8')) as { body: string; mac: string };
    writeFileSync(
      file,
      JSON.stringify({ ...envelope, body: envelope.body.replace('"safemode":true', '"safemode":false') }),
    );
    expect(readModuleState(w, 's1')).toMatchObject({ kind: 'tampered', why: expect.stringMatching(/does not verify/) });
  });

  it('the delegation window round-trips; a corrupt window makes the state not verify', () => {
    const w = where();
    updateModuleState(w, 's1', (s) => ({ ...s, delegation: { calls: [1000, 2000] } }));
    expect(readModuleState(w, 's1')).toMatchObject({ kind: 'valid', state: { delegation: { calls: [1000, 2000] } } });
    const file = moduleStateFile(w.runtimeDir, 's1');
    const envelope = JSON.parse(readFileSync(file, 'utf8')) as { body: string; mac: string };
    writeFileSync(file, JSON.stringify({ ...envelope, body: envelope.body.replace('[1000,2000]', '[]') }));
    expect(readModuleState(w, 's1')).toMatchObject({ kind: 'tampered' });
  });

  it('the breaker’s failed calls (hashes) round-trip; a success clears them', () => {
    const w = where();
    const keys = [toolUseKey('toolu_1'), toolUseKey('toolu_2')];
    for (const key of keys) updateModuleState(w, 's1', (s) => breakerFailure(s, 'other', 3, key));
    expect(readModuleState(w, 's1')).toMatchObject({
      kind: 'valid',
      state: { breaker: { consecutive: 2, failures: keys } },
    });
    updateModuleState(w, 's1', breakerSuccess);
    const read = readModuleState(w, 's1');
    expect(read).toMatchObject({ kind: 'valid', state: { breaker: { consecutive: 0 } } });
    expect(read.kind === 'valid' && 'failures' in read.state.breaker).toBe(false);
  });

  it('a state that kept only the last failed call (lastFailure) reads as a run of that one; a bad id list does not verify', () => {
    const w = where();
    const key = toolUseKey('toolu_1');
    updateModuleState(w, 's1', (s) => ({ ...s, breaker: { consecutive: 1, signatures: {}, lastFailure: key } }));
    expect(readModuleState(w, 's1')).toMatchObject({
      kind: 'valid',
      state: { breaker: { consecutive: 1, failures: [key] } },
    });
    updateModuleState(w, 's1', (s) => ({ ...s, breaker: { ...s.breaker, failures: ['not-a-hash'] } }));
    expect(readModuleState(w, 's1').kind).toBe('tampered');
  });

  it("another session's file copied over this one's does not verify", () => {
    const w = where();
    updateModuleState(w, 's-good', (s) => s);
    updateModuleState(w, 's-tripped', (s) => ({ ...s, safemode: true }));
    writeFileSync(moduleStateFile(w.runtimeDir, 's-tripped'), readFileSync(moduleStateFile(w.runtimeDir, 's-good')));
    expect(readModuleState(w, 's-tripped').kind).toBe('tampered');
  });

  it('a file deleted and re-planted unsigned, junk, or with the key removed → tampered', () => {
    const w = where();
    updateModuleState(w, 's1', (s) => s);
    const file = moduleStateFile(w.runtimeDir, 's1');
    writeFileSync(file, '{"body":"{}","mac":"00"}');
    expect(readModuleState(w, 's1').kind).toBe('tampered');
    writeFileSync(file, 'not json');
    expect(readModuleState(w, 's1').kind).toBe('tampered');
    updateModuleState(w, 's1', (s) => s, { reset: true });
    chmodSync(join(w.userConfigDir, 'module-state.key'), 0o644);
    expect(readModuleState(w, 's1')).toMatchObject({
      kind: 'tampered',
      why: expect.stringMatching(/readable by others/),
    });
  });

  it('an update keeps a tampered file as it is; only a reset replaces it', () => {
    const w = where();
    updateModuleState(w, 's1', (s) => s);
    writeFileSync(moduleStateFile(w.runtimeDir, 's1'), 'planted');
    expect(updateModuleState(w, 's1', (s) => ({ ...s, safemode: true })).kind).toBe('tampered');
    expect(readFileSync(moduleStateFile(w.runtimeDir, 's1'), 'utf8')).toBe('planted');
    expect(updateModuleState(w, 's1', (s) => s, { reset: true })).toEqual({ kind: 'valid', state: INITIAL_STATE });
  });

  it('a file that is not a regular file of ours is tampered, not followed', () => {
    const w = where();
    updateModuleState(w, 's1', (s) => s);
    chmodSync(moduleStateFile(w.runtimeDir, 's1'), 0o666);
    expect(readModuleState(w, 's1')).toMatchObject({
      kind: 'tampered',
      why: expect.stringMatching(/writable by others/),
    });
  });
});
