#!/usr/bin/env node
// A two-tool agent on the OpenAI Agents SDK for JavaScript
// (@openai/agents), its tool loop the SDK's own run().
//
//   node openai-agents.mjs --api responses|chat [--stream] --prompt TEXT
//
// The client is the openai package's, given OPENAI_BASE_URL and
// OPENAI_API_KEY. Tracing is left as the environment says: the SDK uploads
// a trace of every run to api.openai.com unless OPENAI_AGENTS_DISABLE_TRACING
// is set, which headergold sets for a captured agent.
import { parseArgs } from 'node:util';
import OpenAI from 'openai';
import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, tool } from '@openai/agents';
import { main, system, tools } from './tools.mjs';

const { values: o } = parseArgs({
  options: {
    api: { type: 'string', default: 'responses' },
    stream: { type: 'boolean', default: false },
    prompt: { type: 'string' },
  },
});

main('openai-agents', async () => {
  if (!['responses', 'chat'].includes(o.api)) throw new Error(`--api ${o.api}: want responses or chat`);
  if (!o.prompt) throw new Error('--prompt is required');
  setDefaultOpenAIClient(new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY, maxRetries: 0 }));
  setOpenAIAPI(o.api === 'chat' ? 'chat_completions' : 'responses');
  const agent = new Agent({
    name: 'Travel assistant',
    instructions: system,
    model: 'gpt-4.1',
    tools: tools.map((t) => tool({ name: t.name, description: t.description, parameters: t.schema, execute: t.run })),
  });
  if (!o.stream) return (await run(agent, o.prompt, { maxTurns: 8 })).finalOutput;
  const result = await run(agent, o.prompt, { stream: true, maxTurns: 8 });
  for await (const _ of result); // the events; the final output is what is kept
  await result.completed;
  if (result.error) throw result.error;
  return result.finalOutput;
});
