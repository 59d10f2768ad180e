// Commands in a teammate's container, against a real engine (Podman's Docker-compatible service,
// test/container/engine-fixture.ts): output and exit codes as on the host, a timeout or an abort
// kills the command's whole process group, output past the cap keeps its head and tail, and the
// command sees nothing of the host (no key in its environment, no engine socket).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineForFile } from './engine-fixture';
import { backendFor, RUN, userRepo } from './helpers';

const testEngine = engineForFile();

test('a command runs in the container: interleaved output, exit code, working folder, a missing folder said', async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  const root = await userRepo(t, ['ann']);
  const b = backendFor(t, engine, root);
  await b.start('ann');
  const r = await b.exec('ann', 'echo out; echo err >&2; echo again; cat README.md; exit 3', RUN);
  assert.equal(r.exitCode, 3);
  assert.equal(r.output, 'out\nerr\nagain\nhello\n');
  await b.exec('ann', 'mkdir -p sub/dir', RUN);
  assert.equal((await b.exec('ann', 'pwd', { ...RUN, cwd: 'sub/dir' })).output, '/workspace/sub/dir\n');
  const missing = await b.exec('ann', 'pwd', { ...RUN, cwd: 'nope' });
  assert.match(missing.error ?? '', /working directory does not exist: \/workspace\/nope/);
  // Bytes that are not text and quotes that would break a naive wire format come through.
  const odd = await b.exec('ann', `printf 'a\\tb "c" \\x27d\\x27 %s\\n' "$HOME"`, RUN);
  assert.equal(odd.output, `a\tb "c" 'd' /root\n`);
});

test('a timeout and an abort kill the command and everything it started; the next command runs', async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  const root = await userRepo(t, ['bo']);
  const b = backendFor(t, engine, root);
  await b.start('bo');
  const count = 'grep -l "^sleep$" /proc/[0-9]*/comm 2>/dev/null | wc -l';
  const before = Number((await b.exec('bo', count, RUN)).output.trim());
  const timed = await b.exec('bo', 'sleep 300 & sleep 301 & echo started; wait', { ...RUN, timeoutMs: 700 });
  assert.equal(timed.timedOut, true);
  assert.equal(timed.exitCode, null);
  assert.match(timed.output, /started/);
  assert.ok(timed.durationMs < 5000, `stopped promptly: ${timed.durationMs} ms`);
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 300);
  const aborted = await b.exec('bo', 'trap "" TERM; sleep 302 & sleep 303', { ...RUN, signal: ac.signal });
  assert.equal(aborted.aborted, true);
  assert.equal(aborted.signal, 'SIGKILL', 'TERM ignored: killed after the grace');
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(Number((await b.exec('bo', count, RUN)).output.trim()), before, 'no sleep left behind');
  assert.equal((await b.exec('bo', 'echo still here', RUN)).output, 'still here\n');
});

test('output past the cap keeps its head and tail, and says how much was cut', async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  const root = await userRepo(t, ['cy']);
  const b = backendFor(t, engine, root);
  await b.start('cy');
  const r = await b.exec('cy', 'echo FIRST; head -c 200000 /dev/zero | tr "\\0" x; echo; echo LAST', { ...RUN, maxOutputBytes: 1000 });
  assert.equal(r.truncated, true);
  assert.match(r.output, /^FIRST\n/);
  assert.match(r.output, /LAST\n$/);
  assert.match(r.output, /\[\.\.\. \d+ bytes truncated \.\.\.\]/);
  assert.ok(r.output.length < 1200, `capped: ${r.output.length}`);
  // Under the cap, whatever its size, it comes whole: a short answer, a long one, text in UTF-8.
  const long = await b.exec('cy', 'seq 1 2000', RUN);
  assert.equal(long.output, `${Array.from({ length: 2000 }, (_, i) => i + 1).join('\n')}\n`);
  assert.equal(long.truncated, false);
  assert.equal((await b.exec('cy', 'echo "héllo ✓"', RUN)).output, 'héllo ✓\n');
});

test('commands run at once each get their own output and exit code', async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  const root = await userRepo(t, ['dot']);
  const b = backendFor(t, engine, root);
  await b.start('dot');
  const n = 12;
  const results = await Promise.all(Array.from({ length: n }, (_, i) => b.exec('dot', `sleep 0.$((RANDOM % 3)); seq ${i} ${i + (i % 2 ? 2000 : 3)} | tr -d '\\n' | head -c ${i % 2 ? 6000 : 50}; echo; exit ${i}`, RUN)));
  results.forEach((r, i) => {
    assert.equal(r.exitCode, i);
    assert.ok(r.output.startsWith(String(i)), `command ${i}: ${r.output.slice(0, 40)}`);
    assert.equal(r.output.length, (i % 2 ? 6000 : Math.min(50, r.output.length - 1)) + 1);
  });
});

test("a command sees nothing of the host: not the key, not the engine's socket, not the user's repository", async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  const root = await userRepo(t, ['di']);
  process.env.ANTHROPIC_API_KEY = 'sk-ant-test-do-not-leak';
  t.after(() => { delete process.env.ANTHROPIC_API_KEY; });
  const b = backendFor(t, engine, root);
  await b.start('di');
  const socket = engine.host.replace('unix://', '');
  const r = await b.exec('di', [
    'env', 'cat /proc/1/environ | tr "\\0" "\\n"', `ls -la ${socket} /var/run/docker.sock /run/podman 2>&1`,
    'cat /proc/mounts', 'git -C /workspace remote -v', 'cat /workspace/.git/config',
  ].join('; echo ---; '), RUN);
  assert.doesNotMatch(r.output, /sk-ant-test-do-not-leak/);
  assert.match(r.output, /podman\.sock'?: No such file or directory/);
  assert.match((await b.exec('di', `ls ${root} 2>&1`, RUN)).output, /No such file or directory/);
  assert.doesNotMatch(r.output, new RegExp(root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), "no path of the user's machine inside");
});
