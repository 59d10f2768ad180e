// A container teammate's container in words (docs/containers.md, "In VS Code"), the same in
// every host: "container on podman.sock: building the image…", "… running", "… stopped",
// "engine unreachable: <why>".
import type { ContainerState } from '../container/container-state';

/** An engine's address, short: a socket's file name, an ssh or tcp host. */
export function engineWords(url: string): string {
  const m = /^(?:unix|npipe):\/\/(.*)$/.exec(url);
  if (m) return m[1]!.split(/[\\/]/).filter(Boolean).pop() ?? url;
  return url.replace(/^[a-z]+:\/\//, '').replace(/^[^@]*@/, '');
}

/** The state in words: what a row says (undefined: not started by this host). */
export function containerWords(s: ContainerState | undefined): string {
  if (!s) return 'not started in this window';
  if (s.state === 'unreachable') return `engine unreachable: ${s.detail ?? 'no answer'}`;
  const what = s.state === 'starting' ? (s.detail ?? 'starting…') : s.state === 'running' && s.startMs !== undefined ? `running (started in ${(s.startMs / 1000).toFixed(1)} s)` : s.state;
  return s.host ? `on ${engineWords(s.host)}: ${what}` : what;
}
