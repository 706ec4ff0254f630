import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validate, validateProject } from '../../src/cli/validate.js';
import { formatDiagnostic } from '../../src/policy/schema.js';
import { makeProject, type TestProject } from '../support/project.js';

function lint(p: TestProject): { errors: string[]; warnings: string[] } {
  const report = validateProject(p.root, p.env);
  const of = (severity: 'error' | 'warning') =>
    report.diagnostics.filter((d) => d.severity === severity).map(formatDiagnostic);
  return { errors: of('error'), warnings: of('warning') };
}

const userFile = (p: TestProject) => join(p.configDir, 'config.yml');

describe('hookwise validate', () => {
  it('a project without config is OK (exit 0)', () => {
    const p = makeProject();
    const result = validate(p.root, p.env, false);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^hookwise validate: config OK/);
  });

  it('loading errors (invalid RE2, unknown fields) are errors with file:line, exit 1', () => {
    const p = makeProject();
    p.write(
      '.hookwise/policy.yml',
      'bash_rules:\n  - command: "git("\n    verdict: ask\n    reason: r\n  - comand: x\n    verdict: ask\n    reason: r\n',
    );
    const result = validate(p.root, p.env, false);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toMatch(
      /^\.hookwise\/policy\.yml:2: error: bash_rules\[0\]\.command: invalid RE2 pattern "git\(": missing \)/m,
    );
    expect(result.stdout).toMatch(
      /^\.hookwise\/policy\.yml:5: error: bash_rules\[1\]\.comand: unknown field \(did you mean "command"\?\)/m,
    );
    expect(result.stdout).toMatch(
      /^\.hookwise\/policy\.yml:5: error: bash_rules\[1\]\.command: missing: every rule needs a command pattern/m,
    );
    expect(result.stdout).toMatch(/3 errors, 0 warnings — while there are errors, every gated tool call is denied$/);
  });

  it('flags a rule shadowed by an earlier broader one, and exact duplicates', () => {
    const p = makeProject();
    p.write(
      '.hookwise/policy.yml',
      [
        'bash_rules:',
        '  - command: git', //                       [0] line 2
        '    verdict: ask',
        '    reason: all git',
        '  - command: git', //                       [1] line 5: unreachable (same command, [0] has no args)
        '    args: "^push"',
        '    verdict: deny',
        '    reason: pushes',
        '  - command: "ter.*"', //                   [2] line 9
        '    verdict: ask',
        '    reason: tf',
        '  - command: terraform', //                 [3] line 12: unreachable ([2] matches the literal)
        '    verdict: deny',
        '    reason: tf',
        '  - command: make', //                      [4] line 15
        '    args: deploy',
        '    verdict: ask',
        '    reason: d',
        '  - command: make', //                      [5] line 19: duplicate of [4]
        '    args: deploy',
        '    verdict: ask',
        '    reason: d again',
        '  - command: make', //                      [6] line 23: fine ([4] is narrower)
        '    verdict: ask',
        '    reason: other make',
        'rules:',
        '  - tool: ".*"', //                         rules[0] line 27
        '    verdict: ask',
        '    reason: everything',
        '  - tool: WebFetch', //                     rules[1] line 30: unreachable
        '    verdict: deny',
        '    reason: web',
        '',
      ].join('\n'),
    );
    const { errors, warnings } = lint(p);
    expect(errors).toEqual([]);
    expect(warnings).toEqual([
      '.hookwise/policy.yml:5: warning: bash_rules[1]: unreachable: bash_rules[0] (line 2) matches everything this rule matches, and the first match wins (move the narrower rule first, or remove it)',
      '.hookwise/policy.yml:12: warning: bash_rules[3]: unreachable: bash_rules[2] (line 9) matches everything this rule matches, and the first match wins (move the narrower rule first, or remove it)',
      '.hookwise/policy.yml:19: warning: bash_rules[5]: duplicate of bash_rules[4] (line 15) (remove one of them)',
      '.hookwise/policy.yml:30: warning: rules[1]: unreachable: rules[0] (line 27) matches everything this rule matches, and the first match wins (move the narrower rule first, or remove it)',
    ]);
  });

  it('rules in different scopes do not shadow each other (each list has its own first match)', () => {
    const p = makeProject();
    p.write(userFile(p), 'bash_rules:\n  - command: git\n    verdict: ask\n    reason: u\n');
    p.write(
      '.hookwise/policy.yml',
      'bash_rules:\n  - command: git\n    args: push\n    verdict: deny\n    reason: p\n',
    );
    expect(lint(p).warnings).toEqual([]);
  });

  it('precondition scripts: missing or not executable is an error; executable is fine', () => {
    const p = makeProject();
    p.write('scripts/ok.sh', '#!/bin/sh\necho allow\n');
    chmodSync(join(p.root, 'scripts/ok.sh'), 0o755);
    p.write('scripts/not-exec.sh', '#!/bin/sh\necho allow\n');
    chmodSync(join(p.root, 'scripts/not-exec.sh'), 0o644);
    p.write(
      '.hookwise/policy.yml',
      [
        'bash_rules:',
        '  - command: a',
        '    precondition_script: scripts/ok.sh',
        '    reason: r',
        '  - command: b',
        '    precondition_script: scripts/not-exec.sh',
        '    reason: r',
        '  - command: c',
        '    precondition_script: scripts/missing.sh',
        '    reason: r',
        '',
      ].join('\n'),
    );
    const { errors } = lint(p);
    expect(errors).toEqual([
      `.hookwise/policy.yml:5: error: bash_rules[1].precondition_script: precondition script ${join(p.root, 'scripts/not-exec.sh')} is not executable (the rule would always ask) (chmod +x ${join(p.root, 'scripts/not-exec.sh')})`,
      `.hookwise/policy.yml:8: error: bash_rules[2].precondition_script: precondition script ${join(p.root, 'scripts/missing.sh')} does not exist (the rule would always ask) (fix the path: project scripts are relative to the project root, user scripts to ~/.config/hookwise)`,
    ]);
    expect(validate(p.root, p.env, false).exitCode).toBe(1);
  });

  it('user precondition scripts resolve against the user config dir and ~', () => {
    const p = makeProject();
    p.write(join(p.configDir, 'checks/tf.sh'), '#!/bin/sh\necho ask\n');
    chmodSync(join(p.configDir, 'checks/tf.sh'), 0o755);
    p.write(join(p.home, 'bin/x.sh'), '#!/bin/sh\necho ask\n');
    chmodSync(join(p.home, 'bin/x.sh'), 0o755);
    p.write(
      userFile(p),
      'bash_rules:\n  - command: terraform\n    precondition_script: checks/tf.sh\n    reason: r\n  - command: x\n    precondition_script: ~/bin/x.sh\n    reason: r\n',
    );
    expect(lint(p)).toEqual({ errors: [], warnings: [] });
  });

  it('warns about project allows a pack or the user overrules', () => {
    const p = makeProject();
    p.write(userFile(p), 'bash_rules:\n  - command: make\n    args: deploy\n    verdict: ask\n    reason: u\n');
    p.write(
      '.hookwise/policy.yml',
      'packs:\n  git: false\nbash_rules:\n  - command: git\n    verdict: allow\n    reason: we trust git\n  - command: make\n    verdict: allow\n    reason: make is fine\n  - command: ./run.sh\n    verdict: allow\n    reason: ours\n',
    );
    const { warnings } = lint(p);
    expect(warnings).toEqual([
      '.hookwise/policy.yml:2: warning: packs.git: ignored: switching the git pack off would loosen the gate, and a project file can only tighten (set it in ~/.config/hookwise/config.yml)',
      '.hookwise/policy.yml:4: warning: bash_rules[0].command: this allow cannot override the ask/deny rules of the git pack for git: where they match, they still decide (a project can only tighten; a user may switch a pack rule off in ~/.config/hookwise/config.yml (pack_rules))',
      `.hookwise/policy.yml:7: warning: bash_rules[1].command: this allow cannot override the user's ask rule user:bash_rules[0] (${userFile(p)}:2) where both match`,
    ]);
  });

  it('--json carries the same diagnostics and the exit status', () => {
    const p = makeProject();
    p.write('.hookwise/policy.yml', 'pack_rules:\n  pack:git:reset-hrad: off\n');
    const result = validate(p.root, p.env, true);
    expect(result.exitCode).toBe(1);
    const report = JSON.parse(result.stdout) as {
      ok: boolean;
      errors: number;
      diagnostics: { file: string; line: number; field: string; problem: string; suggestion?: string }[];
    };
    expect(report.ok).toBe(false);
    expect(report.errors).toBe(1);
    expect(report.diagnostics[0]).toEqual({
      severity: 'error',
      file: '.hookwise/policy.yml',
      line: 2,
      field: 'pack_rules.pack:git:reset-hrad',
      problem: 'unknown pack rule "pack:git:reset-hrad"',
      suggestion: 'did you mean "pack:git:reset-hard"?',
    });
  });
});
