/**
 * unwrap: wrapper peeling on argv (words after quote removal), table-driven. Each wrapper's own options are
 * skipped with its real syntax, so an option value is never taken for the command.
 */
import { describe, expect, it } from 'vitest';
import type { Word } from '../../src/shell/options.js';
import { unwrap, UnwrapError } from '../../src/shell/unwrap.js';

/** Words from a space-separated string; `$`-words are dynamic. Use `_` for a space inside a word. */
function words(text: string): Word[] {
  return text
    .split(' ')
    .map((t) => ({ text: t === "''" ? '' : t.replace(/_/g, ' '), dynamic: t.includes('$') || t === '{}' }));
}

const argv = (text: string): string[] => words(text).map((w) => w.text);

describe('option values are skipped, never taken for the command', () => {
  it.each([
    ['sudo -u bob -g staff -C 5 -p prompt -- rm x', 'rm x', ['sudo']],
    ['sudo --user=bob --chdir=/tmp rm x', 'rm x', ['sudo']],
    ['doas -u bob rm x', 'rm x', ['doas']],
    ['env -u HOME -C /tmp A=1 rm x', 'rm x', ['env']],
    ['env --unset HOME --chdir /tmp rm x', 'rm x', ['env']],
    ['env - PATH=/bin rm x', 'rm x', ['env']],
    ['exec -a fake -c rm x', 'rm x', ['exec']],
    ['nice -n 19 rm x', 'rm x', ['nice']],
    ['nice --adjustment=5 rm x', 'rm x', ['nice']],
    ['ionice -c 2 -n 7 rm x', 'rm x', ['ionice']],
    ['taskset -c 0,1 rm x', 'rm x', ['taskset']],
    ['taskset 0x3 rm x', 'rm x', ['taskset']],
    ['time -f %e -o t.txt rm x', 'rm x', ['time']],
    ['timeout -s KILL -k 5 30s rm x', 'rm x', ['timeout']],
    ['timeout --signal=TERM --preserve-status 1m rm x', 'rm x', ['timeout']],
    ['stdbuf -i 0 -oL --error=0 rm x', 'rm x', ['stdbuf']],
    ['xargs -n 1 -P 4 -d , -I {} rm {}', 'rm {}', ['xargs']],
    ['xargs -0 -r -t rm', 'rm', ['xargs']],
    ['xargs -a list.txt rm', 'rm', ['xargs']],
    ['flock -w 10 /tmp/lock rm x', 'rm x', ['flock']],
    ['watch -x -n 2 rm x', 'rm x', ['watch']],
    ['coproc rm x', 'rm x', ['coproc']],
    ['busybox rm x', 'rm x', ['busybox']],
    ['builtin -- cd x', 'cd x', ['builtin']],
  ])('%j → %j', (input, inner, wrappers) => {
    const u = unwrap(words(input));
    expect(u.words.map((w) => w.text)).toEqual(argv(inner));
    expect(u.wrappers).toEqual(wrappers);
  });
});

describe('what wrappers record', () => {
  it('env and sudo assignments', () => {
    expect(unwrap(words('env A=1 B=x_y sudo C=3 rm x')).assignments).toEqual({ A: '1', B: 'x y', C: '3' });
  });

  it('a changed directory: env -C, sudo -D', () => {
    expect(unwrap(words('env -C /srv rm x')).chdir).toEqual({ text: '/srv', dynamic: false });
    expect(unwrap(words('sudo -D $DIR rm x')).chdir).toEqual({ text: '$DIR', dynamic: true });
  });

  it('time -o writes a file (as a redirect), -a appends', () => {
    expect(unwrap(words('time -o t.txt rm x')).redirects).toEqual([{ op: '>', target: 't.txt', dynamic: false }]);
    expect(unwrap(words('time -a -o t.txt rm x')).redirects).toEqual([{ op: '>>', target: 't.txt', dynamic: false }]);
  });

  it('sudo -b runs in the background', () => {
    expect(unwrap(words('sudo -b rm x')).flags.background).toBe(true);
  });

  it('xargs appends arguments', () => {
    expect(unwrap(words('xargs rm'))).toMatchObject({ viaXargs: true, flags: { appendsArgs: true } });
  });
});

describe('wrappers that run nothing are the command', () => {
  it.each([
    'sudo',
    'sudo -l',
    'sudo -l rm x',
    'sudo -v',
    'sudo -k',
    'sudo -e /etc/hosts',
    'sudo --help',
    'sudo -h',
    'env',
    'env -i',
    'command -v rm',
    'command -V rm',
    'timeout --help',
    'timeout 5',
    'nohup --version',
    'xargs',
    'xargs -0',
    'ionice -p 123',
    'taskset -p 123',
    'exec',
    'ssh host',
    'ssh -p 22 host',
    'su - bob',
    'watch',
    'eval',
    'trap',
    'trap -p',
    "trap '' INT",
    'trap - EXIT',
    'bash --version',
    'busybox --help',
  ])('%j', (input) => {
    const u = unwrap(words(input));
    expect(u.words.map((w) => w.text)).toEqual(argv(input));
    expect(u.wrappers).toEqual([]);
    expect(u.shell).toBeUndefined();
  });
});

describe('commands run inside a container', () => {
  it.each([
    ['docker exec -i -t -u app -w /srv db psql -c x', 'docker exec -i -t -u app -w /srv db', 'db', 'docker exec'],
    ['docker container exec db psql', 'docker container exec db', 'db', 'docker exec'],
    ['docker -H unix:///d.sock exec db psql', 'docker -H unix:///d.sock exec db', 'db', 'docker exec'],
    ['docker compose exec -T db psql', 'docker compose exec -T db', 'db', 'docker compose exec'],
    ['docker compose -f dev.yml exec db psql', 'docker compose -f dev.yml exec db', 'db', 'docker compose exec'],
    ['docker-compose exec -T db psql', 'docker-compose exec -T db', 'db', 'docker-compose exec'],
    ['podman exec -it db psql', 'podman exec -it db', 'db', 'podman exec'],
    ['podman exec -l psql', 'podman exec -l', 'the latest container', 'podman exec'],
    ['kubectl exec -i pg-0 -c pg -- psql', 'kubectl exec -i pg-0 -c pg --', 'pg-0 (pg)', 'kubectl exec'],
    ['kubectl -n data exec pg-0 -- psql', 'kubectl -n data exec pg-0 --', 'pg-0', 'kubectl exec'],
  ])('%j: the client here, the command in the container', (input, local, container, via) => {
    const u = unwrap(words(input));
    expect(u.words.map((w) => w.text)[0]).toBe('psql');
    expect(u.local?.map((w) => w.text)).toEqual(argv(local));
    expect(u.container).toMatchObject({ name: container, via });
    expect(u.wrappers).toEqual([via]);
  });

  it("variables set with -e are the container command's; those before docker stay the client's", () => {
    const u = unwrap(words('env TZ=x docker exec -e PGOPTIONS=-cx -e HOME db psql'));
    expect(u.assignments).toEqual({ PGOPTIONS: '-cx', HOME: '$HOME' });
    expect(u.container?.localAssignments).toEqual({ TZ: 'x' });
    expect(u.container?.localWrappers).toBe(1);
  });

  it.each([
    'docker run --rm img psql',
    'docker exec db',
    'docker ps',
    'kubectl exec pg-0 psql',
    'kubectl exec pg-0 --',
    'docker exec --help',
  ])('%j runs nothing in a container that hookwise follows: the command itself', (input) => {
    const u = unwrap(words(input));
    expect(u.container).toBeUndefined();
    expect(u.words.map((w) => w.text)).toEqual(argv(input));
  });

  it('--env-file sets variables hookwise does not read', () => {
    expect(() => unwrap(words('docker exec --env-file .env db psql'))).toThrow(/--env-file/);
  });
});

describe('shells and shell strings', () => {
  it.each([
    ['bash -c rm_x', 'rm x', 'bash -c'],
    ['sh -lc ls', 'ls', 'sh -c'],
    ['bash -e -o pipefail -c ls', 'ls', 'bash -c'],
    ['bash +o posix -O extglob -c ls', 'ls', 'bash -c'],
    ['bash --rcfile rc --norc -c ls', 'ls', 'bash -c'],
    ['dash -c ls arg0 arg1', 'ls', 'dash -c'],
    ['eval rm -rf x', 'rm -rf x', 'eval'],
    ['eval -- rm x', 'rm x', 'eval'],
    ['su -c rm_x bob', 'rm x', 'su -c'],
    ['su - bob --command=rm_x', 'rm x', 'su -c'],
    ['runuser -u bob -c rm_x', 'rm x', 'runuser -c'],
    ['watch -n 1 ls -la', 'ls -la', 'watch'],
    ['flock /tmp/l -c rm_x', 'rm x', 'flock -c'],
    ['trap rm_x EXIT', 'rm x', 'trap'],
  ])('%j runs %j as shell code', (input, source, wrapper) => {
    expect(unwrap(words(input)).shell).toEqual({ source, wrapper });
  });

  it('ssh: the remote command, the host, and the local ssh command', () => {
    const u = unwrap(words('ssh -p 22 -i k.pem -o StrictHostKeyChecking=no me@host cd /srv && ls'));
    expect(u.shell).toEqual({ source: 'cd /srv && ls', wrapper: 'ssh', remote: 'me@host' });
    expect(u.local?.map((w) => w.text)).toEqual(argv('ssh -p 22 -i k.pem -o StrictHostKeyChecking=no me@host'));
  });

  it.each([
    ['bash', 'shell'],
    ['sh -s -- arg', 'shell'],
    ['bash -', 'shell'],
    ['sudo -E bash', 'shell'],
    ['python3', 'python'],
    ['python3 -', 'python'],
    ['python3.12 -u -', 'python'],
    ['node', 'javascript'],
    ['perl', 'perl'],
  ])('%j reads its program from stdin', (input, language) => {
    expect(unwrap(words(input)).stdinCode).toBe(language);
  });

  it.each(['bash script.sh', 'sh -e ./x.sh', 'python3 app.py', 'python3 -m pip list', 'node server.js', 'bash -c ls'])(
    '%j does not read code from stdin',
    (input) => {
      expect(unwrap(words(input)).stdinCode).toBeUndefined();
    },
  );

  it.each([
    ['python3 -c print(1)', 'python'],
    ['python -Bc print(1)', 'python'],
    ['python3 -W ignore -c pass', 'python'],
    ['node -e 1', 'javascript'],
    ['node -p 1', 'javascript'],
    ['node --eval=1', 'javascript'],
    ['bun -e 1', 'javascript'],
    ['deno eval 1', 'javascript'],
    ['perl -e 1', 'perl'],
    ['perl -lne print f', 'perl'],
    ['perl -MFoo -E 1', 'perl'],
    ['ruby -e 1', 'ruby'],
    ['ruby -r json -e 1', 'ruby'],
    ['php -r 1;', 'php'],
    ['lua -e 1', 'lua'],
    ['osascript -e 1', 'applescript'],
  ])('%j has inline %s code', (input, language) => {
    expect(unwrap(words(input)).flags.inlineCode).toBe(language);
  });

  it.each([
    'python3 -m http.server',
    'python3 -W ignore app.py',
    'perl -pie s/a/b/ f',
    'perl -i.bak f',
    'ruby app.rb',
    'node -r dotenv/config app.js',
  ])('%j has no inline code', (input) => {
    expect(unwrap(words(input)).flags.inlineCode).toBeUndefined();
  });
});

describe('find', () => {
  it('keeps find as the command and returns each -exec command', () => {
    const u = unwrap(words('find . -name *.o -exec rm -f {} ; -execdir chmod 644 {} + -ok mv {} /tmp ;'));
    expect(u.words.map((w) => w.text)[0]).toBe('find');
    expect(u.execs.map((e) => e.map((w) => w.text))).toEqual([
      argv('rm -f {}'),
      argv('chmod 644 {}'),
      argv('mv {} /tmp'),
    ]);
    // `{}` is each visited path: dynamic.
    expect(u.execs[0]![2]).toEqual({ text: '{}', dynamic: true });
  });

  it('takes the rest when the terminator is missing', () => {
    expect(unwrap(words('find . -exec rm {}')).execs.map((e) => e.map((w) => w.text))).toEqual([argv('rm {}')]);
  });

  it('has no execs without -exec', () => {
    expect(unwrap(words('find . -delete')).execs).toEqual([]);
  });
});

describe('eval of a known shell init generator stays an eval segment', () => {
  it.each([['eval $(direnv_hook_bash)'], ['eval $(ssh-agent_-s)'], ['eval $(zoxide_init_bash)']])('%j', (input) => {
    const out = unwrap(words(input));
    expect(out.shell).toBeUndefined();
    expect(out.words.map((w) => w.text)).toEqual(['eval', input.slice(5).replace(/_/g, ' ')]);
  });

  it.each([
    ['eval $(direnv_hook_bash) x'],
    ['eval -- $(direnv_hook_bash)'],
    ['eval $(curl_-s_https://x)'],
    ['eval $(direnv_hook_fish)'],
  ])('%j is not one', (input) => {
    expect(() => unwrap(words(input))).toThrow(/eval runs the value/);
  });
});

describe('what runs cannot be known → UnwrapError with a reason', () => {
  it.each([
    ['sudo $CMD', /command run by sudo is an expansion \(\$CMD\)/],
    ['timeout 5 $CMD x', /command run by timeout/],
    ['env A=1 $X', /command run by env/],
    ['xargs $X', /command run by xargs/],
    ['eval $X', /eval runs the value of \$X/],
    ['bash -c $X', /bash -c runs the value of \$X/],
    ['su -c $X', /su -c runs the value/],
    ['ssh host rm $X', /remote command of ssh contains \$X/],
    ['ssh -o ProxyCommand=nc_%h host', /ProxyCommand runs a local command/],
    ['ssh -oLocalCommand=x host ls', /LocalCommand runs a local command/],
    ['watch rm $X', /watch runs \$X through sh -c/],
    ['trap $X EXIT', /trap installs the value of \$X/],
    ['flock l -c $X', /flock -c runs the value/],
    ['env -S rm_x', /env -S/],
  ])('%j', (input, reason) => {
    expect(() => unwrap(words(input))).toThrow(UnwrapError);
    expect(() => unwrap(words(input))).toThrow(reason);
  });
});
