/** `hookwise doctor`: the wiring a user has, and what to fix. */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { catalogueCheck, doctor, renderDoctor, type DoctorReport } from '../../src/cli/doctor.js';
import { compileSources } from '../../src/catalog/sources.js';
import { ENTRIES_FILE, INDEX_FILE, serializeCatalog } from '../../src/catalog/table-codec.js';
import { CatalogTableReader } from '../../src/catalog/table.js';
import { xxh64BytesHex } from '../../src/util/xxhash.js';
import { runInstall, type InstallIo } from '../../src/cli/install.js';
import { ensureHttpConfig } from '../../src/daemon/http-config.js';
import { serve, type RunningDaemon } from '../../src/daemon/server.js';
import { locations } from '../../src/util/locations.js';
import { makeProject, type TestProject } from '../support/project.js';

const daemons: RunningDaemon[] = [];
afterEach(async () => {
  while (daemons.length > 0) await daemons.pop()!.close();
});

function ioFor(p: TestProject): InstallIo {
  const bin = join(p.home, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'hookwise'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(bin, 'hookwise'), 0o755);
  return { projectRoot: p.root, home: p.home, env: { ...p.env, PATH: bin }, self: undefined, now: () => new Date() };
}

const find = (r: DoctorReport, what: RegExp) => r.checks.filter((c) => what.test(c.what));

describe('hookwise doctor', () => {
  it('nothing wired: says how to wire Claude Code, and that no daemon runs', async () => {
    const p = makeProject();
    const r = await doctor(locations(p.env), ioFor(p));
    expect(find(r, /Claude Code wiring/)[0]).toMatchObject({
      status: 'warn',
      detail: 'not wired',
      fix: expect.stringMatching(/install --claude/),
    });
    expect(find(r, /^daemon$/)[0]).toMatchObject({ status: 'warn', detail: expect.stringMatching(/not running/) });
    expect(find(r, /CLI on PATH/)[0]!.status).toBe('ok');
  });

  it('the http wiring with its daemon running is all good; down, it is a problem with the fix', async () => {
    const p = makeProject();
    const where = locations(p.env);
    const io = ioFor(p);
    io.http = await ensureHttpConfig(where);
    runInstall('install', { claude: true }, io);
    let r = await doctor(where, io);
    expect(find(r, /^daemon$/)[0]).toMatchObject({ status: 'fail', fix: expect.stringMatching(/daemon start --http/) });
    daemons.push(await serve({ where, http: { ...io.http, port: 0 } }));
    r = await doctor(where, io);
    // (Port 0: the test's daemon takes any free port; doctor compares the settings with the endpoint config.)
    expect(find(r, /Claude Code hooks/)[0]!.status).toBe('ok');
    expect(find(r, /http gate/)[0]!.status).toBe('ok');
    expect(find(r, /^daemon$/)[0]!.status).toBe('ok');
  });

  it('double wiring: the plugin and a settings file, or two settings files', async () => {
    const p = makeProject();
    const io = ioFor(p);
    runInstall('install', { claude: true, wiring: 'command' }, io);
    runInstall('install', { claude: true, wiring: 'command', scope: 'user' }, io);
    let r = await doctor(locations(p.env), io);
    expect(find(r, /Claude Code wiring/)[0]).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/wired in 2 files/),
    });
    runInstall('uninstall', { claude: true, scope: 'user' }, io);
    mkdirSync(join(p.home, '.claude'), { recursive: true });
    writeFileSync(
      join(p.home, '.claude', 'settings.json'),
      JSON.stringify({ enabledPlugins: { 'hookwise@hookwise': true } }),
    );
    r = await doctor(locations(p.env), io);
    expect(find(r, /Claude Code wiring/)[0]).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/plugin is enabled .* checked twice/),
    });
  });

  it('a missing gate event, a wrong port, and an unreadable settings file are failures', async () => {
    const p = makeProject();
    const where = locations(p.env);
    const io = ioFor(p);
    io.http = await ensureHttpConfig(where);
    runInstall('install', { claude: true }, io);
    await ensureHttpConfig(where, io.http.port === 65000 ? 65001 : 65000);
    let r = await doctor(where, io);
    expect(find(r, /http gate/)[0]).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/the daemon's endpoint is port/),
    });
    const file = join(p.root, '.claude', 'settings.local.json');
    const settings = JSON.parse((await import('node:fs')).readFileSync(file, 'utf8')) as {
      hooks: Record<string, unknown>;
    };
    delete settings.hooks.PreToolUse;
    writeFileSync(file, JSON.stringify(settings));
    r = await doctor(where, io);
    expect(find(r, /Claude Code hooks/)[0]).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/lacks PreToolUse: tool calls are not gated/),
    });
    writeFileSync(file, '{ nope');
    r = await doctor(where, io);
    expect(find(r, /settings file/)[0]).toMatchObject({ status: 'fail', detail: expect.stringContaining(file) });
  });

  it.each([
    ['a misspelt key', 'rulez: []\n', /policy\.yml:1: error: rulez: unknown field/],
    ['a YAML syntax error', 'rules: [\n  {tool: Read\n', /policy\.yml:\d+: error: /],
  ])('%s in policy.yml is a failure naming file:line, as validate finds it', async (_what, yaml, detail) => {
    const p = makeProject();
    p.write('.hookwise/policy.yml', yaml);
    const r = await doctor(locations(p.env), ioFor(p));
    expect(find(r, /^config$/)[0]).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(detail),
      fix: expect.stringMatching(/hookwise validate/),
    });
    expect(renderDoctor(r)).not.toMatch(/all good/);
  });

  it('a valid config is ok; a lint warning (an unreachable rule) is a warning', async () => {
    const p = makeProject();
    let r = await doctor(locations(p.env), ioFor(p));
    expect(find(r, /^config$/)[0]!.status).toBe('ok');
    p.write(
      '.hookwise/policy.yml',
      'bash_rules:\n  - {command: git, verdict: ask, reason: r}\n  - {command: git, args: "^status", verdict: ask, reason: r}\n',
    );
    r = await doctor(locations(p.env), ioFor(p));
    expect(find(r, /^config$/)[0]).toMatchObject({ status: 'warn', detail: expect.stringMatching(/unreachable/) });
  });

  it('the catalogue is checked whole: intact is ok, a damaged text is a failure naming the file', async () => {
    const p = makeProject();
    const r = await doctor(locations(p.env), ioFor(p));
    expect(find(r, /^catalogue$/)[0]).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/^\d+ program names/),
    });

    const { table } = compileSources();
    const dir = join(p.home, 'catalog');
    mkdirSync(dir);
    const written = serializeCatalog(table, xxh64BytesHex);
    writeFileSync(join(dir, INDEX_FILE), written.index);
    writeFileSync(join(dir, ENTRIES_FILE), written.entries);
    expect(catalogueCheck(new CatalogTableReader(dir)).status).toBe('ok');
    // One byte of the last text written (the version forms).
    const entries = Buffer.from(written.entries);
    entries[entries.length - 20]! ^= 0x01;
    writeFileSync(join(dir, ENTRIES_FILE), entries);
    expect(catalogueCheck(new CatalogTableReader(dir))).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(
        /the catalogue table is damaged: the text of the version forms in .*entries\.jsonl does not match its checksum/,
      ),
      fix: expect.stringMatching(/npm run build/),
    });
  });
});
