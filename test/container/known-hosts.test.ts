// known_hosts as OpenSSH writes it: plain and hashed names, [host]:port, revoked keys.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { hostVerifier, knownHostKeys } from '../../src/core/container/known-hosts';

test('known_hosts: the keys for host and port, hashed names included, revoked ones refused', () => {
  const salt = Buffer.from('0123456789abcdef0123');
  const hashed = `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update('build-box').digest('base64')}`;
  const text = [
    '# comment', 'other.example ssh-ed25519 AAAAother', 'build-box,10.0.0.5 ssh-ed25519 AAAAplain',
    `${hashed} ssh-rsa AAAAhashed`, '[build-box]:2222 ssh-ed25519 AAAAport', '@revoked build-box ssh-ed25519 AAAAbad',
  ].join('\n');
  assert.deepEqual(knownHostKeys(text, 'build-box', 22), { accepted: ['AAAAplain', 'AAAAhashed'], revoked: ['AAAAbad'] });
  assert.deepEqual(knownHostKeys(text, 'build-box', 2222).accepted, ['AAAAport']);
  assert.deepEqual(knownHostKeys(text, 'nobody', 22).accepted, []);
  const verify = hostVerifier({ accepted: [Buffer.from('good').toString('base64')], revoked: [] });
  assert.equal(verify(Buffer.from('good')), true);
  assert.equal(verify(Buffer.from('evil')), false);
  assert.equal(hostVerifier({ accepted: ['Z29vZA=='], revoked: ['Z29vZA=='] })(Buffer.from('good')), false);
});
