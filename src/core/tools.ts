/** Canonical tools: how each touches the file system and which input fields hold its paths. */
import type { ToolAction } from './tool-call.js';

/** How a canonical tool touches the file system and which input fields hold its paths. */
export interface ToolShape {
  tool: string;
  action: ToolAction;
  pathFields: readonly string[];
  /** For directory-scoped reads (Glob, Grep): the cwd is the path when the field is absent. */
  defaultsToCwd?: boolean;
}

const CLAUDE_TOOL_SHAPES: readonly ToolShape[] = [
  { tool: 'Bash', action: 'shell', pathFields: [] },
  { tool: 'PowerShell', action: 'shell', pathFields: [] },
  { tool: 'Write', action: 'write', pathFields: ['file_path'] },
  { tool: 'Edit', action: 'write', pathFields: ['file_path'] },
  { tool: 'MultiEdit', action: 'write', pathFields: ['file_path'] },
  { tool: 'NotebookEdit', action: 'write', pathFields: ['notebook_path'] },
  { tool: 'Read', action: 'read', pathFields: ['file_path'] },
  { tool: 'Glob', action: 'read', pathFields: ['path'], defaultsToCwd: true },
  { tool: 'Grep', action: 'read', pathFields: ['path'], defaultsToCwd: true },
  { tool: 'LS', action: 'read', pathFields: ['path'], defaultsToCwd: true },
];
const SHAPE_BY_TOOL = new Map(CLAUDE_TOOL_SHAPES.map((s) => [s.tool, s]));

export function toolShape(tool: string): ToolShape {
  return SHAPE_BY_TOOL.get(tool) ?? { tool, action: 'other', pathFields: [] };
}

/** Collect the string paths named by a shape's fields. */
export function pathsOf(shape: ToolShape, input: Record<string, unknown>, cwd: string): string[] {
  const paths: string[] = [];
  for (const field of shape.pathFields) {
    const value = input[field];
    if (typeof value === 'string' && value !== '') paths.push(value);
    else if (Array.isArray(value)) for (const v of value) if (typeof v === 'string' && v !== '') paths.push(v);
  }
  if (paths.length === 0 && shape.defaultsToCwd === true) paths.push(cwd);
  return paths;
}
