// Where the model's base URL and key come from (README.md: Set API Key, ANTHROPIC_BASE_URL): setting, else env for the URL;
// SecretStorage, else env for the key. Blank values count as unset (a cleared setting is "").
import { ModelError } from './errors';
import { redact } from './redact';

export interface ModelConfigSources {
  settingBaseUrl?: string | null;
  envBaseUrl?: string | null;
  secretKey?: string | null;
  envKey?: string | null;
}

export interface ModelConfig {
  /** Undefined: the public API. */
  baseURL?: string;
  apiKey: string;
  /** Where the key came from, for a UI line like "using ANTHROPIC_API_KEY". */
  keySource: 'secret' | 'env';
}

const blank = (s: string | null | undefined): string | undefined => (s && s.trim() ? s.trim() : undefined);

/** Throws ModelError kind 'auth' without a key, kind 'config' for a base URL that is not http(s). */
export function resolveModelConfig(src: ModelConfigSources): ModelConfig {
  const secret = blank(src.secretKey);
  const env = blank(src.envKey);
  const apiKey = secret ?? env;
  if (!apiKey) {
    throw new ModelError('auth', 'No Anthropic API key: run "Agent Teams: Set API Key" or set ANTHROPIC_API_KEY.');
  }
  const rawUrl = blank(src.settingBaseUrl) ?? blank(src.envBaseUrl);
  return { baseURL: rawUrl === undefined ? undefined : normalizeBaseUrl(rawUrl, apiKey), apiKey, keySource: secret ? 'secret' : 'env' };
}

/** Trailing slashes and a trailing /v1 go: the SDK appends /v1/messages itself. */
function normalizeBaseUrl(raw: string, apiKey: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ModelError('config', `Base URL is not a valid URL: ${redact(raw, [apiKey])}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ModelError('config', `Base URL must be http(s): ${redact(raw, [apiKey])}`);
  }
  return raw.replace(/\/+$/, '').replace(/\/v1$/, '');
}
