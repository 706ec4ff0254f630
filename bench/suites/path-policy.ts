/** Tier 0 path policy in process: the pure tier, then the tier with canonicalization in front of it. */
import type { CascadeContext } from '../../src/engine/context.js';
import { resolvePath, type PathContext } from '../../src/paths/canonical.js';
import { matchersFor } from '../../src/policy/compiled.js';
import { pathPolicyTier } from '../../src/policy/path-policy.js';
import { runInProcess } from '../in-process.js';
import { decisionInputs, expectVerdict } from '../inputs.js';
import type { Suite } from '../suite.js';

export const pathPolicySuite: Suite = {
  name: 'path-policy',
  measures: ['path-policy.decide', 'path-policy.canonicalize+decide'],
  async run({ fixture, size }) {
    const { call, policy, projectRoot } = await decisionInputs(fixture);
    const matchers = matchersFor(policy);
    const role = matchers.role(fixture.role);
    if (role === undefined) throw new Error(`bench: role ${fixture.role} is not in the compiled policy`);
    const pathContext: PathContext = { projectRoot, home: fixture.where.home, cwd: call.cwd };
    const ctx: CascadeContext = {
      call,
      paths: call.paths.map((p) => resolvePath(p, pathContext)),
      role,
      policy,
      matchers,
      projectRoot,
      home: fixture.where.home,
    };
    // Also builds the lazily compiled regexes, so the timed calls see warm matchers.
    expectVerdict('path policy', pathPolicyTier.decide(ctx)?.verdict, 'allow');

    return runInProcess(
      [
        { id: 'path-policy.decide', batch: 64, fn: () => pathPolicyTier.decide(ctx) },
        {
          id: 'path-policy.canonicalize+decide',
          batch: 16,
          fn: () => pathPolicyTier.decide({ ...ctx, paths: call.paths.map((p) => resolvePath(p, pathContext)) }),
        },
      ],
      size,
    );
  },
};
