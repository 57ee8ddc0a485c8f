import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../../config.ts';
import { AUTH_ERRORS, problems } from '../schemas/common.ts';
import type { Services } from '../services.ts';

const WarehouseInfo = Type.Object({
  name: Type.String(),
  mode: Type.Union([Type.Literal('local'), Type.Literal('connected')]),
  dialect: Type.String(),
  engine: Type.String(),
  default: Type.Boolean(),
  cost_method: Type.String(),
  pricing: Type.Record(Type.String(), Type.Union([Type.Number(), Type.String()])),
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
    () => ({
      warehouses: services.warehouses.all().map((w) => ({
        name: w.name,
        mode: w.mode,
        dialect: w.dialect,
        engine: w.adapter.id,
        default: w.name === config.defaultWarehouse,
        cost_method: w.cost.name,
        pricing: { ...w.pricing },
      })),
    }),
  );
};
