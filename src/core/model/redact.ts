// Keeps API keys out of every message we log or show. Keys registered here (the model client
// registers the one it uses) are replaced wherever they appear; common key shapes are masked
// even when nobody registered them, because a key can arrive through a proxy's error body.
const secrets = new Set<string>();

// Shorter strings would redact ordinary words out of messages.
const MIN_SECRET_LENGTH = 8;

export function registerSecret(secret: string | undefined | null): void {
  if (secret && secret.length >= MIN_SECRET_LENGTH) secrets.add(secret);
}

export const REDACTED = '[REDACTED]';

/** `text` with registered secrets, `extra` secrets and key-like tokens masked. */
export function redact(text: string, extra: ReadonlyArray<string | undefined | null> = []): string {
  let out = text;
  for (const s of [...secrets, ...extra]) if (s && s.length >= MIN_SECRET_LENGTH) out = out.split(s).join(REDACTED);
  return out
    .replace(/sk-ant-[A-Za-z0-9_-]{6,}/g, `sk-ant-${REDACTED}`)
    .replace(/(bearer\s+)[^\s"',;]+/gi, `$1${REDACTED}`)
    .replace(/(x-api-key["']?\s*[:=]\s*["']?)[^\s"',;]+/gi, `$1${REDACTED}`)
    .replace(/(\/\/)[^/\s:@]+:[^/\s@]+@/g, `$1${REDACTED}@`);
}
