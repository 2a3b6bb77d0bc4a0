// Declarations of js/chat_template.mjs (MiniMind's chat templates rendered by @huggingface/jinja).

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | string;
  content: string;
}

/**
 * MiniMind's chat prompt (for SFT models), ending with the assistant's turn: the chat_template of
 * `tokenizerConfig` (tokenizer_config.json text or object), else MiniMind's template of `generation`
 * (3, the default; 2: MiniMind2's, with its default system message), rendered with add_generation_prompt.
 * `thinking` opens generation 3's think block.
 */
export function chatPrompt(
  messages: string | ChatMessage[],
  options?: { tokenizerConfig?: string | Record<string, unknown>; thinking?: boolean; generation?: 2 | 3 },
): string;
