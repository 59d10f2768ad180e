// Entry of dist/anthropic-sdk.js: the Anthropic SDK as a bundle of its own, which the
// extension bundle requires in place of `@anthropic-ai/sdk` (see esbuild.mjs), on first use.
export * from '@anthropic-ai/sdk';
export { default } from '@anthropic-ai/sdk';
