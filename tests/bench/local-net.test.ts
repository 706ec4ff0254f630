/** The network canaries the confinement tests and the escape corpus use instead of addresses off this machine. */
import { Resolver } from 'node:dns/promises';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CANARY_ANSWER,
  CANARY_NAME,
  dnsAnswer,
  ownAddress,
  startDnsCanary,
  startTcpCanary,
} from '../../bench/local-net.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

describe('the DNS canary', () => {
  it('answers a real resolver with its one address, and counts the query', async () => {
    const dns = await startDnsCanary();
    closers.push(() => dns.close());
    const resolver = new Resolver({ timeout: 2000, tries: 1 });
    resolver.setServers([`127.0.0.1:${dns.port}`]);
    expect(await resolver.resolve4(CANARY_NAME)).toEqual([CANARY_ANSWER]);
    expect(dns.queries()).toBe(1);
  });

  it.each([
    ['too short for a header', Buffer.alloc(5)],
    ['no question', Buffer.alloc(12)],
    ['a name that runs past the end', Buffer.from('123401000001000000000000' + '3f6162', 'hex')],
  ])('ignores %s', (_what, query) => {
    expect(dnsAnswer(query)).toBeUndefined();
  });
});

describe('this machine’s own address', () => {
  it('is not loopback, and a listener on it counts connections', async () => {
    const address = ownAddress();
    if (address === undefined) return; // a machine with loopback only: the corpus reports those cases n/a
    expect(address).not.toMatch(/^127\./);
    const canary = await startTcpCanary(address);
    closers.push(() => canary.close());
    await new Promise<void>((resolve) =>
      connect(canary.port, address)
        .on('close', () => resolve())
        .on('error', () => resolve()),
    );
    expect(canary.connections()).toBe(1);
  });
});
