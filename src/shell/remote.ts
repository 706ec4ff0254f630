/**
 * Where a segment that does not run on this machine runs: on a host reached by ssh, or in a container
 * (`docker exec db …`, `kubectl exec pod -- …`; shell/unwrap.ts). Its wrappers say which; the innermost one
 * wins (a container reached through ssh is a container). Pure, and free of the parser, so that memory's
 * subjects and the SQL-file edge can both name the place the same way.
 */
import type { Segment } from './types.js';

export interface RemotePlace {
  kind: 'ssh' | 'container';
  /** The host, or the container (`db`, `pg-0 (postgres)`). */
  name: string;
  /** The wrapper that sent it there: `ssh`, `docker exec`, `kubectl exec`, … */
  via: string;
}

export function remotePlace(segment: Pick<Segment, 'flags' | 'wrappers'>): RemotePlace | undefined {
  const name = segment.flags.remote;
  if (name === undefined) return undefined;
  const via = [...segment.wrappers].reverse().find((w) => w === 'ssh' || w.endsWith(' exec')) ?? 'ssh';
  return { kind: via === 'ssh' ? 'ssh' : 'container', name, via };
}
