// Where a container teammate's container stands, as this host knows it (docs/containers.md,
// "In VS Code"): starting (with the step it is at), running, stopped, or its engine unreachable.
// Kept by seats.ts from the backend's progress lines and the outcomes of start and stop, sent as
// a `container` runtime event, and shown by the hosts (the Team tree's row under the teammate).

export interface ContainerState {
  state: 'starting' | 'running' | 'stopped' | 'unreachable';
  /** The engine's address, once placed. */
  host?: string;
  /** starting: the step ("building image…"); unreachable: why. */
  detail?: string;
  /** running: how long the start took (placement to clone), when this host started it. */
  startMs?: number;
}

/** The backend's progress lines that are steps of a start (backend.ts attach, image.ts); other lines (an image build's own output) are not. */
const STEPS: Array<[RegExp, string]> = [
  [/^placing/, 'choosing an engine…'],
  [/^checking the image/, 'checking the image…'],
  [/^pulling /, 'pulling the image…'],
  [/^building /, 'building the image…'],
  [/^image (cached|pulled|built)/, 'image ready'],
  [/^creating/, 'creating…'],
  [/^starting the network bridge/, 'starting the network bridge…'],
  [/^cloning/, 'cloning…'],
  [/^reattached/, 'reattaching…'],
];

/** The step a progress line names, or undefined for a line that is not one. */
export function stepOf(line: string): string | undefined {
  return STEPS.find(([re]) => re.test(line))?.[1];
}
