/**
 * The table of performance targets: one row per measured quantity. A suite in bench/suites/ measures the
 * rows it names; bench/run.ts joins measurements to these rows and grades them. To add a target, add a
 * row here and a suite (or a task in an existing suite) that measures its id.
 *
 * Every target is an upper bound on the median ("lower is better"); `target: null` marks a row that is
 * reported, not graded.
 */

export const UNITS = ['µs', 'ms', '×'] as const;
export type Unit = (typeof UNITS)[number];

export interface TargetSpec {
  id: string;
  description: string;
  unit: Unit;
  /** Upper bound on the median; null = report only. */
  target: number | null;
  /** A tighter bound worth aiming for. */
  stretch?: number;
}

export const TARGETS = [
  {
    id: 'path-policy.decide',
    description: 'Tier 0 path policy, in process: pathPolicyTier.decide for a Write on a pre-canonicalized path, matchers warm',
    unit: 'µs',
    target: 1,
  },
  {
    id: 'path-policy.canonicalize+decide',
    description: 'resolvePath (realpath on the longest existing prefix) + Tier 0 decide, for a Write creating a new file; report only: dominated by syscalls, which vary by filesystem',
    unit: 'µs',
    target: null,
  },
  {
    id: 'cascade.in-process',
    description: 'decide(state, call, policy, …) for a registered session’s Write, in process: session gate, matchers, canonicalization, cascade; report only',
    unit: 'µs',
    target: null,
  },
  {
    id: 'check.startup-ratio',
    description: 'wall time of a spawned `hookwise check` (registered session, Write, policy cache warm) ÷ `node -e 0`, ratio of medians, NODE_EXTRA_CA_CERTS as in the environment',
    unit: '×',
    target: 1.5,
    stretch: 1.3,
  },
  {
    id: 'check.startup-ratio.no-extra-ca',
    description: 'the same with NODE_EXTRA_CA_CERTS removed from both commands’ environment (Node reads that file at every start)',
    unit: '×',
    target: 1.5,
    stretch: 1.3,
  },
] as const satisfies readonly TargetSpec[];

export type TargetId = (typeof TARGETS)[number]['id'];

export function targetOf(id: TargetId): TargetSpec {
  const spec: TargetSpec | undefined = TARGETS.find((t) => t.id === id);
  if (spec === undefined) throw new Error(`bench: no target row for ${id}`); // unreachable: id is a TargetId
  return spec;
}
