/**
 * Long-running and server commands (issue 19 item 7): what confinement would break silently. The walls cut the
 * network (a server listening inside them is reachable from nowhere else), block Unix sockets (a local daemon's
 * client cannot reach it) and end every process when the command ends (a job sent to the background dies with
 * it). Such a command is not confinable: it stays an ask (or a rule decides it), with the reason. Pure: judged
 * from the parsed segment, by program and subcommand — a program not on these lists that turns out to serve is
 * stopped by the walls and learnt from (wall-hits.ts).
 */
import type { Segment } from '../shell/types.js';

/** Package-manager scripts that conventionally start a dev server or a watcher. */
const SERVE_SCRIPTS = new Set(['dev', 'start', 'serve', 'preview', 'watch', 'develop', 'storybook']);
const PACKAGE_RUNNERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);
/** Programs that serve on a port whatever their arguments. */
const SERVERS = new Set([
  'http-server',
  'live-server',
  'serve',
  'webpack-dev-server',
  'nodemon',
  'uvicorn',
  'gunicorn',
  'hypercorn',
  'daphne',
  'waitress-serve',
  'caddy',
  'nginx',
  'httpd',
  'redis-server',
  'mongod',
  'postgres',
  'mysqld',
  'ngrok',
  'json-server',
  'browser-sync',
]);
/** Programs whose subcommand serves: `vite` (dev by default), `next dev`, `rails s`, … */
const SERVE_SUBCOMMANDS: Record<string, readonly string[]> = {
  vite: ['', 'dev', 'serve', 'preview'],
  next: ['dev', 'start'],
  nuxt: ['dev', 'start', 'preview'],
  nuxi: ['dev', 'preview'],
  astro: ['dev', 'preview'],
  remix: ['dev'],
  gatsby: ['develop', 'serve'],
  ng: ['serve'],
  webpack: ['serve'],
  flask: ['run'],
  rails: ['s', 'server'],
  jekyll: ['serve', 's'],
  hugo: ['server', 'serve'],
  mkdocs: ['serve'],
  hexo: ['server', 's'],
  docusaurus: ['start', 'serve'],
  wrangler: ['dev'],
  firebase: ['serve', 'emulators:start'],
  supabase: ['start'],
  'functions-framework': [''],
};
/** Clients of a local daemon over its Unix socket (or a daemon manager). */
const DAEMON_CLIENTS = new Set([
  'docker',
  'docker-compose',
  'podman',
  'podman-compose',
  'nerdctl',
  'ctr',
  'crictl',
  'systemctl',
  'service',
  'launchctl',
  'supervisorctl',
  'pm2',
  'minikube',
  'kind',
  'colima',
  'lima',
  'limactl',
  'multipass',
  'vagrant',
  'virsh',
]);
/** Keep something running after the command: the walls end it with the command. */
const DETACHERS = new Set(['nohup', 'setsid', 'disown', 'screen', 'tmux', 'daemonize', 'at', 'batch']);

/** Why this segment would break inside the walls, or undefined. */
/** Runners of a package's binary: `npx vite` serves like `vite`. */
const BINARY_RUNNERS = new Set(['npx', 'bunx', 'pnpx']);

export function serviceEffect(segment: Segment): string | undefined {
  let name = segment.name;
  let args = segment.argv.slice(1).filter((a) => !a.startsWith('-'));
  if (BINARY_RUNNERS.has(name) && args[0] !== undefined) [name, args] = [args[0], args.slice(1)];
  const sub = args[0] ?? '';
  if (segment.flags.background === true)
    return `\`${name}\` runs in the background, and the walls end every process when the command ends`;
  if (DETACHERS.has(name) || segment.wrappers.some((w) => DETACHERS.has(w)))
    return `\`${name}\` keeps a process running after the command, and the walls end every process with it`;
  if (DAEMON_CLIENTS.has(name)) return `\`${name}\` talks to a local daemon over its socket, which the walls block`;
  if (SERVERS.has(name)) return `\`${name}\` serves on a port, which nothing outside the walls could reach`;
  const subs = SERVE_SUBCOMMANDS[name];
  if (subs !== undefined && subs.includes(sub))
    return `\`${name}${sub === '' ? '' : ` ${sub}`}\` serves on a port, which nothing outside the walls could reach`;
  if (PACKAGE_RUNNERS.has(name)) {
    const script = sub === 'run' || sub === 'run-script' ? args[1] : sub;
    if (script !== undefined && SERVE_SCRIPTS.has(script))
      return `\`${name} ${sub === script ? script : `${sub} ${script}`}\` usually starts a server or a watcher, which the walls would cut off or end`;
  }
  if (
    (name === 'python' || name === 'python3') &&
    segment.argv.includes('-m') &&
    ['http.server', 'SimpleHTTPServer', 'uvicorn', 'flask'].includes(segment.argv[segment.argv.indexOf('-m') + 1] ?? '')
  )
    return `\`${name} -m ${segment.argv[segment.argv.indexOf('-m') + 1]}\` serves on a port, which nothing outside the walls could reach`;
  if ((name === 'python' || name === 'python3') && args[0]?.endsWith('manage.py') === true && args[1] === 'runserver')
    return '`manage.py runserver` serves on a port, which nothing outside the walls could reach';
  if (name === 'php' && segment.argv.includes('-S'))
    return '`php -S` serves on a port, which nothing outside the walls could reach';
  return undefined;
}
