/**
 * writeTargets: every path a command would create, modify or delete. Rows read `via path` (`*` = dynamic,
 * `@dir` = relative to the directory a literal `cd` moved to).
 */
import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../src/shell/parse.js';
import { writeTargets } from '../../src/shell/writes.js';
import { targets, writes } from './helpers.js';

describe('redirections', () => {
  it.each([
    ['echo x > out.txt', ['> out.txt']],
    ['echo x >> log', ['>> log']],
    ['make 2> err.log', ['2> err.log']],
    ['make &> all.log', ['&> all.log']],
    ['make &>> all.log', ['&>> all.log']],
    ['echo x >| clobber', ['>| clobber']],
    ['echo x >&out.txt', ['>& out.txt']],
    ['> .env', ['> .env']],
    ['echo x > "$OUT"', ['> $OUT*']],
    ['echo x > ~/.bashrc', ['> ~/.bashrc']],
    ['exec > log 2>&1', ['> log']],
    ['{ echo a; echo b; } > both', ['> both', '> both']],
    ["bash -c 'echo hi' > out", ['> out']],
  ])('%j', (command, expected) => {
    expect(targets(command)).toEqual(expected);
  });

  it.each([
    'make > /dev/null 2>&1',
    'make 2>/dev/null',
    'echo x >&2',
    'echo x 1>&2 2>&-',
    'echo x > /dev/stderr',
    'echo x > /dev/stdout',
    'cat < in.txt',
    'grep x <<< "$s"',
    "cat <<'EOF'\nbody\nEOF",
  ])('%j writes nothing', (command) => {
    expect(writes(command)).toEqual({ targets: [], unknown: [] });
  });
});

describe('file commands', () => {
  it.each([
    ['rm -rf build dist', ['rm build', 'rm dist']],
    ['rm -- -weird', ['rm -weird']],
    ['rm -f *.log', ['rm *.log*']],
    ['rm x -rf', ['rm x']],
    ['rmdir -p a/b', ['rmdir a/b']],
    ['mkdir -p -m 755 out/logs', ['mkdir out/logs']],
    ['touch -d yesterday -r ref a', ['touch a']],
    ['truncate -s 0 big.log', ['truncate big.log']],
    ['shred -n 3 -u secret', ['shred secret']],
    ['unlink old', ['unlink old']],
    ['mkfifo -m 600 pipe', ['mkfifo pipe']],
    ['ls | tee out.txt', ['tee out.txt']],
    ['ls | tee -a out.txt /dev/null copy', ['tee out.txt', 'tee copy']],
    ['ls | tee --output-error f', ['tee f']],
    ['sort -u in | sponge in', ['sponge in']],
    ['sort -o sorted.txt -k 2 in', ['sort -o sorted.txt']],
    ['dd if=/dev/zero of=disk.img bs=1M count=1', ['dd disk.img']],
    ['dd if=x of=/dev/sda', ['dd /dev/sda']],
  ])('%j', (command, expected) => {
    expect(targets(command)).toEqual(expected);
  });
});

describe('copy, move, link: destinations (and mv sources)', () => {
  it.each([
    ['cp a b', ['cp b']],
    ['cp -r src/ backup/', ['cp backup/src']],
    ['cp a b dir', ['cp dir/a', 'cp dir/b']],
    ['cp -t dir a b', ['cp dir/a', 'cp dir/b']],
    ['cp --target-directory=dir a', ['cp dir/a']],
    ['cp --target dir a', ['cp dir/a']],
    ['cp -T a b/', ['cp b/']],
    ['cp --parents a/b/c dest', ['cp dest/a/b/c']],
    ['cp -S .bak -b a b', ['cp b']],
    ['mv a b', ['mv b', 'mv a']],
    ['mv a b/', ['mv b/a', 'mv a']],
    ['mv -t .claude a', ['mv .claude/a', 'mv a']],
    ['mv .claude/settings.json /tmp/x', ['mv /tmp/x', 'mv .claude/settings.json']],
    ['install -m 755 tool /usr/local/bin/', ['install /usr/local/bin/tool']],
    ['install -d -m 700 a b', ['install a', 'install b']],
    ['install -D -t /opt/x a', ['install /opt/x/a']],
    ['ln -s /etc/passwd link', ['ln link']],
    ['ln -sf ../target', ['ln target']],
    ['ln -s a b dir/', ['ln dir/a', 'ln dir/b']],
    ['ln -t bin ../tool', ['ln bin/tool']],
    ['rsync -av --delete src/ /backup/src', ['rsync /backup/src']],
    ['rsync -e "ssh -p 22" -a src host:/dst', []],
    ['rsync -a --remove-source-files in/ out/', ['rsync out/', 'rsync in/']],
    ['rsync -a --log-file=r.log a b', ['rsync r.log', 'rsync b']],
    ['rsync -avn --delete src/ /backup/src', []],
    ['rsync --dry-run --remove-source-files in/ out/', []],
    ['rsync -n --log-file=r.log a b', ['rsync r.log']],
    ['scp host:/etc/hosts .', ['scp .']],
    ['scp a b host:', []],
    ['scp -P 22 host:a host:b dir/', ['scp dir/a', 'scp dir/b']],
  ])('%j', (command, expected) => {
    expect(targets(command)).toEqual(expected);
  });
});

describe('metadata: the files, not the mode or owner operand', () => {
  it.each([
    ['chmod 755 run.sh', ['chmod run.sh']],
    ['chmod -R u+w,go-w dir', ['chmod dir']],
    ['chmod -x script', ['chmod script']],
    ['chmod -R -w a b', ['chmod a', 'chmod b']],
    ['chmod --reference=ref a', ['chmod a']],
    ['chown -R bob:staff /srv/app', ['chown /srv/app']],
    ['chown --from=root bob f', ['chown f']],
    ['chgrp -h staff link', ['chgrp link']],
  ])('%j', (command, expected) => {
    expect(targets(command)).toEqual(expected);
  });
});

describe('in-place editors', () => {
  it.each([
    ['sed -i s/a/b/ tests/x.py', ['sed -i tests/x.py']],
    ["sed -i.bak -e 's/a/b/' -e 's/c/d/' a b", ['sed -i a', 'sed -i b']],
    ["sed -ie 's/a/b/' f", ['sed -i f']],
    ["sed -n -i '/x/p' f", ['sed -i f']],
    ['sed --in-place=.orig -f script.sed f', ['sed -i f']],
    ["sed -i '' 's/a/b/' f", ['sed -i f']],
    ["sed 's/a/b/' f > g", ['> g']],
    ["perl -pi -e 's/a/b/' a.txt b.txt", ['perl -i a.txt', 'perl -i b.txt']],
    ["perl -i.bak -pe 's/a/b/' f", ['perl -i f']],
    ['perl -pi script.pl f', ['perl -i f']],
    ["perl -ne 'print' f", []],
    ['patch -p1 file.c < fix.diff', ['patch file.c']],
    ['patch -o out.c in.c fix.diff', ['patch out.c']],
    ['patch -d sub -p0 a.c fix.diff', ['patch sub/a.c']],
    ['patch --dry-run -p1 < fix.diff', []],
  ])('%j', (command, expected) => {
    expect(targets(command)).toEqual(expected);
  });

  it('a sed script with a w command writes somewhere: unknown', () => {
    expect(writes("sed -n '/err/w errors.txt' log").unknown).toEqual(['the sed script writes a file (w command)']);
  });

  it('patch without a file operand writes what the patch names: unknown', () => {
    expect(writes('patch -p1 < fix.diff')).toEqual({
      targets: [],
      unknown: ['patch writes the files named inside the patch, which hookwise does not read'],
    });
  });
});

describe('git', () => {
  it.each([
    ['git checkout -- src/a.ts b', ['git checkout src/a.ts', 'git checkout b']],
    ['git checkout -- .', ['git checkout .']],
    ['git checkout .', ['git checkout .']],
    ['git checkout HEAD~1 file.txt', ['git checkout file.txt']],
    ['git checkout main', []],
    ['git checkout -b feature', []],
    ['git checkout -f main', ['git checkout .']],
    ['git restore src/x.ts', ['git restore src/x.ts']],
    ['git restore --source=HEAD~2 -- .', ['git restore .']],
    ['git restore --staged x', []],
    ['git restore --staged --worktree x', ['git restore x']],
    ['git clean -fdx', ['git clean .']],
    ['git clean -fd build/', ['git clean build/']],
    ['git clean -n', []],
    ['git rm -r old/', ['git rm old/']],
    ['git rm --cached secret.env', []],
    ['git mv a.ts b.ts', ['git mv b.ts', 'git mv a.ts']],
    ['git reset --hard HEAD~1', ['git reset .']],
    ['git reset HEAD file', []],
    ['git stash', ['git stash .']],
    ['git stash push -m wip src/a', ['git stash src/a']],
    ['git stash pop', ['git stash .']],
    ['git stash list', []],
    ['git -C repo clean -f', ['git clean repo']],
    ['git -C a -C b checkout -- x', ['git checkout a/b/x']],
    ['git -c core.x=1 --no-pager restore f', ['git restore f']],
    ['git status && git diff', []],
    ['git commit -am "rm -rf /"', []],
  ])('%j', (command, expected) => {
    expect(targets(command)).toEqual(expected);
  });

  it.each(['git apply fix.patch', 'git am < series.mbox'])('%j writes what the patch names: unknown', (command) => {
    expect(writes(command).unknown).toHaveLength(1);
  });

  it('git apply --check writes nothing', () => {
    expect(writes('git apply --check fix.patch')).toEqual({ targets: [], unknown: [] });
  });
});

describe('archives', () => {
  it.each([
    ['tar -xzf a.tgz', ['tar -x .']],
    ['tar xzf a.tgz -C out', ['tar -x out']],
    ['tar -x -f a.tar --directory=/opt', ['tar -x /opt']],
    ['tar --extract --file a.tar', ['tar -x .']],
    ['tar -xOf a.tar member', []],
    ['tar -czf out.tgz src', ['tar out.tgz']],
    ['tar cvf backup.tar -C / etc', ['tar backup.tar']],
    ['tar -cf - src | gzip > s.tgz', ['> s.tgz']],
    ['tar -tf a.tar', []],
    ['unzip a.zip', ['unzip .']],
    ['unzip -o a.zip -d out', ['unzip out']],
    ['unzip -qd out a.zip', ['unzip out']],
    ['unzip -l a.zip', []],
    ['7z x a.7z -oout', ['7z out']],
    ['7z a backup.7z src', ['7z backup.7z']],
    ['cpio -idv < a.cpio', ['cpio -i .']],
    ['gzip big.log', ['gzip big.log', 'gzip big.log.gz']],
    ['gzip -k big.log', ['gzip big.log.gz']],
    ['gunzip a.gz', ['gunzip a.gz', 'gunzip a']],
    ['gzip -c big.log > b.gz', ['> b.gz']],
    ['zstd -o out.zst in', ['zstd out.zst', 'zstd in.zst']],
  ])('%j', (command, expected) => {
    expect(targets(command)).toEqual(expected);
  });
});

describe('downloads', () => {
  it.each([
    ['curl -fsSLo install.sh https://x/y.sh', ['curl -o install.sh']],
    ['curl -o - https://x', []],
    ["curl -O 'https://example.com/files/tool.tar.gz?x=1'", ['curl -O tool.tar.gz']],
    ['curl -O https://example.com/a.zip?x=1', ['curl -O a.zip*']],
    ['curl --output-dir dl -O https://x/a.zip', ['curl -O dl/a.zip']],
    ['curl -H "A: b" -d @body.json -c jar.txt https://x', ['curl jar.txt']],
    ['curl -s https://x | jq .', []],
    ['wget https://x/a/b.tgz', ['wget b.tgz']],
    ['wget -P dl https://x/', ['wget dl/index.html']],
    ['wget -qO- https://x', []],
    ['wget -O .env https://x', ['wget -O .env']],
    ['wget -r https://x', ['wget .']],
  ])('%j', (command, expected) => {
    expect(targets(command)).toEqual(expected);
  });

  it('curl -J names the file from the response: unknown', () => {
    expect(writes('curl -OJ https://x/dl').unknown).toHaveLength(1);
  });
});

describe('find', () => {
  it.each([
    ["find . -name '*.tmp' -delete", ['find -delete .']],
    ['find -L build cache -type f -delete', ['find -delete build', 'find -delete cache']],
    ["find . -name '*.tmp' -exec rm {} +", ['rm .']],
    ['find src -name "*.pyc" -exec rm -f {} \\;', ['rm src']],
    ['find /tmp/x -execdir mv {} {}.bak \\;', ['mv {}.bak*', 'mv /tmp/x']],
    ['find . -fprint list.txt', ['find -fprint list.txt']],
    ["find . -name '*.ts' -print", []],
  ])('%j', (command, expected) => {
    expect(targets(command)).toEqual(expected);
  });
});

describe('adversarial: wrappers, prefixes, strings and paths do not hide writes', () => {
  it.each([
    ["bash -c 'cp a .env'", ['cp .env']],
    ['sh -c "sh -c \'echo x > .claude/settings.json\'"', ['> .claude/settings.json']],
    ['echo x > .claude/settings.json', ['> .claude/settings.json']],
    ['sed -i s/a/b/ tests/x.py', ['sed -i tests/x.py']],
    ['FOO=1 rm -rf /', ['rm /']],
    ['\\rm -rf x', ['rm x']],
    ['/usr/bin/rm -f y', ['rm y']],
    ['"rm" z', ['rm z']],
    ['env -i PATH=/bin rm x', ['rm x']],
    ['timeout 5 sudo -u bob rm x', ['rm x']],
    ['nice nohup stdbuf -oL rm x', ['rm x']],
    ["eval 'rm -rf build'", ['rm build']],
    ["echo 'cp a .env' | bash", ['cp .env']],
    ["bash <<'EOF'\ntouch .git/hooks/pre-commit\nEOF", ['touch .git/hooks/pre-commit']],
    ["trap 'rm -f /tmp/lock' EXIT", ['rm /tmp/lock']],
    ['echo $(rm -rf cache)', ['rm cache']],
    ['diff <(rm x) y', ['rm x']],
    ['echo x | tee >(cat > .env) log', ['> .env', 'tee log']],
    ['make > >(tee make.log) 2>&1', ['tee make.log']],
    ['touch .en{v,}', ['touch .env', 'touch .en']],
    ['cp a .en{v,}', ['cp .en/a', 'cp .en/.env']],
    ['cp .{env.example,env}', ['cp .env']],
    ['rm -rf "$HOME/.ssh"', ['rm ~/.ssh']],
    ['rm -rf $HOME', ['rm ~']],
    ['find . -exec sh -c \'rm "$1"\' _ {} \\;', ['rm $1*']],
    ['git -C .claude checkout -- settings.json', ['git checkout .claude/settings.json']],
  ])('%j', (command, expected) => {
    expect(targets(command)).toEqual(expected);
  });

  it.each([
    ['xargs rm < list', /xargs appends arguments/],
    ['find . -type f | xargs -0 rm -f', /xargs appends arguments/],
    ['cd "$DIR" && rm -rf build', /working directory hookwise cannot know/],
    ['if [ -d x ]; then cd x; fi; rm y', /working directory hookwise cannot know/],
  ])('%j → unknown', (command, reason) => {
    const w = writes(command);
    expect(
      w.unknown.some((u) => reason.test(u)),
      JSON.stringify(w),
    ).toBe(true);
  });

  it.each([
    ['$(echo rm) -rf x', /computed at run time/],
    ['eval "$CMD"', /eval runs the value/],
    ['$RM x', /computed at run time/],
  ])('%j is unparseable (the caller asks)', (command, reason) => {
    const result = parseCommand(command);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });

  it('remote commands write on the remote host, not here', () => {
    expect(targets("ssh host 'rm -rf /srv/cache > /tmp/log'")).toEqual([]);
    expect(targets('ssh host ls > local.txt')).toEqual(['> local.txt']);
  });
});

describe('working directory', () => {
  it.each([
    ['cd sub && rm x', ['rm x@sub']],
    ['cd sub && rm /abs ~/home', ['rm /abs', 'rm ~/home']],
    ['cd a && cd b && touch f', ['touch f@a/b']],
    ['cd /etc && cp x passwd', ['cp passwd@/etc']],
    ['(cd sub && rm x) && rm y', ['rm x@sub', 'rm y']],
    ['cd sub; echo hi > out', ['> out@sub']],
    ['env -C /srv rm x', ['rm x@/srv']],
  ])('%j', (command, expected) => {
    expect(targets(command)).toEqual(expected);
  });

  it('an absolute path is known even after an unknown cd', () => {
    expect(writes('cd "$X" && rm /tmp/a')).toEqual({ targets: ['rm /tmp/a'], unknown: [] });
  });
});

describe('build outputs named on the command line', () => {
  it.each([
    ['go build -o bin/app ./cmd/app', ['go build bin/app']],
    ['go build -o=/usr/local/bin/app .', ['go build /usr/local/bin/app']],
    ['go -C tools build --o out', ['go build tools/out']],
    ['go build ./...', []],
    ['go test -o x.test ./pkg', []],
    ['terraform plan -out=tfplan', ['terraform plan tfplan']],
    ['terraform -chdir=infra plan -out=/tmp/p', ['terraform plan /tmp/p']],
    ['terraform -chdir=infra plan --out=p', ['terraform plan infra/p']],
    ['tofu plan', []],
  ])('%j', (command, expected) => {
    expect(targets(command)).toEqual(expected);
  });
});

describe('fresh temp entries ($(mktemp)) are written as markers', () => {
  it.each([
    ['d=$(mktemp -d) && rm -rf "$d"', ['rm /␀fresh-temp-2']],
    ['d=$(mktemp -d) && cd "$d" && touch a', ['touch a@/␀fresh-temp-2']],
    ['t=$(mktemp) && curl -o "$t" http://localhost/x', ['curl -o /␀fresh-temp-2']],
  ])('%j', (command, expected) => {
    expect(targets(command).map((t) => t.replace(/\0/g, '␀'))).toEqual(expected);
  });
});

describe('read-only and unknown commands write nothing', () => {
  it.each([
    'ls -la',
    'cat README.md',
    'grep -r x .',
    'git status',
    'npm test',
    'python3 -c "print(1)"',
    'echo "rm -rf /"',
    'rm --help',
    'command -v rm',
  ])('%j', (command) => {
    expect(writes(command)).toEqual({ targets: [], unknown: [] });
  });

  it('works on an empty segment list', () => {
    expect(writeTargets([])).toEqual({ targets: [], unknown: [] });
  });
});
