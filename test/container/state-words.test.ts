// A container teammate's container in words (core/session/container-words.ts) and the steps of
// its start the backend's progress lines name (container-state.ts): what the Team tree's row says.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stepOf } from '../../src/core/container/container-state';
import { containerWords, engineWords } from '../../src/core/session';
import { describeEvent } from '../../src/cli/event-printer';

test('the backend\'s progress lines map to the steps a row shows; an image build\'s own lines are no step', () => {
  assert.equal(stepOf('placing the container…'), 'choosing an engine…');
  assert.equal(stepOf('checking the image on unix:///x/podman.sock…'), 'checking the image…');
  assert.equal(stepOf('building agent-teams-devcontainer:abc from Dockerfile'), 'building the image…');
  assert.equal(stepOf('pulling debian:bookworm'), 'pulling the image…');
  assert.equal(stepOf('image cached: localhost/x'), 'image ready');
  assert.equal(stepOf('creating the container…'), 'creating…');
  assert.equal(stepOf('cloning the branch…'), 'cloning…');
  assert.equal(stepOf('STEP 2/4: RUN apt-get install -y git'), undefined);
});

test('a row says the engine shortly, the step, running with its start time, stopped, or why the engine is unreachable', () => {
  assert.equal(engineWords('unix:///run/user/1000/podman/podman.sock'), 'podman.sock');
  assert.equal(engineWords('ssh://me@build.example.com:22'), 'build.example.com:22');
  assert.equal(engineWords('tcp://10.0.0.2:2375'), '10.0.0.2:2375');
  assert.equal(containerWords({ state: 'starting', host: 'unix:///a/docker.sock', detail: 'building the image…' }), 'on docker.sock: building the image…');
  assert.equal(containerWords({ state: 'running', host: 'unix:///a/docker.sock', startMs: 2345 }), 'on docker.sock: running (started in 2.3 s)');
  assert.equal(containerWords({ state: 'stopped' }), 'stopped');
  assert.equal(containerWords({ state: 'unreachable', host: 'tcp://h:2375', detail: 'connect ECONNREFUSED' }), 'engine unreachable: connect ECONNREFUSED');
  assert.equal(containerWords(undefined), 'not started in this window');
});

test('the CLI prints each step of a container\'s start, running and stopped in the same words (it printed nothing)', () => {
  const line = (container: Parameters<typeof containerWords>[0] | null) => describeEvent({ type: 'container', agent: 'cy', container: container ?? null });
  assert.equal(line({ state: 'starting', host: 'unix:///a/podman.sock', detail: 'building the image…' }), '· cy\'s container on podman.sock: building the image…');
  assert.equal(line({ state: 'running', host: 'unix:///a/podman.sock', startMs: 5400 }), '· cy\'s container on podman.sock: running (started in 5.4 s)');
  assert.equal(line({ state: 'unreachable', host: 'ssh://me@box', detail: 'ssh: connection refused' }), '· cy\'s container engine unreachable: ssh: connection refused');
  assert.equal(line(null), null);
});
