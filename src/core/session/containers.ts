// The door to teammates' containers (docs/containers.md), apart from `core/session`: it brings
// the engine's client (dockerode, ssh2) with it, which only hosts that use containers load.
export { ContainerBackend, type ContainerListing, type StartedContainer } from '../container/backend';
export { containerFileSchema, resolveContainerSettings, type ContainerFile, type ContainerSettings } from '../container/settings';
