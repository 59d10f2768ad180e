// Participant names: the pattern every name must match before it is used in a path, and the
// names no teammate may take. Shared by the core's checks, the file schemas and the webview.
export const NAME_RE = /^[a-z][a-z0-9_-]{0,31}$/;
export const RESERVED = ['lead', 'user', 'team'] as const;
