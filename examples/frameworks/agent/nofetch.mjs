// A preload (node --import ./nofetch.mjs) that refuses every fetch to a
// host other than loopback and appends its method and URL to the file
// NOFETCH_LOG names: a test reads it to see what an agent tried to send
// off the machine.
import { appendFileSync } from 'node:fs';

const fetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  if (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost') {
    const method = init?.method ?? (typeof input === 'object' && 'method' in input ? input.method : 'GET');
    if (process.env.NOFETCH_LOG) appendFileSync(process.env.NOFETCH_LOG, `${method} ${url}\n`);
    throw new TypeError(`nofetch: refused ${method} ${url}`);
  }
  return fetch(input, init);
};
