// The model client, through the door: hosts build their ModelFactory from it. Apart from
// index.ts because it brings the Anthropic SDK — VS Code imports it only when the first
// agent starts (docs/activation.md).
export { createModelClient, resolveModelConfig, type ModelConfig } from '../model';
