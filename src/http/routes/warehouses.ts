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
          "Function families local mode supports in this warehouse's dialect; any other function is refused (422 unsupported-in-local-mode)",
      },
    ),
  ),
});

export const registerWarehousesRoute = (api: FastifyInstance, services: Services, config: Config): void => {
  api.withTypeProvider<TypeBoxTypeProvider>().get(
    '/warehouses',
    {
      schema: {
        operationId: 'listWarehouses',
        summary: 'The warehouses, each with its mode, dialect and pricing assumptions',
        tags: ['warehouses'],
        response: {
          200: Type.Object({ warehouses: Type.Array(WarehouseInfo) }),
          ...problems(...AUTH_ERRORS),
        },
      },
    },
    (_req, reply) => {
      // The same for every request of a process: serialised and encoded once (the hot path of an authenticated
      // call): a Buffer is written to the socket as is, where a string of this size was encoded every time.
      listing ??= Buffer.from(JSON.stringify(build()));
      // A Buffer with a JSON content type is sent as is (the schema's serializer is for objects).
      void (reply as FastifyReply).type('application/json; charset=utf-8').send(listing);
    },
  );
  let listing: Buffer | undefined;
  const build = () => ({
    warehouses: services.warehouses.all().map((w) => ({
      name: w.name,
      mode: w.mode,
      dialect: w.dialect,
      engine: w.adapter.id,
      default: w.name === config.defaultWarehouse,
      cost_method: w.cost.name,
      pricing: { ...w.pricing },
      ...(w.mode === 'local' && isLocalDialect(w.dialect)
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
