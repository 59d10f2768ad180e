// The engine on "another machine": reached over ssh:// through an sshd on 127.0.0.1 (the
// client runs `docker system dial-stdio` there), assuming no shared file system — the branch goes
// in and comes back as bundles through the API, and a bind mount of the workspace fails the test.
// An ssh connection that drops is an error on that teammate, said with the engine's address.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { ContainerBackend } from '../../src/core/container/backend';
import { connectEngine } from '../../src/core/container/engine';
import { resolveContainerSettings } from '../../src/core/container/settings';
import { engineForFile, startSshEngine } from './engine-fixture';
import { gitIn, RUN, userRepo } from './helpers';

const testEngine = engineForFile();

test('over ssh://: commands run, reach the proxy here, commits come back, and nothing of the workspace is mounted', async (t) => {
  const engine = testEngine();
  if ('skip' in engine) return t.skip(engine.skip);
  const ssh = await startSshEngine(engine);
  if ('skip' in ssh) return t.skip(ssh.skip);
  t.after(() => ssh.stop());
  const root = await userRepo(t, ['pia']);
  const teamName = `ssh${process.pid}`;
  // The outside, on this machine: reached from the remote container only through the proxy here.
  const outside = createServer((req, res) => res.end(`hello from ${req.url}\n`));
  await new Promise<void>((r) => outside.listen(0, '127.0.0.1', r));
  t.after(() => outside.close());
  const webPort = (outside.address() as AddressInfo).port;
  const asked: string[] = [];
  const b = new ContainerBackend({
    root, teamName, engineOptions: { privateKey: ssh.privateKey, knownHostsFile: ssh.knownHostsFile },
    settings: () => resolveContainerSettings({ host: ssh.host, image: engine.image }),
    network: (agent) => async (host, p) => { asked.push(`${agent} ${host}:${p}`); return host === 'localhost'; },
  });
  // Removed through the local socket: the ssh engine is gone by the end.
  const local = new ContainerBackend({ root, teamName, settings: () => resolveContainerSettings({ host: engine.host }) });
  t.after(async () => { await b.dispose(); await local.prune(() => false).catch(() => undefined); await local.dispose(); });
  const started = await b.start('pia');
  assert.equal(started.host, ssh.host);
  const info = await (await connectEngine(ssh.host, { privateKey: ssh.privateKey, knownHostsFile: ssh.knownHostsFile })).getContainer(started.id).inspect();
  assert.deepEqual(info.Mounts ?? [], [], 'no mount at all');
  assert.ok(!(info.HostConfig.Binds ?? []).some((m) => m.includes(root)), 'no bind of the workspace');
  const work = await b.exec('pia', 'cat README.md && echo remote > remote.txt && git add . && git commit -qm "made remotely" && echo ok', RUN);
  assert.equal(work.output, 'hello\nok\n', work.error);
  const net = await b.exec('pia', `exec 3<>/dev/tcp/127.0.0.1/3128 && printf 'GET http://localhost:${webPort}/far HTTP/1.0\\r\\n\\r\\n' >&3 && timeout 20 cat <&3`, RUN);
  assert.match(net.output, /200 OK[\s\S]*hello from \/far/, `the proxy answered over ssh: ${net.output}${net.error ?? ''}`);
  assert.deepEqual(asked, [`pia localhost:${webPort}`]);
  assert.equal(started.network, 'proxy');
  const back = await b.bringBack('pia');
  assert.equal(back.updated, true);
  assert.equal(await gitIn(root, 'show', 'team/pia:remote.txt'), 'remote');
  // A machine answering at that address with another host key is not taken for the engine;
  // one known_hosts does not know is refused before connecting.
  const other = join(ssh.dir, 'other_known_hosts');
  const port = new URL(ssh.host).port;
  await writeFile(other, `[127.0.0.1]:${port} ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n`);
  await assert.rejects((await connectEngine(ssh.host, { privateKey: ssh.privateKey, knownHostsFile: other })).ping(), /verification failed/i);
  await assert.rejects(connectEngine(ssh.host, { privateKey: ssh.privateKey, knownHostsFile: join(ssh.dir, 'none') }), /is not in .*none: connect once with `ssh`/);
  // The ssh connection drops: that teammate's command says so, naming the engine.
  await ssh.stop();
  const lost = await b.exec('pia', 'echo hi', RUN);
  assert.equal(lost.exitCode, null);
  assert.match(lost.error ?? '', new RegExp(`the container engine at ${ssh.host.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is not reachable`));
});
