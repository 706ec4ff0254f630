import { describe, expect, it } from 'vitest';
import { publicWebPage, readsByName } from '../../src/catalog/mcp-learning.js';

describe('how far one approval of an MCP tool carries', () => {
  it.each([
    'https://docs.python.org/3/library/asyncio-task.html',
    'http://nodejs.org/api/test.html',
    'https://developer.mozilla.org/en-US/docs/Web/API/fetch#syntax',
  ])('%s is a public web page', (url) => expect(publicWebPage(url)).toBe(true));

  it.each([
    ['https://nodejs.org/api/?q=fetch', 'a query string'],
    ['https://user:pw@nodejs.org/', 'credentials'],
    ['https://nodejs.org:8443/', 'a port of its own'],
    ['http://localhost/', 'this machine'],
    ['http://127.0.0.1/', 'an IP literal'],
    ['http://0x7f000001/', 'a hex address'],
    ['http://[::1]/', 'an IPv6 literal'],
    ['http://grafana/', 'a single-label name'],
    ['http://build.internal/', 'an internal name'],
    ['http://printer.local/', 'a local name'],
    ['http://10.0.0.5.nip.io/', 'a name that spells an address'],
    ['file:///etc/passwd', 'another scheme'],
    ['not a url', 'not a URL'],
    ['https://api.example.org/ghp_0123456789abcdefghijklmnopqrstuvwxyzAB', 'a secret in it'],
  ])('%s is not (%s)', (url) => expect(publicWebPage(url)).toBe(false));

  it.each([
    ['jira', 'get_issue', true],
    ['library', 'download', true],
    ['notes', 'searchNotes', true],
    ['wiki', 'list-pages', true],
    ['notes', 'update_note', false],
    ['notes', 'get_and_delete_note', false],
    ['notes', 'create_note', false],
    ['tracker', 'issue_get', false],
    ['vault', 'get_item', false],
    ['ci', 'get_secret', false],
    ['ci', 'list_api_keys', false],
  ])('%s / %s reads by its name: %s', (server, tool, reads) => expect(readsByName(server, tool)).toBe(reads));
});
