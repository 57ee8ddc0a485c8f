import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import type { Services } from '../services.ts';
import { registerCostRoute } from './cost.ts';
import { registerLimitRoutes } from './limits.ts';
import { registerQueryRoute } from './query.ts';
import { registerVerifyRoute } from './verify.ts';
import { registerWarehousesRoute } from './warehouses.ts';
import { registerWebhookRoutes } from './webhooks.ts';

/** Every bearer-authenticated API route. Adding one: a file here and one line below. */
export const registerApiRoutes = async (
  api: FastifyInstance,
  services: Services,
  config: Config,
): Promise<void> => {
  registerQueryRoute(api, services);
  registerCostRoute(api, services);
  registerWarehousesRoute(api, services, config);
  registerWebhookRoutes(api, services);
  registerLimitRoutes(api, services);
  await registerVerifyRoute(api, services, config.maxBodyBytes);
};
