/**
 * The queue's web page, served by the daemon on its loopback HTTP listener (`hookwise queue --web` prints the
 * address): pending items live, approve / deny / always-ask with one click or key, recent decisions.
 *
 *   GET  /queue            the page (no data in it); the token arrives in the URL's fragment, which the
 *                          browser never sends, and the page removes it from the address bar at once
 *   GET  /queue/events     text/event-stream: a snapshot {items, recent} now and after every change
 *   POST /queue/answer     {id, verdict: approve|deny, alwaysAsk}
 *
 * Every request but the page needs the daemon's bearer token (the page sends it from memory as an
 * Authorization header, reading the stream with fetch, not EventSource, so no cookie is ever set), a Host
 * naming the loopback address and this port (DNS rebinding), and either no Origin or this very origin (a
 * cross-site page cannot send the header without a CORS preflight, which is never granted). The page may not
 * be framed (a click-jacked approve) and runs only its own script (CSP with a nonce); items are shown with
 * textContent, never as HTML.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HumanAnswer } from './types.js';

export interface QueueWebOptions {
  /** Says when the daemon's queue changes (its own items, and the team store's when it shares one). */
  queue: { subscribe(listener: () => void): () => void };
  token: string;
  port: number;
  /** Where an answer goes (the daemon's answer path: it also answers file-backed items). */
  answer(id: string, answer: HumanAnswer): Promise<{ ok: true; resolved: number } | { ok: false; why: string }>;
  /** Pending items and recent decisions, of every backend the daemon knows. */
  snapshot(): unknown;
}

const MAX_ANSWER_BYTES = 4096;
const HEARTBEAT_MS = 15_000;
const FILES_REFRESH_MS = 2000;

/** True when the request was a queue page request (answered here); false to let the caller route it. */
export function handleQueueWeb(req: IncomingMessage, res: ServerResponse, url: URL, o: QueueWebOptions): boolean {
  if (url.pathname !== '/queue' && !url.pathname.startsWith('/queue/')) return false;
  const refused = refusal(req, o);
  if (refused !== undefined) {
    sendJson(res, refused.status, { error: refused.reason });
    return true;
  }
  if (req.method === 'GET' && url.pathname === '/queue') {
    page(res);
    return true;
  }
  if (!authorized(req, o.token)) {
    sendJson(res, 401, { error: 'missing or wrong bearer token: open the address hookwise queue --web prints' });
    return true;
  }
  if (req.method === 'GET' && url.pathname === '/queue/events') {
    events(req, res, o);
    return true;
  }
  if (req.method === 'POST' && url.pathname === '/queue/answer') {
    void answer(req, res, o);
    return true;
  }
  sendJson(res, 404, { error: `no such queue endpoint: ${req.method ?? '?'} ${url.pathname}` });
  return true;
}

function refusal(req: IncomingMessage, o: QueueWebOptions): { status: number; reason: string } | undefined {
  const host = req.headers.host ?? '';
  const m = /^(127\.0\.0\.1|localhost|\[::1\]):(\d+)$/.exec(host);
  if (m === null || Number(m[2]) !== o.port)
    return { status: 403, reason: `refused: Host "${host.slice(0, 64)}" is not this loopback address and port` };
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://${host}`)
    return { status: 403, reason: 'refused: a request from another origin' };
  if (req.method === 'OPTIONS') return { status: 403, reason: 'refused: cross-origin requests are not served' };
  return undefined;
}

function authorized(req: IncomingMessage, token: string): boolean {
  const given = Buffer.from(/^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function events(req: IncomingMessage, res: ServerResponse, o: QueueWebOptions): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  let last = '';
  const push = (): void => {
    const data = JSON.stringify(o.snapshot());
    if (data === last) return;
    last = data;
    res.write(`event: snapshot\ndata: ${data}\n\n`);
  };
  push();
  // The daemon's queue says when it changes; the files' (calls decided in process) are looked at every few seconds.
  const unsubscribe = o.queue.subscribe(push);
  const files = setInterval(push, FILES_REFRESH_MS);
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
  const stop = (): void => {
    unsubscribe();
    clearInterval(files);
    clearInterval(heartbeat);
  };
  req.on('close', stop);
  res.on('error', stop);
}

async function answer(req: IncomingMessage, res: ServerResponse, o: QueueWebOptions): Promise<void> {
  if (!/^application\/json\b/.test(req.headers['content-type'] ?? ''))
    return sendJson(res, 415, { error: 'send the answer as application/json' });
  let body = '';
  let size = 0;
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_ANSWER_BYTES) return sendJson(res, 413, { error: 'answer too large' });
      body += (chunk as Buffer).toString('utf8');
    }
  } catch {
    return sendJson(res, 400, { error: 'the answer could not be read' });
  }
  let value: { id?: unknown; verdict?: unknown; alwaysAsk?: unknown };
  try {
    value = JSON.parse(body) as typeof value;
  } catch {
    return sendJson(res, 400, { error: 'the answer is not JSON' });
  }
  if (
    typeof value.id !== 'string' ||
    (value.verdict !== 'approve' && value.verdict !== 'deny') ||
    (value.alwaysAsk !== undefined && typeof value.alwaysAsk !== 'boolean')
  ) {
    return sendJson(res, 400, { error: 'expected {id, verdict: "approve" | "deny", alwaysAsk?: boolean}' });
  }
  const result = await o.answer(value.id, {
    verdict: value.verdict,
    alwaysAsk: value.alwaysAsk === true && value.verdict === 'approve',
    addRule: false,
    via: 'web',
  });
  if (!result.ok) return sendJson(res, 404, { error: result.why });
  sendJson(res, 200, { ok: true, resolved: result.resolved });
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value) + '\n';
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(body);
}

function page(res: ServerResponse): void {
  const nonce = randomBytes(16).toString('base64');
  const body = PAGE.replaceAll('__NONCE__', nonce);
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  });
  res.end(body);
}

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>hookwise queue</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style nonce="__NONCE__">
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fafafa}
h1{font-size:1.3em}h2{font-size:1.05em;margin-top:2em}
#status{color:#666}#status.down{color:#b00}
.item{background:#fff;border:1px solid #ccc;border-radius:6px;padding:.7em 1em;margin:.6em 0}
.item.selected{border-color:#36c;box-shadow:0 0 0 2px #36c3}
.call{font-family:ui-monospace,monospace;white-space:pre-wrap;word-break:break-all;background:#f3f3f3;padding:.3em .5em;border-radius:4px}
.meta{color:#555;font-size:.9em}.rec{color:#753;font-size:.9em}
button{margin-right:.5em;padding:.3em .9em;cursor:pointer}
table{border-collapse:collapse}td{padding:.2em .8em .2em 0;vertical-align:top}
kbd{border:1px solid #bbb;border-radius:3px;padding:0 .3em;font-size:.85em}
</style></head><body>
<h1>hookwise — permission requests</h1>
<p id="status">connecting…</p>
<p class="meta">Keys: <kbd>↑</kbd>/<kbd>↓</kbd> or <kbd>j</kbd>/<kbd>k</kbd> select, <kbd>a</kbd> approve, <kbd>s</kbd> approve once and always ask, <kbd>d</kbd> deny.</p>
<div id="items"></div>
<h2>Recent decisions</h2>
<table id="recent"></table>
<script nonce="__NONCE__">
(() => {
  const token = new URLSearchParams(location.hash.slice(1)).get('token') || '';
  history.replaceState(null, '', location.pathname);
  const auth = { authorization: 'Bearer ' + token };
  const $items = document.getElementById('items'), $recent = document.getElementById('recent'), $status = document.getElementById('status');
  let items = [], selected = 0;
  const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; };
  const age = (iso) => { const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000)); return s < 120 ? s + 's' : Math.round(s / 60) + 'm'; };
  function render(snapshot) {
    const keep = items[selected] && items[selected].id;
    items = snapshot.items;
    selected = Math.max(0, items.findIndex((i) => i.id === keep));
    $items.replaceChildren();
    if (items.length === 0) $items.append(el('p', 'meta', 'Nothing waits for an answer.'));
    items.forEach((item, i) => {
      const box = el('div', 'item' + (i === selected ? ' selected' : ''));
      box.dataset.id = item.id;
      box.append(el('div', 'meta', item.id + ' · role ' + item.role + ' · ' + item.tool + ' · waiting ' + age(item.created) + ' · ' + item.waiting + ' call' + (item.waiting === 1 ? '' : 's') + ' · sessions ' + item.sessions.join(', ')));
      if (item.task) box.append(el('div', 'meta', 'task: ' + item.task));
      box.append(el('div', 'call', item.call));
      box.append(el('div', 'meta', 'why: ' + item.reason));
      if (item.recommendation) box.append(el('div', 'rec', 'supervisor recommends ' + item.recommendation.decision + ' (confidence ' + item.recommendation.confidence.toFixed(2) + '): ' + item.recommendation.reason));
      box.append(el('div', 'meta', 'project: ' + item.project));
      const bar = el('div');
      for (const [label, verdict, always] of [['Approve', 'approve', false], ['Always ask', 'approve', true], ['Deny', 'deny', false]]) {
        const b = el('button', verdict, label);
        b.dataset.action = always ? 'always-ask' : verdict;
        b.addEventListener('click', () => send(item.id, verdict, always));
        bar.append(b);
      }
      box.append(bar);
      box.addEventListener('click', () => { selected = i; mark(); });
      $items.append(box);
    });
    $recent.replaceChildren();
    for (const r of snapshot.recent) {
      const tr = el('tr');
      tr.dataset.id = r.id;
      for (const text of [r.ts.slice(11, 19), r.outcome, r.via, r.role, r.tool, r.call, r.resolved + ' call' + (r.resolved === 1 ? '' : 's')]) tr.append(el('td', '', text));
      $recent.append(tr);
    }
  }
  function mark() { [...$items.children].forEach((c, i) => c.classList.toggle('selected', i === selected)); }
  async function send(id, verdict, alwaysAsk) {
    const r = await fetch('/queue/answer', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ id, verdict, alwaysAsk }) });
    if (!r.ok) $status.textContent = 'answer refused: ' + ((await r.json().catch(() => ({}))).error || r.status);
  }
  document.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const item = items[selected];
    if (e.key === 'ArrowDown' || e.key === 'j') { selected = Math.min(items.length - 1, selected + 1); mark(); }
    else if (e.key === 'ArrowUp' || e.key === 'k') { selected = Math.max(0, selected - 1); mark(); }
    else if (item && e.key === 'a') send(item.id, 'approve', false);
    else if (item && e.key === 's') send(item.id, 'approve', true);
    else if (item && e.key === 'd') send(item.id, 'deny', false);
  });
  async function stream() {
    for (;;) {
      try {
        const r = await fetch('/queue/events', { headers: auth });
        if (!r.ok) { $status.textContent = 'refused: ' + ((await r.json().catch(() => ({}))).error || r.status); $status.className = 'down'; return; }
        $status.textContent = 'live'; $status.className = '';
        const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let at;
          while ((at = buffer.indexOf('\\n\\n')) >= 0) {
            const block = buffer.slice(0, at); buffer = buffer.slice(at + 2);
            const data = block.split('\\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\\n');
            if (data) render(JSON.parse(data));
          }
        }
      } catch (e) { /* the daemon restarted or the network dropped: reconnect below */ }
      $status.textContent = 'reconnecting…'; $status.className = 'down';
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  stream();
})();
</script></body></html>
`;
