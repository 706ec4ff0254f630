import { SessionRegistry } from '../../src/session/registry.js';
import type { TestProject } from './project.js';

export function setDisabledFor(p: TestProject, sessionId: string, disabled: boolean): void {
  new SessionRegistry(p.runtimeDir).update(sessionId, (existing, now) => ({
    ...(existing ?? { session_id: sessionId, role: null, registered_at: now }),
    disabled,
    updated_at: now,
  }));
}
