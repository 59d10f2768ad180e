// The container settings (docs/containers.md): setting `agentTeams.container.*`, the
// `"container"` object of `.team/settings.json`, CLI `--container-host`. One zod schema
// (shared/container-schemas.ts) serves the file and the settings; `resolveContainerSettings`
// turns it into what the backend uses.
import { CONTAINER_NETWORKS, type ContainerFile } from '../../shared/container-schemas';

export { CONTAINER_NETWORKS, containerFileSchema, type ContainerFile } from '../../shared/container-schemas';

export interface ContainerSettings {
  /** Engine addresses in order of preference (empty: the default engine, engine.ts). */
  hosts: string[];
  image?: string;
  cpus?: number;
  memoryBytes?: number;
  network: (typeof CONTAINER_NETWORKS)[number];
}

/** Bytes for a memory setting ("2g" → 2 GiB). */
export function memoryBytes(v: number | string): number {
  if (typeof v === 'number') return v;
  const m = /^(\d+(?:\.\d+)?)([kmg]?)b?$/.exec(v.trim().toLowerCase());
  if (!m) throw new Error(`memory "${v}" is not a size such as "2g" or "512m"`);
  const unit = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2] as '' | 'k' | 'm' | 'g'];
  return Math.round(Number(m[1]) * unit);
}

export function resolveContainerSettings(file: ContainerFile = {}): ContainerSettings {
  const hosts = [...(file.host ? [file.host] : []), ...(file.hosts ?? [])].filter((h, i, all) => all.indexOf(h) === i);
  return {
    hosts,
    ...(file.image ? { image: file.image } : {}),
    ...(file.cpus ? { cpus: file.cpus } : {}),
    ...(file.memory !== undefined ? { memoryBytes: memoryBytes(file.memory) } : {}),
    network: file.network ?? 'none',
  };
}
