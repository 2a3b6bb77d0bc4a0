// MiniMind's chat prompt, rendered as MiniMind renders it: the model's
// tokenizer_config.json chat_template (Jinja) through @huggingface/jinja, a
// maintained implementation of the Jinja subset Hugging Face templates use,
// with add_generation_prompt as MiniMind's eval_llm.py asks for it.
//
//   chatPrompt('你好')                     // generation 3: ...<|im_start|>assistant\n<think>\n\n</think>\n\n
//   chatPrompt(messages, { tokenizerConfig, thinking: true })
//   chatPrompt('你好', { generation: 2 })  // MiniMind2's template: its default system message first
import { Template } from '@huggingface/jinja';

import { MINIMIND2_CHAT_TEMPLATE, MINIMIND3_CHAT_TEMPLATE } from './chat_templates.mjs';
import { argumentChecks, describeKind } from './argument_checks.mjs';
import { argumentError, shownArgument } from './minimind_error.mjs';

const parsed = new Map(); // template source -> Template (parsing is the slow part)

function template(source) {
  if (!parsed.has(source)) {
    try {
      parsed.set(source, new Template(source));
    } catch (error) {
      throw argumentError(
        Error,
        'chat.template_unparsable',
        { reason: error.message },
        `the chat_template cannot be parsed: ${error.message}`,
        { cause: error },
      );
    }
  }
  return parsed.get(source);
}

const { object: checkObject, flag: checkFlag, describe } = argumentChecks({ describe: describeKind });

// A special token as tokenizer_config.json writes it: a string or an AddedToken {content}.
function tokenText(token) {
  if (typeof token === 'string') return token;
  return token && typeof token === 'object' && typeof token.content === 'string' ? token.content : undefined;
}

// tokenizer_config.json's chat_template: a string, or a list of {name, template} (the "default" one).
function templateOf(config) {
  const t = config.chat_template;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) return t.find((entry) => entry?.name === 'default')?.template;
  return undefined;
}

function messageList(messages) {
  if (typeof messages === 'string') return [{ role: 'user', content: messages }];
  if (!Array.isArray(messages) || messages.length === 0)
    throw argumentError(
      TypeError,
      'api.not_messages',
      { got: shownArgument(messages) },
      `messages must be a text or a non-empty array of {role, content}, got ${describe(messages)}`,
    );
  return messages.map((m, i) => {
    if (!m || typeof m !== 'object' || typeof m.role !== 'string' || typeof m.content !== 'string')
      throw argumentError(TypeError, 'api.not_message', { index: i }, `messages[${i}] must be {role: string, content: string}`);
    return { role: m.role, content: m.content };
  });
}

/**
 * The prompt of a chat for MiniMind's SFT models, ending with the assistant's
 * turn to speak. `messages`: a user's text, or [{role: 'system'|'user'|'assistant', content}].
 * `tokenizerConfig`: the model's tokenizer_config.json (text or object), whose
 * chat_template is used; without one, MiniMind's template of `generation` (3,
 * the default, as shipped in models/minimind-tokenizer/; or 2, MiniMind2's).
 * `thinking`: generation 3's open_thinking (the prompt then ends in
 * `<think>\n` instead of an empty think block).
 * @param {string | {role: string, content: string}[]} messages
 * @param {{tokenizerConfig?: string | object, thinking?: boolean, generation?: 2 | 3}} [options]
 */
export function chatPrompt(messages, options = {}) {
  checkObject(options, 'options', { arrays: true });
  const { tokenizerConfig, thinking = false, generation = 3 } = options;
  checkFlag(thinking, 'thinking');
  if (generation !== 2 && generation !== 3)
    throw argumentError(
      RangeError,
      'api.one_of',
      { name: 'generation', allowed: '2, 3', got: shownArgument(generation) },
      `generation must be 2 or 3, got ${describe(generation)}`,
    );
  let config = {};
  if (tokenizerConfig !== undefined) {
    try {
      config = typeof tokenizerConfig === 'string' ? JSON.parse(tokenizerConfig) : tokenizerConfig;
    } catch (error) {
      throw argumentError(
        Error,
        'chat.config_not_json',
        { reason: error.message },
        `tokenizer_config.json is not valid JSON: ${error.message}`,
        { cause: error },
      );
    }
    if (!config || typeof config !== 'object' || Array.isArray(config))
      throw argumentError(
        TypeError,
        'api.not_tokenizer_config',
        { got: shownArgument(config) },
        `tokenizerConfig must be tokenizer_config.json text or an object, got ${describe(config)}`,
      );
  }
  const source = templateOf(config) ?? (generation === 2 ? MINIMIND2_CHAT_TEMPLATE : MINIMIND3_CHAT_TEMPLATE);
  try {
    return template(source).render({
      messages: messageList(messages),
      add_generation_prompt: true,
      open_thinking: thinking,
      bos_token: tokenText(config.bos_token) ?? '<|im_start|>',
      eos_token: tokenText(config.eos_token) ?? '<|im_end|>',
    });
  } catch (error) {
    if (error instanceof TypeError) throw error;
    throw argumentError(
      Error,
      'chat.template_render',
      { reason: error.message },
      `the chat_template cannot be rendered: ${error.message}`,
      { cause: error },
    );
  }
}
