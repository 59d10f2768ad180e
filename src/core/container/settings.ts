// The container settings (docs/containers.md): setting `agentTeams.container.*`, the
// `"container"` object of `.team/settings.json`, CLI `--container-host`. One zod schema serves
// the file and the defaults; `resolveContainerSettings` turns it into what the backend uses.
import { z } from 'zod';

export const CONTAINER_NETWORKS = ['none', 'bridge'] as const;

const engineUrl = z.string().trim().regex(/^(unix|npipe|tcp|ssh|https?):\/\/./, 'expected unix:///path, tcp://host:port or ssh://user@host');

/** `"2g"`, `"512m"`, `"1.5g"` or a number of bytes. */
const memory = z.union([z.number().int().positive(), z.string().trim().toLowerCase().regex(/^\d+(\.\d+)?[kmg]?b?$/, 'expected e.g. "2g", "512m" or a number of bytes')]);

/** The `"container"` object of `.team/settings.json` (every field optional). */
export const containerFileSchema = z.object({
  host: engineUrl.optional().describe('The engine: unix:///var/run/docker.sock, tcp://host:2375, ssh://user@host'),
  hosts: z.array(engineUrl).optional().describe('Several engines: each new teammate is placed on the least busy'),
  image: z.string().trim().min(1).optional().describe('The image; default: .devcontainer/devcontainer.json'),
  cpus: z.number().positive().optional(),
  memory: memory.optional(),
  network: z.enum(CONTAINER_NETWORKS).optional(),
}).strict();
export type ContainerFile = z.infer<typeof containerFileSchema>;

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
