// One model factory for every provider (docs/models.md): the agent runner asks it for a client
// by model id, and the id's prefix picks the provider. What a host cannot provide (no key for
// a provider, `vscode:` outside VS Code, an unknown prefix) becomes a client whose every call
// fails with that reason, so the agent's transcript and a notification say it and the rest of
// the team goes on.
import { createModelClient } from './client';
import type { ModelConfig } from './config';
import { ModelError } from './errors';
import { redact } from './redact';
import { createLmClient, type LmHost } from './lm-client';
import { createOpenAIClient } from './openai-client';
import { parseModelId } from './provider-id';
import type { RetryPolicy } from './retry';
import type { ModelClient, ModelStatus } from './types';

export interface OpenAIConfig {
  apiKey: string;
  baseURL?: string;
}

export interface ProviderSources {
  /** Anthropic's key and URL; throws a ModelError saying what is missing. */
  anthropic(): ModelConfig;
  /** The OpenAI-compatible endpoint's; throws a ModelError saying what is missing. */
  openai(): OpenAIConfig;
  /** VS Code's Language Model API; absent outside VS Code. */
  vscode?: LmHost;
  retry?: Partial<RetryPolicy>;
  /** Anthropic prompt caching (the only provider that has it); default true. */
  caching?: boolean;
}

/** A client that cannot work: every call, and the spawn check, fail with `err`. */
export function failingClient(model: string, err: Error): ModelClient {
  return { model, send: () => Promise.reject(err), preflight: () => Promise.reject(err) };
}

export function createModelFactory(src: ProviderSources): (model: string, onStatus: (s: ModelStatus) => void) => ModelClient {
  return (id, onStatus) => {
    const p = parseModelId(id);
    if (!p.ok) return failingClient(id, new ModelError('config', p.error));
    try {
      switch (p.provider) {
        case 'anthropic': {
          const c = src.anthropic();
          return createModelClient({ apiKey: c.apiKey, baseURL: c.baseURL, model: p.model, caching: src.caching ?? true, onStatus, retry: src.retry });
        }
        case 'openai': {
          const c = src.openai();
          return createOpenAIClient({ apiKey: c.apiKey, baseURL: c.baseURL, model: p.model, onStatus, retry: src.retry });
        }
        case 'vscode':
          if (!src.vscode) return failingClient(id, new ModelError('config', `${id}: VS Code's language models are available only inside VS Code`));
          return createLmClient({ host: src.vscode, model: p.model, onStatus, retry: src.retry });
      }
    } catch (err) {
      return failingClient(id, err instanceof Error ? err : new Error(String(err)));
    }
  };
}

const blank = (s: string | null | undefined): string | undefined => (s && s.trim() ? s.trim() : undefined);

/** The OpenAI endpoint from a setting or env (OPENAI_BASE_URL) and a key from SecretStorage or OPENAI_API_KEY. */
export function resolveOpenAIConfig(src: { settingBaseUrl?: string | null; envBaseUrl?: string | null; secretKey?: string | null; envKey?: string | null }): OpenAIConfig {
  const apiKey = blank(src.secretKey) ?? blank(src.envKey);
  if (!apiKey) throw new ModelError('auth', 'No OpenAI API key for an openai: model: run "Agent Teams: Set OpenAI API Key" or set OPENAI_API_KEY (any non-empty value for a local server that needs none).');
  const raw = blank(src.settingBaseUrl) ?? blank(src.envBaseUrl);
  if (raw !== undefined) {
    let url: URL | undefined;
    try { url = new URL(raw); } catch { /* reported below */ }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new ModelError('config', `OpenAI base URL must be an http(s) URL: ${redact(raw.slice(0, 200), [apiKey])}`);
  }
  return { apiKey, baseURL: raw };
}
