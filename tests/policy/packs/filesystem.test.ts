import { describe, it } from 'vitest';
import { filesystemPack } from '../../../src/policy/packs/filesystem.js';
import { expectPack, HOME, ROOT } from '../../support/packs.js';
import { seg, segs } from '../../support/segments.js';

const expectFs = (command: Parameters<typeof expectPack>[1], expected: string | null, overrides = {}) =>
  expectPack(filesystemPack, command, expected, overrides);

describe('filesystem pack: recursive deletion', () => {
  it.each([
    ['rm -rf /', 'deny rm-root'],
    ['rm -rf /*', 'deny rm-root'],
    ['rm -rf -- /', 'deny rm-root'],
    ['rm -r -f //', 'deny rm-root'],
    ['rm --recursive --force /.', 'deny rm-root'],
    ['rm -fR /usr/..', 'deny rm-root'],
    ['sudo rm -rf /*', 'deny rm-root'],
    ['FOO=1 /bin/rm -rf /', 'deny rm-root'],
    ['\\rm -rf /', 'deny rm-root'],
    ['rm -rf --no-preserve-root /tmp/x', 'deny no-preserve-root'],
    ['rm -rf /etc', 'deny rm-system'],
    ['rm -rf /usr/local', 'deny rm-system'],
    ['rm -rf /us*', 'deny rm-system'],
    ['rm -rf ~', 'deny rm-home'],
    ['rm -r -f ~/', 'deny rm-home'],
    ['rm -rf ~/*', 'deny rm-home'],
    ['rm -rf $HOME', 'deny rm-home'],
    ['rm -rf "${HOME}/"', 'deny rm-home'],
    [`rm -rf ${HOME}`, 'deny rm-home'],
    ['rm -rf /home', 'deny rm-home'],
    ['rm -rf .', 'deny rm-project'],
    ['rm -rf ./', 'deny rm-project'],
    ['rm -rf *', 'deny rm-project'],
    [`rm -rf ${ROOT}`, 'deny rm-project'],
    ['rm -rf $PWD', 'deny rm-project'],
    ['rm -rf ..', 'deny rm-ancestor'],
    ['rm -rf ../', 'deny rm-ancestor'],
    ['rm -rf ../..', 'deny rm-home'],
    ['rm -rf src ..', 'deny rm-ancestor'],
    ['rm -rf .git', 'deny rm-git-dir'],
    ['rm -rf ./.git/', 'deny rm-git-dir'],
  ])('%s → %s', (command, expected) => expectFs(command, expected));

  it.each([
    ['rm -rf $DIR', 'ask rm-unknown-target'],
    ['rm -rf "$BUILD_DIR/"', 'ask rm-unknown-target'],
    ['rm -rf $(cat dirs.txt)', 'ask rm-unknown-target'],
    ['rm -rf `pwd`', 'ask rm-unknown-target'],
    ['cd $TMP && rm -rf *', 'ask rm-unknown-target'],
    ['cd - && rm -rf .', 'ask rm-unknown-target'],
  ])('an unknowable target asks: %s → %s', (command, expected) => expectFs(command, expected));

  it.each([
    ['rm -rf node_modules dist', null],
    ['rm -rf ./build', null],
    ['rm -rf build-*', null],
    ['rm -rf /tmp/hookwise-test-123', null],
    ['rm -f $FILE', null], // one file, not recursive: the write-target tier judges it
    ['rm file.txt', null],
    ['rm -rf src/*', null],
    ['cd src && rm -rf *', null], // the contents of src/, not the project
    ['cd /tmp/scratch && rm -rf *', null],
    ['rmdir empty', null],
  ])('ordinary deletions are left to the write-target tier: %s', (command, expected) => expectFs(command, expected));

  it("uses the parser's view of the working directory when it gives one", () => {
    expectFs([seg('rm -rf *', { cwd: 'src' })], null);
    expectFs([seg('rm -rf ..', { cwd: 'src' })], 'deny rm-project');
    expectFs([seg('rm -rf *', { cwd: '/' })], 'deny rm-root');
    expectFs([seg('rm -rf *', { cwd: '~' })], 'deny rm-home');
    expectFs([seg('rm -rf *', { flags: { cwdUnknown: true } })], 'ask rm-unknown-target');
  });

  it('follows literal cds to what a relative target means', () => {
    expectFs('cd src && rm -rf ..', 'deny rm-project');
    expectFs('cd / && rm -rf *', 'deny rm-root');
    expectFs('cd && rm -rf *', 'deny rm-home');
  });

  it.each([
    ['grep -r "rm -rf /" docs', null],
    ['echo "rm -rf /"', null],
    ['git commit -m "rm -rf / is bad"', null],
    ['printf "%s" "rm -rf ~"', null],
  ])('data is not execution: %s', (command, expected) => expectFs(command, expected));
});

describe('filesystem pack: find -delete', () => {
  it.each([
    ['find / -name "*.log" -delete', 'deny find-delete-root'],
    ['find ~ -type f -delete', 'deny find-delete-root'],
    ['find . -delete', 'deny find-delete-root'],
    ['find . -type f -exec rm {} +', 'deny find-delete-root'],
    ['find / -name "*.log" -exec rm -f {} ;', 'deny find-delete-root'],
    ['find . -name "*.tmp" -exec rm {} +', null],
    ['find . -name node_modules -type d -exec rm -rf {} +', null],
    ['find $DIR -delete', 'ask rm-unknown-target'],
    ['find ./build -name "*.o" -delete', null],
    ['find . -name "*.ts"', null],
  ])('%s → %s', (command, expected) => expectFs(command, expected));
});

describe('filesystem pack: devices, permissions, fork bombs', () => {
  it.each([
    ['mkfs.ext4 /dev/sdb1', 'deny format-device'],
    ['mkfs -t xfs /dev/nvme0n1p2', 'deny format-device'],
    ['sudo wipefs -a /dev/sda', 'deny format-device'],
    ['mkswap /dev/sdc', 'deny format-device'],
    ['fdisk -l', null],
    ['wipefs -n /dev/sda', null],
    ['dd if=/dev/zero of=/dev/sda bs=1M', 'deny device-write'],
    ['dd if=image.iso of=/dev/disk2', 'deny device-write'],
    ['dd if=/dev/zero of=disk.img bs=1M count=10', null],
    ['dd if=/dev/urandom of=/dev/null count=1', null],
    ['shred -n 3 /dev/sdb', 'deny device-write'],
    ['cat image.bin > /dev/sdb', 'deny device-write'],
    ['echo hi > /dev/null', null],
    ['chmod -R 777 /', 'deny permissions-root'],
    ['sudo chown -R nobody:nogroup /', 'deny permissions-root'],
    ['chown -R me ~', 'deny permissions-root'],
    ['chgrp -R staff /etc', 'deny permissions-root'],
    ['chmod -R 777 public', 'ask world-writable'],
    ['chmod -R a+w uploads', 'ask world-writable'],
    ['chmod -R o+rwx data', 'ask world-writable'],
    ['chmod -R 755 public', null],
    ['chmod -R u+w build', null],
    ['chmod +x script.sh', null],
    ['chmod 777 one-file', null],
  ])('%s → %s', (command, expected) => expectFs(command, expected));

  it('recognises a fork bomb by its definition text', () => {
    expectFs([seg(':(){ :|:& };:')], 'deny fork-bomb');
    expectFs([seg('bomb(){ bomb | bomb & }; bomb')], 'deny fork-bomb');
    expectFs([seg('function f() { f|f & }; f')], 'deny fork-bomb');
  });

  it('recognises a fork bomb by the segments of its body (`:` piped into `:` in the background)', () => {
    const body = [
      seg(':', { text: ':' }),
      seg(':', { operator: '|', flags: { background: true } }),
      seg(':', { operator: ';' }),
    ];
    expectFs(body, 'deny fork-bomb');
  });

  it('does not mistake ordinary pipelines or functions for fork bombs', () => {
    expectFs(segs('yes | head -n 3'), null);
    expectFs([seg('build(){ make all; }')], null);
    expectFs(segs(': > empty.txt'), null);
    expectFs([seg("echo ':(){ :|:& };:'")], null); // data
    expectFs([seg("grep -F ':(){ :|:& };:' notes.md")], null);
  });
});
