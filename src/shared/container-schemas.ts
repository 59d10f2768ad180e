// The `"container"` object of `.team/settings.json` and the `agentTeams.container.*` settings
// (docs/containers.md): which engines run teammates' containers, their image, limits and
// network. Here, beside the sandbox's, so the one reader of the file (core/team/team-settings.ts)
// checks it with the other sections; core/container/settings.ts turns it into what the backend uses.
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
