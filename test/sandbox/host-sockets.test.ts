// Which host sockets a sandboxed command gets covered, and how (host-sockets.ts): the folder
// holding them when the command does not need it, else each socket alone; nothing for the
// folders the sandbox replaces, unless a bind shows them again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { socketCovers } from '../../src/core/sandbox/host-sockets';

test('socket folders are covered whole unless the command needs them; sockets in needed folders alone', () => {
  const bound = ['/home/u/proj', '/tmp/ws'];
  const c = socketCovers([
    '/home/u/.vscode-server/data/ipc.sock', '/home/u/.vscode-server/data/sub/git.sock', // one folder, the one inside with it
    '/home/u/agent.sock', // the home folder itself: kept
    '/home/u/proj/.git/fsmonitor--daemon.ipc', // inside the workspace
    '/home/dev.sock', // a folder above the workspace
    '/var/lib/svc/svc.sock',
    '/run/user/1000/bus', '/tmp/.X11-unix/X0', '/dev/log', // replaced by the sandbox
    '/tmp/ws/dev.sock', // …but bound again: the workspace under /tmp
    '/home/u/secret/s.sock', // under a hidden folder already
  ], bound, '/home/u', ['/home/u/secret']);
  assert.deepEqual(c.dirs, ['/home/u/.vscode-server/data', '/var/lib/svc']);
  assert.deepEqual(c.files, ['/home/dev.sock', '/home/u/agent.sock', '/home/u/proj/.git/fsmonitor--daemon.ipc', '/tmp/ws/dev.sock']);
});
