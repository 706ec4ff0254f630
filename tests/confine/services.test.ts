import { describe, expect, it } from 'vitest';
import { serviceEffect } from '../../src/confine/services.js';
import { parseCommand } from '../../src/shell/parse.js';
import { loadShellParser } from '../../src/shell/syntax.js';

function effectsOf(command: string): (string | undefined)[] {
  loadShellParser();
  const parsed = parseCommand(command);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.segments.map(serviceEffect);
}

describe('long-running and server commands are not confinable (the walls would break them silently)', () => {
  it.each([
    ['npm run dev', 'starts a server'],
    ['pnpm dev --port 3000', 'starts a server'],
    ['yarn start', 'starts a server'],
    ['npx vite', 'serves on a port'],
    ['next dev -p 4000', 'serves on a port'],
    ['python3 -m http.server 8000', 'serves on a port'],
    ['python manage.py runserver', 'serves on a port'],
    ['flask run --debug', 'serves on a port'],
    ['uvicorn app:api --reload', 'serves on a port'],
    ['php -S localhost:8000', 'serves on a port'],
    ['docker compose up -d', 'local daemon'],
    ['systemctl --user restart app', 'local daemon'],
    ['nohup ./scripts/worker.sh', 'keeps a process running'],
    ['./scripts/watch.sh &', 'runs in the background'],
  ])('%s: %s', (command, why) => {
    expect(effectsOf(command).find((e) => e !== undefined)).toContain(why);
  });

  it.each([
    'npm run build',
    'npm test',
    'pnpm run lint',
    'vite build',
    'next build',
    'python3 -m pytest',
    './scripts/gen.sh',
    'make all',
    'rails test',
  ])('%s: nothing to break', (command) => {
    expect(effectsOf(command).every((e) => e === undefined)).toBe(true);
  });
});
