/**
 * Network canaries that never leave this machine, for the tests and the escape corpus that check what a
 * confined command can reach: a DNS server on the host loopback (so "can it resolve a name" is asked of a
 * resolver we started, not of the machine's configured one, which may be anywhere), and this machine's own
 * non-loopback address (what "an address outside the sandbox's loopback" means without reaching another host).
 * A fresh network namespace has neither: inside the walls both are unreachable.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server } from 'node:net';
import { networkInterfaces } from 'node:os';

/** The name the DNS queries ask for (.test is reserved: RFC 6761, never delegated). */
export const CANARY_NAME = 'canary.hookwise.test';
/** The address the canary DNS server answers with (TEST-NET-2, RFC 5737: routed nowhere). */
export const CANARY_ANSWER = '198.51.100.7';

export interface DnsCanary {
  port: number;
  /** Queries received. */
  queries(): number;
  close(): Promise<void>;
}

/** A DNS server on 127.0.0.1 that answers every A query with CANARY_ANSWER and counts the queries. */
export async function startDnsCanary(onQuery?: () => void): Promise<DnsCanary> {
  let queries = 0;
  const socket: UdpSocket = createSocket('udp4');
  socket.on('message', (query, from) => {
    queries++;
    onQuery?.();
    const answer = dnsAnswer(query);
    if (answer !== undefined) socket.send(answer, from.port, from.address);
  });
  socket.on('error', () => undefined); // a client gone before its answer is not the canary's failure
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    port: socket.address().port,
    queries: () => queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** The answer to a one-question query: the question echoed, one A record. Undefined for what is not one. */
export function dnsAnswer(query: Buffer): Buffer | undefined {
  if (query.length < 12 || query.readUInt16BE(4) !== 1) return undefined;
  let end = 12;
  // The name: length-prefixed labels up to a zero byte (a query never compresses its one name).
  while (end < query.length && query[end] !== 0) end += query[end]! + 1;
  end += 5; // the zero byte, QTYPE, QCLASS
  if (end > query.length) return undefined;
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // the id
  header.writeUInt16BE(0x8180, 2); // a response, recursion desired and available, no error
  header.writeUInt16BE(1, 4); // one question
  header.writeUInt16BE(1, 6); // one answer
  const record = Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, ...CANARY_ANSWER.split('.').map(Number)]);
  return Buffer.concat([header, query.subarray(12, end), record]);
}

/** This machine's first non-loopback, non-link-local IPv4 address; undefined when it has none. */
export function ownAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? [])
      if (a.family === 'IPv4' && !a.internal && !a.address.startsWith('169.254.')) return a.address;
  return undefined;
}

export interface TcpCanary {
  address: string;
  port: number;
  /** Connections accepted. */
  connections(): number;
  close(): Promise<void>;
}

/** A TCP listener on `address` (port chosen by the kernel) that counts connections and closes each. */
export async function startTcpCanary(address: string, onConnection?: () => void): Promise<TcpCanary> {
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections++;
    onConnection?.();
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, address, () => resolve());
  });
  return {
    address,
    port: (server.address() as { port: number }).port,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Shell commands that resolve CANARY_NAME through the DNS server at 127.0.0.1:`port` and print `resolved`. */
export function dnsQueryCommands(port: number, node: string = process.execPath): { node: string; python: string } {
  // The query for CANARY_NAME, A, IN, as bytes: id 0x1234, recursion desired, one question.
  const name = CANARY_NAME.split('.')
    .map((label) => label.length.toString(16).padStart(2, '0') + Buffer.from(label).toString('hex'))
    .join('');
  const query = `123401000001000000000000${name}0000010001`;
  return {
    node: `${node} -e "const r=new (require('dns').Resolver)({timeout:2000,tries:1});r.setServers(['127.0.0.1:${port}']);r.resolve4('${CANARY_NAME}',(e)=>{if(!e)console.log('resolved')})"`,
    python: `python3 -c "import socket;s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM);s.settimeout(2);s.sendto(bytes.fromhex('${query}'),('127.0.0.1',${port}));s.recv(512);print('resolved')"`,
  };
}
