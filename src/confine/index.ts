/**
 * Confinement: what hookwise cannot judge runs inside an OS sandbox (issue 19). The envelope says where the
 * walls are (pure), wrapping turns a command into the same command inside them (decision time), the probe
 * says whether this machine can confine at all (doctor). Engine and host wiring build on these.
 */
export {
  buildEnvelope,
  DEFAULT_CONFINE_SETTINGS,
  type ConfineSettings,
  type Envelope,
  type EnvelopeInput,
} from './envelope.js';
export {
  bwrapArgs,
  planMounts,
  renderCommand,
  wrapCommand,
  type ConfineRuntime,
  type MountPlan,
  type WrapResult,
} from './wrap.js';
export { probeConfinement, type ProbeReport } from './probe.js';
