// Rules that hold (docs/permissions.md): a command is cleared of deny and ask rules only
// when every command it runs has a name known before it runs. Wrappers, command strings,
// aliases and here-documents fed to a shell are followed; what cannot be followed asks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideBash } from '../../src/core/permissions/decide';

const denyRm = { deny: ['Bash(rm:*)'] };

/** [command, the verdict under `Bash(rm:*)` denied and everything else allowed by default]. */
const ATTACKS: Array<[string, 'deny' | 'ask']> = [
  ['command rm x', 'deny'],
  ['command -p rm x', 'deny'],
  ['env rm x', 'deny'],
  ['env -i FOO=1 rm x', 'deny'],
  ['env - rm x', 'deny'],
  ["env -S 'rm x'", 'deny'],
  ['/usr/bin/env rm x', 'deny'],
  ['/bin/rm x', 'deny'],
  ['\\rm x', 'deny'],
  ["'r'm x", 'deny'],
  ['echo x | xargs rm', 'deny'],
  ['echo x | xargs -0 -n 1 rm -f', 'deny'],
  ["echo x | xargs -I{} sh -c 'rm {}'", 'deny'],
  ['find . -name x -delete', 'deny'],
  ['find . -exec rm {} \\;', 'deny'],
  ['find . -execdir rm {} +', 'deny'],
  ["find . -exec sh -c 'rm \"$1\"' _ {} \\;", 'deny'],
  ["bash -c 'rm x'", 'deny'],
  ["sh -c 'rm x'", 'deny'],
  ["bash -lc 'echo hi; rm x'", 'deny'],
  ['bash -c "rm x"', 'deny'],
  ["bash -o pipefail -c 'rm x'", 'deny'],
  ['$(echo rm) x', 'ask'],
  ['`echo rm` x', 'ask'],
  ['x=r; ${x}m x', 'ask'],
  ['eval rm x', 'deny'],
  ["eval 'rm x'", 'deny'],
  ['eval "$CMD"', 'ask'],
  ["shopt -s expand_aliases\nalias x='rm'\nx y", 'deny'],
  ['alias x=rm; x y', 'deny'],
  ['sh <<EOF\nrm x\nEOF', 'deny'],
  ["bash <<'EOF'\nrm x\nEOF", 'deny'],
  ['sh <<EOF\n$(printf rm) x\nEOF', 'ask'],
  ["bash <<< 'rm x'", 'deny'],
  ["echo 'rm x' | sh", 'ask'],
  ['sh < script.sh', 'ask'],
  ['source /dev/stdin <<< "rm x"', 'ask'],
  ['exec rm x', 'deny'],
  ['exec -a name rm x', 'deny'],
  ['nohup rm x', 'deny'],
  ['timeout 5 rm x', 'deny'],
  ['timeout -s KILL -k 1 5s rm x', 'deny'],
  ['nice -n 10 rm x', 'deny'],
  ['nice -5 rm x', 'deny'],
  ['sudo rm x', 'deny'],
  ['sudo -u root -E rm x', 'deny'],
  ["sudo -s 'rm x'", 'deny'],
  ['setsid -f rm x', 'deny'],
  ['stdbuf -oL rm x', 'deny'],
  ['time rm x', 'deny'],
  ['time -p rm x', 'deny'],
  ['builtin command env nohup rm x', 'deny'],
  ['busybox rm x', 'deny'],
  ["watch -n 1 'rm x'", 'deny'],
  ['flock /tmp/l rm x', 'deny'],
  ["flock /tmp/l -c 'rm x'", 'deny'],
  ["trap 'rm x' EXIT", 'deny'],
  ['f() { rm x; }; f', 'deny'],
  ["bash -c \"eval 'sh -c \\\"rm x\\\"'\"", 'deny'],
  ['{rm,x}', 'ask'],
  ['/bin/r? x', 'ask'],
  ['timeout --frobnicate 5 rm x', 'ask'],
  ['env "$X" rm', 'ask'],
];

test('with Bash(rm:*) denied and everything else allowed, no wrapper runs rm unasked', async () => {
  const wrong: string[] = [];
  for (const [cmd, want] of ATTACKS) {
    const d = await decideBash(denyRm, cmd, 'allow');
    if (d.verdict !== want) wrong.push(`${JSON.stringify(cmd)}: ${d.verdict} (${d.reason}), expected ${want}`);
  }
  assert.deepEqual(wrong, []);
});

test('a deny rule names the wrapped command; an unknown name says why it asks', async () => {
  const d = await decideBash(denyRm, 'env FOO=1 rm -rf x', 'allow');
  assert.equal(d.verdict, 'deny');
  assert.match(d.reason, /`rm -rf x` matches the deny rule Bash\(rm:\*\)/);
  const u = await decideBash(denyRm, '$(echo rm) x', 'allow');
  assert.match(u.reason, /command name in `… x` is only known when it runs, so the deny and ask rules cannot be checked/);
  const p = await decideBash(denyRm, "echo 'rm x' | bash", 'allow');
  assert.match(p.reason, /what `bash` reads from its input is only known when it runs/);
  // An ask rule is followed through wrappers the same way.
  assert.equal((await decideBash({ ask: ['Bash(git push:*)'] }, "nohup bash -c 'git push'", 'allow')).verdict, 'ask');
});

test('ordinary commands stay as they were: no deny hit, wrappers of harmless commands run', async () => {
  const ok = [
    'ls -la', 'git status', 'npm test 2>&1', 'env FOO=1 npm test', 'timeout 60 npm test', 'nice make -j4',
    'find . -name "*.ts" -print', 'find . -exec grep -l x {} +', "bash -c 'npm test'", 'xargs echo < list.txt',
    'command -v rm', 'time npm test', '[ -f x ] && echo yes', 'sh ./build.sh', 'echo rm', 'grep -r "rm " src',
  ];
  for (const cmd of ok) assert.equal((await decideBash(denyRm, cmd, 'allow')).verdict, 'allow', cmd);
  // Allow rules keep judging the command as written: `Bash(npm test:*)` does not allow `env … npm test`.
  assert.equal((await decideBash({ allow: ['Bash(npm test:*)'] }, 'env FOO=1 npm test', 'ask')).verdict, 'ask');
  assert.equal((await decideBash({ allow: ['Bash(timeout:*)'], deny: ['Bash(rm:*)'] }, 'timeout 5 rm x', 'ask')).verdict, 'deny');
  // Without deny or ask rules nothing needs clearing: the fallback decides.
  assert.equal((await decideBash({ allow: ['Bash(ls:*)'] }, '$(echo rm) x', 'allow')).verdict, 'allow');
});

test('an exact rule matches the command\'s words, never a command with a newline in it', async () => {
  const exact = { allow: ['Bash(git status)'] };
  assert.equal((await decideBash(exact, 'git status', 'ask')).verdict, 'allow');
  assert.equal((await decideBash(exact, 'git  status', 'ask')).verdict, 'allow');
  for (const cmd of ['git\nstatus', 'git\tstatus\ntouch x', 'git\rstatus', 'git\\\nstatus']) {
    assert.equal((await decideBash(exact, cmd, 'ask')).verdict, 'ask', JSON.stringify(cmd));
  }
  assert.equal((await decideBash({ allow: ['Bash(git status)'], deny: ['Bash(touch:*)'] }, 'git\nstatus\ntouch x', 'allow')).verdict, 'deny');
});
