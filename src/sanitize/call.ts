/**
 * The first step of every decision: the sanitized form of the call. It is the only form of the call that
 * may be persisted or compared — audit log now, decision memory, embeddings and the supervisor later.
 *
 *   - Bash: the command with every secret replaced by <REDACTED>;
 *   - file tools (Write, Edit, MultiEdit, NotebookEdit): the structural key `<change> <path>`, never the
 *     content (content is only scanned, so findings can be counted and content is never stored);
 *   - everything else: the sanitized JSON of the input.
 *
 * Policy tiers that need the exact text (the shell parser) read the raw input in memory: rewriting a secret
 * to `<REDACTED>` would change the shell grammar (`<` and `>` are redirections). Nothing raw leaves the
 * process.
 */
import type { ToolCall } from '../core/tool-call.js';
import { sanitize, sanitizedJson, structuralInput, type Sanitized } from './index.js';

export interface SanitizedCall {
  /** What may be stored about this call. */
  text: Sanitized;
  /** Secrets found in the input (paths, command, JSON) and, for file tools, in the content. */
  findings: number;
}

/** Bounded: a summary, not a copy of a 10 MB input. */
const MAX_SUMMARY = 4096;

export function sanitizeCall(call: ToolCall, options: { exists?: boolean } = {}): SanitizedCall {
  const structural = structuralInput(call.tool, call.input, options);
  if (structural !== undefined) {
    const pathFindings = structural.key.path === call.paths[0] ? 0 : 1;
    return {
      text: `${structural.key.change} ${structural.key.path}` as Sanitized,
      findings: structural.contentFindings.length + pathFindings,
    };
  }
  if (call.action === 'shell' && typeof call.input.command === 'string') {
    const r = sanitize(call.input.command);
    return { text: truncate(r.text), findings: r.findings.length };
  }
  const r = sanitizedJson(call.input);
  return { text: truncate(r.text), findings: r.findings.length };
}

function truncate(text: Sanitized): Sanitized {
  // Cutting after sanitizing cannot expose a secret: every secret is already a <REDACTED> marker.
  return (
    text.length > MAX_SUMMARY ? `${text.slice(0, MAX_SUMMARY)}…[${text.length - MAX_SUMMARY} more chars]` : text
  ) as Sanitized;
}
