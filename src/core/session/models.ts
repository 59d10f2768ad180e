// The model client, through the door: hosts build their ModelFactory from it. Apart from
// index.ts because it brings the Anthropic SDK — VS Code imports it only when the first
// agent starts (docs/activation.md).
export {
  createModelClient, createModelFactory, resolveModelConfig, resolveOpenAIConfig, type ModelConfig,
  type ChatToolDef, type ChatTurn, type LmChatModel, type LmHost,
} from '../model';
export type { Failure } from '../model/classify';
