import type { FastifyError, FastifyRequest } from 'fastify';
import { WAREHOUSE_NAMES } from '../warehouses/index.ts';

/**
 * What a newcomer reads when a request is refused before it reaches a route: the validator's own wording
 * ("body/query must NOT have fewer than 1 characters") becomes ours, naming the field and what to send.
 */
type AjvIssue = NonNullable<FastifyError['validation']>[number];

const fieldOf = (v: AjvIssue, context: string | undefined): string => {
  const path = v.instancePath.replace(/^\//, '').replaceAll('/', '.');
  const missing =
    v.keyword === 'required' ? String((v.params as { missingProperty?: unknown }).missingProperty) : '';
  const name = [path, missing].filter(Boolean).join('.');
  return name === '' ? (context === 'querystring' ? 'the query string' : 'the body') : `\`${name}\``;
};

const where = (context: string | undefined): string =>
  context === 'querystring' ? 'as a URL parameter' : 'in the JSON body';

const EXAMPLE: Readonly<Record<string, string>> = {
  query: 'the SQL text to run, e.g. "SELECT 1"',
};

/** Our wording for a schema validation failure (the first issue; validation stops at the first). */
export const validationDetail = (fe: FastifyError): string => {
  const v = fe.validation?.[0];
  if (!v) return fe.message;
  const context = fe.validationContext;
  const field = fieldOf(v, context);
  const bare = field.replaceAll('`', '');
  const example = EXAMPLE[bare];
  switch (v.keyword) {
    case 'required':
      return `${field} is required ${where(context)}${example ? `: ${example}` : ''}.`;
    case 'minLength':
      return (v.params as { limit?: number }).limit === 1
        ? `${field} is empty${example ? `: send ${example}` : ''}.`
        : `${field} is too short: ${v.message ?? ''}.`;
    case 'type':
      return `${field} must be ${article(String((v.params as { type?: unknown }).type))}.`;
    case 'additionalProperties':
      return `${field} has an unknown member \`${String((v.params as { additionalProperty?: unknown }).additionalProperty)}\`.`;
    default:
      return `${field} ${v.message ?? 'is not valid'}.`;
  }
};

const article = (type: string): string =>
  type === 'integer' || type === 'object' || type === 'array' ? `an ${type}` : `a ${type}`;

/** Whether a request schema (a JSON Schema object, its alternatives included) has a `warehouse` property. */
export const namesWarehouse = (schema: unknown): boolean => {
  if (typeof schema !== 'object' || schema === null) return false;
  const s = schema as {
    properties?: Record<string, unknown>;
    anyOf?: unknown[];
    oneOf?: unknown[];
    allOf?: unknown[];
  };
  if (s.properties !== undefined && Object.hasOwn(s.properties, 'warehouse')) return true;
  return [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])].some(namesWarehouse);
};

/**
 * Warehouse names are matched without regard to case (`BigQuery` is bigquery): the request's `warehouse` is
 * lowered before validation when that makes it a known name; anything else still fails with the allowed list.
 */
export const lowerCaseWarehouse = (req: FastifyRequest, _reply: unknown, done: () => void): void => {
  lowerIn(req.body);
  lowerIn(req.query);
  done();
};

const lowerIn = (source: unknown): void => {
  if (typeof source !== 'object' || source === null || Array.isArray(source)) return;
  const s = source as Record<string, unknown>;
  const w = s.warehouse;
  if (typeof w !== 'string') return;
  const lower = w.trim().toLowerCase();
  if (lower !== w && (WAREHOUSE_NAMES as readonly string[]).includes(lower)) s.warehouse = lower;
};
