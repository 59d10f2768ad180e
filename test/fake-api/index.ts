// The fake Anthropic Messages API, as tests and benchmarks import it.
export { startFakeApi, type FakeApi, type FakeApiOptions } from './server';
export { fault, reply, regexMatcher, shaped, systemText, text, toolUse, type AgentMatcher } from './script';
export { cachedFraction, keyFingerprint } from './recorder';
export { approxTokens, canonicalJson } from './cache-sim';
export type * from './types';
