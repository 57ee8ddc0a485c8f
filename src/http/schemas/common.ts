import { Type } from 'typebox';

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ format: 'uri', description: 'URI ending in the error code' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.String({ description: 'The trace id of the request' }),
    code: Type.String(),
  },
  {
    $id: 'Problem',
    additionalProperties: true,
    description: 'RFC 9457 problem details (application/problem+json)',
  },
);

/** Error responses of an operation, all as problem documents. */
export const problems = (...statuses: number[]): Record<number, unknown> =>
  Object.fromEntries(
    statuses.map((s) => [
      s,
      { description: 'Problem', content: { 'application/problem+json': { schema: { $ref: 'Problem#' } } } },
    ]),
  );

/** Every authenticated operation may answer these (431: header fields past SQLGATE_MAX_HEADER_BYTES). */
export const AUTH_ERRORS = [401, 413, 429, 431, 500] as const;
