// The door to teammates' containers (docs/containers.md), apart from `core/session`: it brings
// the engine's client (dockerode, ssh2) with it, which only hosts that use containers load.
import { ContainerBackend, type ContainerBackendOptions } from '../container/backend';

export type { ContainerBackend, ContainerListing, StartedContainer } from '../container/backend';

/** The team's containers on the configured engines (the CLI's `containers`): hosts get one, never construct it. */
export function openContainers(opts: ContainerBackendOptions): ContainerBackend {
  return new ContainerBackend(opts);
}
export { containerFileSchema, resolveContainerSettings, type ContainerFile, type ContainerSettings } from '../container/settings';
