// One conversation per wire format, on the official SDKs. Each keeps its
// own history in the provider's shape and offers:
//
//   send()             one generation request: { text, calls: [{ id, name, args }] }
//   addResults(list)   the results of the calls, [{ id, output, isError }]
//
// Base URLs and keys come from the environment headergold sets for a
// captured agent; retries are off so that a failed request fails the run
// at once instead of being sent again.

import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { toResponseInputItems } from 'openai/lib/responses/ResponseInputItems';

function env(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
}

// anthropic speaks the Messages API through @anthropic-ai/sdk: create, or
// the messages.stream helper and its final message when streaming.
export function anthropic({ system, tools, prompt, stream, countTokens }) {
  const client = new Anthropic({
    baseURL: env('ANTHROPIC_BASE_URL'),
    apiKey: env('ANTHROPIC_API_KEY'),
    maxRetries: 0,
  });
  const model = 'claude-sonnet-4-5';
  const messages = [{ role: 'user', content: prompt }];
  const toolDefs = tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
  const params = () => ({ model, max_tokens: 1024, system, tools: toolDefs, messages });
  let counted = !countTokens;
  return {
    async send() {
      if (!counted) {
        // An estimate before the first step, as agents that budget their
        // context do; count_tokens is no generation step.
        const { input_tokens } = await client.messages.countTokens({ model, system, tools: toolDefs, messages });
        if (!(input_tokens > 0)) throw new Error(`count_tokens answered ${input_tokens}`);
        counted = true;
      }
      const msg = stream ? await client.messages.stream(params()).finalMessage() : await client.messages.create(params());
      messages.push({ role: 'assistant', content: msg.content });
      return {
        text: msg.content.filter((b) => b.type === 'text').map((b) => b.text).join(''),
        calls: msg.content.filter((b) => b.type === 'tool_use').map((b) => ({ id: b.id, name: b.name, args: b.input })),
      };
    },
    addResults(results) {
      messages.push({
        role: 'user',
        content: results.map((r) => ({
          type: 'tool_result',
          tool_use_id: r.id,
          content: r.output,
          ...(r.isError ? { is_error: true } : {}),
        })),
      });
    },
  };
}

function openaiClient() {
  return new OpenAI({ baseURL: env('OPENAI_BASE_URL'), apiKey: env('OPENAI_API_KEY'), maxRetries: 0 });
}

// openaiChat speaks Chat Completions through openai: create, or the
// chat.completions.stream helper and its final completion when streaming.
export function openaiChat({ system, tools, prompt, stream }) {
  const client = openaiClient();
  const messages = [
    { role: 'system', content: system },
    { role: 'user', content: prompt },
  ];
  const toolDefs = tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
  const params = () => ({ model: 'gpt-4.1', messages, tools: toolDefs });
  return {
    async send() {
      const completion = stream
        ? await client.chat.completions.stream(params()).finalChatCompletion()
        : await client.chat.completions.create(params());
      const m = completion.choices[0].message;
      const calls = m.tool_calls ?? [];
      // The assistant turn is written out rather than sent back as the
      // SDK's object, which carries helper members (parsed, …) of its own.
      const turn = { role: 'assistant', content: m.content ?? null };
      if (calls.length > 0) {
        turn.tool_calls = calls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.function.name, arguments: c.function.arguments },
        }));
      }
      messages.push(turn);
      return {
        text: m.content ?? '',
        calls: calls.map((c) => ({ id: c.id, name: c.function.name, args: JSON.parse(c.function.arguments || '{}') })),
      };
    },
    addResults(results) {
      for (const r of results) messages.push({ role: 'tool', tool_call_id: r.id, content: r.output });
    },
  };
}

// openaiResponses speaks the Responses API through openai: create, or the
// responses.stream helper and its final response when streaming. The
// output items go back as input through the SDK's toResponseInputItems.
export function openaiResponses({ system, tools, prompt, stream }) {
  const client = openaiClient();
  const input = [{ role: 'user', content: prompt }];
  const toolDefs = tools.map((t) => ({
    type: 'function',
    name: t.name,
    description: t.description,
    parameters: t.parameters,
    strict: false,
  }));
  const params = () => ({ model: 'gpt-4.1', instructions: system, input, tools: toolDefs });
  return {
    async send() {
      const resp = stream ? await client.responses.stream(params()).finalResponse() : await client.responses.create(params());
      input.push(...toResponseInputItems(resp.output));
      const text = resp.output
        .filter((i) => i.type === 'message')
        .flatMap((i) => i.content)
        .filter((c) => c.type === 'output_text')
        .map((c) => c.text)
        .join('');
      const calls = resp.output
        .filter((i) => i.type === 'function_call')
        .map((i) => ({ id: i.call_id, name: i.name, args: JSON.parse(i.arguments || '{}') }));
      return { text, calls };
    },
    addResults(results) {
      for (const r of results) input.push({ type: 'function_call_output', call_id: r.id, output: r.output });
    },
  };
}

export const apis = {
  anthropic,
  'openai-chat': openaiChat,
  'openai-responses': openaiResponses,
};
