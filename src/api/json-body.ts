import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BadRequestError } from '../core/errors.js';
import { fieldPath } from '../registry/validation.js';

/** Keys that could reach an object's prototype once a body is merged or copied carelessly. */
function poisonedPath(value: unknown, path: (string | number)[]): (string | number)[] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = poisonedPath(value[i], [...path, i]);
      if (found) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    const child = (value as Record<string, unknown>)[key];
    if (key === '__proto__') return [...path, key];
    if (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype'))
      return [...path, key, 'prototype'];
    const found = poisonedPath(child, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

/**
 * `application/json` bodies: JSON.parse, then a refusal of prototype-poisoning keys that names the key and where
 * it is (fastify's parser refuses them too, but as "not valid JSON", which sends the user looking for a syntax
 * error). JSON.parse makes `__proto__` an own property, never the prototype, so the walk is safe; it runs only
 * when the text could hold such a key, escaped or not.
 */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw new BadRequestError('the request body is empty: send one JSON object');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new BadRequestError(`the request body is not valid JSON (${(err as Error).message}): send one JSON object`);
  }
  if (text.includes('proto') || text.includes('constructor') || text.includes('\\u')) {
    const path = poisonedPath(value, []);
    if (path !== undefined) {
      const key = path[path.length - 1] === 'prototype' ? 'constructor' : String(path[path.length - 1]);
      throw new BadRequestError(
        `the request body has a "${key}" key (at ${fieldPath(path)}), which the server refuses because it could change object prototypes: remove it`,
      );
    }
  }
  return value;
}

/** Replaces fastify's JSON parser (the body limit still applies: fastify enforces it before calling the parser). */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string' },
    (_request: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
      try {
        done(null, parseJsonBody(typeof body === 'string' ? body : body.toString('utf8')));
      } catch (err) {
        done(err as Error);
      }
    },
  );
}
