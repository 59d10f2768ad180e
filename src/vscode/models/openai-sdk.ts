// Entry of dist/openai-sdk.js: the `openai` client as a bundle of its own, which the engine
// requires in place of `openai` (see esbuild.mjs) when the first `openai:` agent's model is made.
export * from 'openai';
export { default } from 'openai';
