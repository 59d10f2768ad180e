// How the sandbox's proxy names a destination before judging it (docs/security.md "network"):
// one spelling per host, so `0.0.0.0`, `[::ffff:7f00:1]`, `2130706433` and `LOCALHOST.` are not
// hosts of their own. Every address of this machine is one host, `localhost`, judged per port:
// a yes to one spelling of it never opens another port. Pure but for this machine's addresses.
import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/** Addresses that reach this machine whatever its interfaces: loopback, the unspecified address, and their IPv4-mapped forms. */
const LOCAL = new BlockList();
LOCAL.addSubnet('127.0.0.0', 8, 'ipv4');
// Connecting to 0.0.0.0 (or `::`) reaches this machine's listeners.
LOCAL.addSubnet('0.0.0.0', 8, 'ipv4');
LOCAL.addAddress('::', 'ipv6');
LOCAL.addAddress('::1', 'ipv6');
// IPv4-compatible (deprecated) spellings of the above; the IPv4-mapped ones (`::ffff:127.0.0.1`) BlockList matches against the IPv4 rules.
LOCAL.addSubnet('::7f00:0', 104, 'ipv6');

/**
 * The one spelling of `raw` (a host as a command sent it, IPv6 with or without brackets):
 * parsed as a URL host is (IPv4 in any of its numeric forms made dotted, IPv6 compressed,
 * names lower case and punycoded), brackets and a trailing dot dropped. Null when it is no host.
 */
export function canonicalHost(raw: string): string | null {
  let h = raw.trim();
  // A URL host parser would read `user@evil` or `a/b` as more than a host.
  if (!h || /[\s@/?#\\]/.test(h)) return null;
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (isIP(h) === 6) h = `[${h}]`;
  let name: string;
  try { name = new URL(`http://${h}/`).hostname; } catch { return null; }
  if (name.startsWith('[')) return name.slice(1, -1);
  name = name.replace(/\.$/, '');
  return name || null;
}

/** Whether an address is one of this machine's own interfaces' (a server on 0.0.0.0 is reached there too). */
function ownAddress(address: string): boolean {
  return Object.values(networkInterfaces()).some((list) => list?.some((i) => i.address === address || i.address === address.replace(/^::ffff:/, '')));
}

/** Whether canonical `host` is this machine: `localhost`, `*.localhost`, a loopback or unspecified address in any spelling, or an address of one of its interfaces. */
export function isLoopback(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const family = isIP(host);
  if (!family) return false;
  return LOCAL.check(host, family === 6 ? 'ipv6' : 'ipv4') || ownAddress(host);
}

/** How a question names `host:port`: this machine with its port (IPv6 in brackets), any other host by name alone. */
export function shownHost(host: string, port: number): string {
  if (!isLoopback(host)) return host;
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

/**
 * `entry` from allowedDomains admits canonical `host:port`: exact, `*.` for subdomains,
 * `:port` for one port; any spelling of this machine (`localhost`, `127.0.0.1`, `[::1]`)
 * for any of its spellings.
 */
export function domainMatches(entry: string, host: string, port: number): boolean {
  const e = entry.trim().toLowerCase();
  const bare6 = !e.startsWith('[') && (e.match(/:/g)?.length ?? 0) > 1;
  const m = bare6 ? [e, e, undefined] : /^\[?(.*?)\]?(?::(\d+))?$/.exec(e)!;
  if (m[2] && Number(m[2]) !== port) return false;
  const raw = m[1]!;
  if (raw.startsWith('*.')) return host.endsWith(raw.slice(1).replace(/\.$/, ''));
  const name = canonicalHost(raw);
  if (!name) return false;
  if (isLoopback(name) && isLoopback(host)) return true;
  return host === name;
}
