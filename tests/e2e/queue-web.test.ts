/**
 * The queue's web page in a real headless browser (Debian's /usr/bin/chromium driven by playwright-core; no
 * browser download): pending items appear live, a key or a click answers them, and the waiting call returns.
 * Plus the page's defences, checked without a browser: token, Host, Origin, framing.
 */
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { askDaemon } from '../../src/daemon/client.js';
import { serve, type RunningDaemon } from '../../src/daemon/server.js';
import { FileQueue } from '../../src/queue/file-queue.js';
import type { Sanitized } from '../../src/sanitize/index.js';
import { locations } from '../../src/util/locations.js';
import { makeProject, type TestProject } from '../support/project.js';
import { queueMode } from '../queue/support.js';

const CHROMIUM = '/usr/bin/chromium';
const running: RunningDaemon[] = [];
afterEach(async () => {
  while (running.length > 0) await running.pop()!.close();
});

async function start(p: TestProject): Promise<{ daemon: RunningDaemon; token: string; port: number }> {
  const token = randomBytes(32).toString('base64url');
  const daemon = await serve({ where: locations(p.env), http: { port: 0, token }, embedding: false });
  running.push(daemon);
  return { daemon, token, port: daemon.httpPort! };
}

async function decisionOf(p: TestProject, payload: Record<string, unknown>): Promise<string> {
  const answer = await askDaemon(JSON.stringify(payload), locations(p.env));
  if (answer.kind !== 'answered') throw new Error(`daemon did not answer: ${answer.kind}`);
  return (JSON.parse(answer.result.stdout) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput
    .permissionDecision;
}

function get(
  port: number,
  path: string,
  headers: Record<string, string>,
  method = 'GET',
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => {
        body += c.toString('utf8');
        // An event stream never ends: its first event is enough.
        if (res.headers['content-type'] === 'text/event-stream' && body.includes('\n\n')) {
          res.destroy();
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        }
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(method === 'POST' ? '{"id":"abcdefghij","verdict":"approve"}' : undefined);
  });
}

describe('the queue page: defences', () => {
  it('token, Host and Origin are checked on every request; the page cannot be framed and runs only its own script', async () => {
    const p = makeProject();
    const { token, port } = await start(p);
    const host = `127.0.0.1:${port}`;
    const pageRes = await get(port, '/queue', { host });
    expect(pageRes.status).toBe(200);
    expect(pageRes.body).not.toContain(token);
    expect(pageRes.headers).toMatchObject({
      'x-frame-options': 'DENY',
      'content-security-policy': expect.stringMatching(/frame-ancestors 'none'.*|script-src 'nonce-/),
    });
    expect(String(pageRes.headers['content-security-policy'])).toMatch(/frame-ancestors 'none'/);
    expect((await get(port, '/queue/events', { host })).status).toBe(401);
    expect((await get(port, '/queue/events', { host, authorization: 'Bearer wrong' })).status).toBe(401);
    expect(
      (await get(port, '/queue/events', { host: `evil.example:${port}`, authorization: `Bearer ${token}` })).status,
    ).toBe(403);
    expect((await get(port, '/queue', { host: `evil.example:${port}` })).status).toBe(403);
    expect(
      (
        await get(
          port,
          '/queue/answer',
          {
            host,
            authorization: `Bearer ${token}`,
            origin: 'https://evil.example',
            'content-type': 'application/json',
          },
          'POST',
        )
      ).status,
    ).toBe(403);
    expect(
      (
        await get(
          port,
          '/queue/answer',
          { host, authorization: `Bearer ${token}`, 'content-type': 'text/plain' },
          'POST',
        )
      ).status,
    ).toBe(415);
    const unknown = await get(
      port,
      '/queue/answer',
      { host, authorization: `Bearer ${token}`, origin: `http://${host}`, 'content-type': 'application/json' },
      'POST',
    );
    expect(unknown).toMatchObject({ status: 404, body: expect.stringMatching(/no pending queue item abcdefghij/) });
    const stream = await get(port, '/queue/events', { host, authorization: `Bearer ${token}` });
    expect(stream.status).toBe(200);
    expect(stream.body).toMatch(/^event: snapshot\ndata: \{"items":\[\]/);
    // The hook endpoints keep their own rule: no Origin at all.
    expect(
      (await get(port, '/v1/health', { host, authorization: `Bearer ${token}`, origin: `http://${host}` })).status,
    ).toBe(403);
  });
});

const haveChromium = existsSync(CHROMIUM);
if (!haveChromium)
  console.warn(
    `queue page browser test skipped: ${CHROMIUM} is absent (apt-get install chromium; .ci/run installs it)`,
  );

describe.skipIf(!haveChromium)(
  `the queue page in a real browser${haveChromium ? '' : ` (skipped: ${CHROMIUM} is absent)`}`,
  () => {
    it('items appear live; a key approves, a click denies, "always ask" approves once; recent decisions are listed', async () => {
      const { chromium } = await import('playwright-core');
      const p = makeProject();
      queueMode(p);
      for (const s of ['s1', 's2', 's3']) p.register(s, 'coder');
      const { token, port } = await start(p);
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      });
      try {
        const page = await browser.newPage();
        await page.goto(`http://127.0.0.1:${port}/queue#token=${token}`);
        await page.waitForSelector('#status:text("live")');
        // The token left the address bar.
        expect(page.url()).toBe(`http://127.0.0.1:${port}/queue`);

        // 1. A call arrives while the page is open: it appears; the key "a" approves it.
        const first = decisionOf(p, p.pre('Bash', { command: 'make deploy-staging' }, 's1'));
        await page.waitForSelector('.item .call:text("make deploy-staging")');
        await page.keyboard.press('a');
        expect(await first).toBe('allow');
        await page.waitForSelector('#items .meta:text("Nothing waits")');

        // 2. Two identical calls from two sessions: one item saying 2 calls; a click on Deny answers both.
        const twins = [
          decisionOf(p, p.pre('Bash', { command: 'make deploy-prod' }, 's2')),
          decisionOf(p, p.pre('Bash', { command: 'make deploy-prod' }, 's3')),
        ];
        await page.waitForSelector('.item .meta:text("2 calls")');
        await page.click('.item button[data-action="deny"]');
        expect(await Promise.all(twins)).toEqual(['deny', 'deny']);

        // 3. "Always ask": allowed now.
        const third = decisionOf(p, p.pre('Bash', { command: 'make release' }, 's1'));
        await page.waitForSelector('.item .call:text("make release")');
        await page.click('.item button[data-action="always-ask"]');
        expect(await third).toBe('allow');

        // 4. A call waiting in the files (decided in process, no daemon answering it) shows up too and is answered there.
        const inFiles = new FileQueue(p.runtimeDir).wait(
          {
            dedupe: 'files-1',
            session: 's9' as Sanitized,
            role: 'coder',
            tool: 'Bash' as Sanitized,
            call: 'make from-files' as Sanitized,
            reason: 'no tier decided' as Sanitized,
            tier: 'default',
            project: p.root as Sanitized,
          },
          30_000,
        );
        await page.waitForSelector('.item .call:text("make from-files")');
        await page.keyboard.press('d');
        expect(await inFiles).toMatchObject({ kind: 'answered', answer: { verdict: 'deny', via: 'web' } });

        // Recent decisions, newest first.
        await page.waitForSelector('#recent tr:nth-child(4)');
        const recent = await page.$$eval('#recent tr', (rows) =>
          rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)),
        );
        expect(recent.slice(0, 4).map((r) => [r[1], r[2], r[5]])).toEqual([
          ['denied', 'web', 'make from-files'],
          ['approved (always ask)', 'web', 'make release'],
          ['denied', 'web', 'make deploy-prod'],
          ['approved', 'web', 'make deploy-staging'],
        ]);
        expect(recent[2]![6]).toBe('2 calls');
      } finally {
        await browser.close();
      }
    }, 60_000);
  },
);
