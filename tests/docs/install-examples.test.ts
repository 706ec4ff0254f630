/**
 * The settings examples docs/install.md shows are what `hookwise install` writes: each JSON block with
 * `"hooks"` is compared, structurally, with the file install generates for that wiring (events, matchers,
 * handler types, every field and value). The docs may abbreviate: `<port>` and `<token>` stand for the
 * endpoint's, `…` inside a string for any text, `{"…": "as above"}` for an object shown before, and
 * `"(the same)"` for the command of the entry before.
 */
import { mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInstall, type Wiring } from '../../src/cli/install.js';
import { makeProject } from '../support/project.js';

const ROOT = join(import.meta.dirname, '..', '..');
const DOC = 'docs/install.md';

/** The doc's JSON blocks that show hook entries, with the line each starts on. */
function hookBlocks(): { line: number; value: unknown }[] {
  const lines = readFileSync(join(ROOT, DOC), 'utf8').split('\n');
  const blocks: { line: number; value: unknown }[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== '```json') continue;
    const start = i + 1;
    let end = start;
    while (lines[end]!.trim() !== '```') end++;
    const text = lines.slice(start, end).join('\n');
    if (text.includes('"hooks"')) blocks.push({ line: start + 1, value: JSON.parse(text) as unknown });
    i = end;
  }
  return blocks;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A doc string as a full-match pattern over what install writes. */
function docPattern(shown: string): RegExp {
  const parts = shown
    .split(/(<port>|<token>|…)/)
    .map((part) =>
      part === '<port>' ? '\\d+' : part === '<token>' ? '[A-Za-z0-9_-]+' : part === '…' ? '.*' : escapeRegex(part),
    );
  return new RegExp(`^${parts.join('')}$`, 's');
}

/** Where the doc's value differs from the written one (empty: it shows what install writes). */
function differences(shown: unknown, written: unknown, at: string): string[] {
  if (typeof shown === 'string') {
    if (shown === '(the same)') return [];
    return typeof written === 'string' && docPattern(shown).test(written)
      ? []
      : [`${at}: the doc shows ${JSON.stringify(shown)}, install writes ${JSON.stringify(written)}`];
  }
  if (Array.isArray(shown)) {
    if (!Array.isArray(written) || written.length !== shown.length)
      return [`${at}: the doc shows ${shown.length} entries, install writes ${JSON.stringify(written)}`];
    return shown.flatMap((s, i) => differences(s, written[i], `${at}[${i}]`));
  }
  if (typeof shown === 'object' && shown !== null) {
    const keys = Object.keys(shown);
    if (keys.length === 1 && keys[0] === '…') return []; // "as above"
    if (typeof written !== 'object' || written === null || Array.isArray(written))
      return [`${at}: the doc shows an object, install writes ${JSON.stringify(written)}`];
    const w = written as Record<string, unknown>;
    const s = shown as Record<string, unknown>;
    const missing = Object.keys(w).filter((k) => !(k in s));
    const extra = keys.filter((k) => !(k in w));
    return [
      ...missing.map((k) => `${at}.${k}: install writes it, the doc does not show it`),
      ...extra.map((k) => `${at}.${k}: the doc shows it, install does not write it`),
      ...keys.filter((k) => k in w).flatMap((k) => differences(s[k], w[k], `${at}.${k}`)),
    ];
  }
  return shown === written ? [] : [`${at}: the doc shows ${String(shown)}, install writes ${String(written)}`];
}

/** The settings file `hookwise install --claude --wiring <wiring>` writes in a fresh project. */
function installed(wiring: Wiring): unknown {
  const p = makeProject();
  const bin = join(p.home, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'hookwise'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(bin, 'hookwise'), 0o755);
  const io = {
    projectRoot: p.root,
    home: p.home,
    env: { ...p.env, PATH: bin },
    self: undefined,
    now: () => new Date(),
    http: { port: 43117, token: 'T'.repeat(43) },
  };
  runInstall('install', { claude: true, wiring }, io);
  const file = join(p.root, '.claude', wiring === 'http' ? 'settings.local.json' : 'settings.json');
  return JSON.parse(readFileSync(file, 'utf8')) as unknown;
}

describe(`${DOC}: the settings it shows are the settings install writes`, () => {
  const blocks = hookBlocks();

  it('shows both Claude Code wirings', () => {
    expect(blocks.map((b) => (JSON.stringify(b.value).includes('"type":"http"') ? 'http' : 'command'))).toEqual([
      'http',
      'command',
    ]);
  });

  it.each(blocks.map((b) => [b.line, b] as const))('the block at line %i', (_line, block) => {
    const wiring: Wiring = JSON.stringify(block.value).includes('"type":"http"') ? 'http' : 'command';
    expect(differences(block.value, installed(wiring), 'settings')).toEqual([]);
  });

  it('the comparison catches a drifted value, a missing field and an extra one', () => {
    const written = {
      hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'hookwise check', timeout: 600 }] }] },
    };
    expect(
      differences(
        { hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'hookwise …', timeout: 30, async: true }] }] } },
        written,
        's',
      ),
    ).toEqual([
      's.hooks.PreToolUse[0].hooks[0].async: the doc shows it, install does not write it',
      's.hooks.PreToolUse[0].hooks[0].timeout: the doc shows 30, install writes 600',
    ]);
    expect(differences({ hooks: { PreToolUse: [{ hooks: [{ type: 'command' }] }] } }, written, 's')).toHaveLength(2);
  });
});
