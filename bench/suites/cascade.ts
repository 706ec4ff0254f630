/** The whole in-process decision for a registered session: what `check` does after reading its inputs. */
import { judge } from '../../src/engine/judge.js';
import { runInProcess } from '../in-process.js';
import { decisionInputs, expectVerdict } from '../inputs.js';
import type { Suite } from '../suite.js';

export const cascadeSuite: Suite = {
  name: 'cascade',
  measures: ['cascade.in-process'],
  async run({ fixture, size }) {
    const { state, call, policy, projectRoot } = await decisionInputs(fixture);
    expectVerdict(
      'decide',
      (await judge(state, call, policy, projectRoot, fixture.where, {})).decision.verdict,
      'allow',
    );
    return runInProcess(
      [{ id: 'cascade.in-process', batch: 16, fn: () => judge(state, call, policy, projectRoot, fixture.where, {}) }],
      size,
    );
  },
};
