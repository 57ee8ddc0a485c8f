import { createHash } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../../config.ts';
import { isLocalDialect, localFamilies } from '../../core/sql/translate/index.ts';
import { AUTH_ERRORS, problems } from '../schemas/common.ts';
import { WarehouseName } from '../schemas/query.ts';
import type { Services } from '../services.ts';

const WarehouseInfo = Type.Object({
  name: WarehouseName,
  mode: Type.Union([Type.Literal('local'), Type.Literal('connected')]),
  dialect: Type.String(),
  engine: Type.String(),
  default: Type.Boolean(),
  cost_method: Type.String(),
  pricing: Type.Record(Type.String(), Type.Union([Type.Number(), Type.String()])),
  local_functions: Type.Optional(
    Type.Array(
      Type.Object({
        family: Type.String(),
        functions: Type.Array(Type.String(), { description: 'the functions of the family local mode runs' }),
        corrected: Type.Array(Type.String(), {
          description: 'those local mode translates itself (the SQL library alone would get them wrong)',
        }),
      }),
      {
        description:
          "Function families local mode supports in this warehouse's dialect (left out with `include=none`); any other function is refused (422 unsupported-in-local-mode)",
      },
    ),
  ),
});

type Listing = { readonly body: Buffer | string; readonly etag: string };

/** `If-None-Match` names this entity tag (or `*`); weak tags compare by their opaque part (RFC 9110 §13.1.2). */
const etagMatches = (header: string | undefined, etag: string): boolean => {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
};

export const registerWarehousesRoute = (api: FastifyInstance, services: Services, config: Config): void => {
  api.withTypeProvider<TypeBoxTypeProvider>().get(
    '/warehouses',
    {
      schema: {
        operationId: 'listWarehouses',
        summary: 'The warehouses, each with its mode, dialect and pricing assumptions',
        tags: ['warehouses'],
        querystring: Type.Object({
          include: Type.Optional(
            Type.Union([Type.Literal('local_functions'), Type.Literal('none')], {
              description:
                'What each warehouse carries besides name, mode, dialect and pricing: `local_functions` (the default) ' +
                'also lists, per local-mode warehouse, the function families it supports (≈ 10 KB); `none` leaves ' +
                'them out (≈ 600 bytes)',
            }),
          ),
        }),
        response: {
          200: Type.Object({ warehouses: Type.Array(WarehouseInfo) }),
          ...problems(...AUTH_ERRORS),
        },
      },
    },
    (req, reply) => {
      // The same for every request of a process: serialised once (the hot path of an authenticated call).
      const full = req.query.include !== 'none';
      const l = full ? (detailed ??= listing(true)) : (lean ??= listing(false));
      const r = reply as FastifyReply;
      r.header('etag', l.etag);
      // A client that revalidates gets 304 without the body while the listing is the same.
      if (etagMatches(req.headers['if-none-match'], l.etag)) return void r.status(304).send();
      // A Buffer with a JSON content type is sent as is (the schema's serializer is for objects).
      void r.type('application/json; charset=utf-8').send(l.body);
    },
  );
  let lean: Listing | undefined;
  let detailed: Listing | undefined;
  const listing = (full: boolean): Listing => {
    const text = JSON.stringify(build(full));
    const etag = `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;
    // The detailed listing (≈ 10 KB) as bytes: a string of that size would be encoded for every response. The
    // lean one (≈ 600 bytes) as a string: it goes in one write with the header, where a Buffer is a second chunk.
    return { body: full ? Buffer.from(text) : text, etag };
  };
  const build = (full: boolean) => ({
    warehouses: services.warehouses.all().map((w) => ({
      name: w.name,
      mode: w.mode,
      dialect: w.dialect,
      engine: w.adapter.id,
      default: w.name === config.defaultWarehouse,
      cost_method: w.cost.name,
      pricing: { ...w.pricing },
      ...(full && w.mode === 'local' && isLocalDialect(w.dialect)
        ? {
            local_functions: localFamilies(w.dialect).map((f) => ({
              family: f.family,
              functions: [...f.functions],
              corrected: [...f.corrected],
            })),
          }
        : {}),
    })),
  });
};
