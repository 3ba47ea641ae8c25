#!/usr/bin/env node
// The travel-weather agent of agent.mjs on the AI SDK (ai, with its
// @ai-sdk/anthropic, @ai-sdk/openai and @ai-sdk/google providers) instead
// of the official SDKs: the same system prompt and plugins, with the
// framework's own tool loop (generateText or streamText, stopping after
// --max-steps steps). The final text goes to stdout.
//
// Usage:
//
//   node aisdk.mjs --provider anthropic|openai-chat|openai-responses|gemini
//                  [--stream] [--max-steps N] --prompt TEXT
//
// The providers read their API keys from ANTHROPIC_API_KEY, OPENAI_API_KEY
// and GOOGLE_GENERATIVE_AI_API_KEY, which headergold sets for a captured
// agent. Base URLs are passed explicitly: @ai-sdk/anthropic reads
// ANTHROPIC_BASE_URL too, but wants /v1 in it, which the official SDKs add
// themselves (headergold's variable has none), and @ai-sdk/google reads
// no base URL at all.

import { parseArgs } from 'node:util';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { loadTools, runTool } from './plugins.mjs';
import { system } from './system.mjs';

const models = {
  anthropic: () => createAnthropic({ baseURL: `${process.env.ANTHROPIC_BASE_URL}/v1` })('claude-sonnet-4-5'),
  'openai-chat': () => createOpenAI({ baseURL: process.env.OPENAI_BASE_URL }).chat('gpt-4.1'),
  'openai-responses': () => createOpenAI({ baseURL: process.env.OPENAI_BASE_URL }).responses('gpt-4.1'),
  gemini: () => createGoogleGenerativeAI({ baseURL: `${process.env.GOOGLE_GEMINI_BASE_URL}/v1beta` })('gemini-2.5-flash'),
};

function usage(msg) {
  process.stderr.write(`aisdk: ${msg}\n`);
  process.stderr.write(
    `usage: node aisdk.mjs --provider ${Object.keys(models).join('|')} [--stream] [--max-steps N] --prompt TEXT\n`,
  );
  process.exit(2);
}

function options() {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        provider: { type: 'string' },
        stream: { type: 'boolean', default: false },
        'max-steps': { type: 'string', default: '8' },
        prompt: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (e) {
    usage(e.message);
  }
  if (!Object.hasOwn(models, parsed.provider ?? '')) usage(`--provider ${parsed.provider}: want one of ${Object.keys(models).join(', ')}`);
  const maxSteps = Number(parsed['max-steps']);
  if (!Number.isInteger(maxSteps) || maxSteps < 1) usage(`--max-steps ${parsed['max-steps']}: want a whole number from 1`);
  if (!parsed.prompt) usage('--prompt is required');
  return { provider: parsed.provider, stream: parsed.stream, maxSteps, prompt: parsed.prompt };
}

async function main() {
  const opts = options();
  const plugins = await loadTools();
  // The registry's order (plugins.mjs sorts by name) is the tool list's:
  // the AI SDK sends its tools object in insertion order.
  const tools = Object.fromEntries(
    plugins.map((t) => [
      t.name,
      tool({
        description: t.description,
        inputSchema: jsonSchema(t.parameters),
        execute: async (args) => runTool(plugins, t.name, args).output,
      }),
    ]),
  );
  const call = {
    model: models[opts.provider](),
    system,
    prompt: opts.prompt,
    tools,
    stopWhen: stepCountIs(opts.maxSteps),
    maxRetries: 0,
  };
  let text;
  if (opts.stream) {
    let failure;
    const result = streamText({ ...call, onError: ({ error }) => (failure ??= error) });
    text = await result.text.catch((e) => {
      throw failure ?? e;
    });
    if (failure) throw failure;
  } else {
    text = (await generateText(call)).text;
  }
  process.stdout.write(text + '\n');
}

main().catch((e) => {
  process.stderr.write(`aisdk: ${e.message}\n`);
  process.exit(1);
});
