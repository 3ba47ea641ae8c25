#!/usr/bin/env node
// A two-tool agent on LangChain.js: langchain's createAgent (a LangGraph
// tool loop) over the chat model of each provider package.
//
//   node langchain.mjs --provider anthropic|openai-chat|openai-responses|gemini
//                      [--stream] --prompt TEXT
//
// With --stream the graph runs with agent.stream (every model call
// streams); without, with agent.invoke. Base URLs: ANTHROPIC_BASE_URL (the
// Anthropic SDK underneath adds /v1), OPENAI_BASE_URL,
// GOOGLE_GEMINI_BASE_URL (@google/generative-ai adds /v1beta).
import { parseArgs } from 'node:util';
import { createAgent, tool } from 'langchain';
import { HumanMessage } from '@langchain/core/messages';
import { ChatAnthropic } from '@langchain/anthropic';
import { ChatOpenAI } from '@langchain/openai';
import { ChatGoogleGenerativeAI } from '@langchain/google-genai';
import { main, system, tools } from './tools.mjs';

const { values: o } = parseArgs({
  options: {
    provider: { type: 'string' },
    stream: { type: 'boolean', default: false },
    prompt: { type: 'string' },
  },
});

const models = {
  anthropic: () => new ChatAnthropic({ model: 'claude-sonnet-4-5', anthropicApiUrl: process.env.ANTHROPIC_BASE_URL, maxRetries: 0, streaming: o.stream }),
  'openai-chat': () =>
    new ChatOpenAI({ model: 'gpt-4.1', configuration: { baseURL: process.env.OPENAI_BASE_URL }, maxRetries: 0, useResponsesApi: false, streaming: o.stream }),
  'openai-responses': () =>
    new ChatOpenAI({ model: 'gpt-4.1', configuration: { baseURL: process.env.OPENAI_BASE_URL }, maxRetries: 0, useResponsesApi: true, streaming: o.stream }),
  gemini: () =>
    new ChatGoogleGenerativeAI({ model: 'gemini-2.5-flash', baseUrl: process.env.GOOGLE_GEMINI_BASE_URL, apiKey: process.env.GOOGLE_API_KEY, maxRetries: 0, streaming: o.stream }),
};

function textOf(msg) {
  if (typeof msg.content === 'string') return msg.content;
  return msg.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
}

main('langchain', async () => {
  if (!Object.hasOwn(models, o.provider ?? '')) throw new Error(`--provider ${o.provider}: want one of ${Object.keys(models).join(', ')}`);
  if (!o.prompt) throw new Error('--prompt is required');
  const agent = createAgent({
    model: models[o.provider](),
    tools: tools.map((t) => tool(t.run, { name: t.name, description: t.description, schema: t.schema })),
    systemPrompt: system,
  });
  const input = { messages: [new HumanMessage(o.prompt)] };
  if (!o.stream) return textOf((await agent.invoke(input, { recursionLimit: 20 })).messages.at(-1));
  // 'values' gives the state after each step; 'messages' makes the model calls stream.
  let last;
  for await (const [mode, chunk] of await agent.stream(input, { streamMode: ['messages', 'values'], recursionLimit: 20 })) {
    if (mode === 'values') last = chunk;
  }
  return textOf(last.messages.at(-1));
});
