// Checking an ssh engine's host key against OpenSSH's known_hosts (docs/containers.md): a
// remote engine runs the teammates' containers and receives the branch, so a machine that
// merely answers at that address must not be taken for it. Plain and hashed (`|1|salt|hash`)
// host names, `[host]:port` for ports other than 22; `@revoked` lines refuse a key. Pure.
import { createHmac } from 'node:crypto';

function nameMatches(pattern: string, name: string): boolean {
  if (pattern.startsWith('|1|')) {
    const [, , salt, hash] = pattern.split('|');
    if (!salt || !hash) return false;
    return createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest('base64') === hash;
  }
  return pattern === name;
}

/** The keys known_hosts `text` accepts for `host`:`port` (base64 blobs) and those it revokes. */
export function knownHostKeys(text: string, host: string, port: number): { accepted: string[]; revoked: string[] } {
  const name = port === 22 ? host : `[${host}]:${port}`;
  const accepted: string[] = [];
  const revoked: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    let fields = line.split(/\s+/);
    let marker = '';
    if (fields[0]?.startsWith('@')) { marker = fields[0]; fields = fields.slice(1); }
    const [hosts = '', , key] = fields;
    if (!key || marker === '@cert-authority') continue;
    const patterns = hosts.startsWith('|1|') ? [hosts] : hosts.split(',');
    if (!patterns.some((p) => nameMatches(p, name))) continue;
    (marker === '@revoked' ? revoked : accepted).push(key);
  }
  return { accepted, revoked };
}

/** ssh2's host verifier for those keys: the presented key must be accepted and not revoked. */
export function hostVerifier(keys: { accepted: string[]; revoked: string[] }): (key: Buffer) => boolean {
  return (key) => {
    const b64 = key.toString('base64');
    return keys.accepted.includes(b64) && !keys.revoked.includes(b64);
  };
}
