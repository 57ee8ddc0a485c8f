import type { OpenAPIV3_1 } from 'openapi-types';
import { webhooks } from './openapi-webhooks.ts';
import { PROBLEM_BASE } from './problem.ts';

/**
 * The static parts of the OpenAPI 3.1.0 document; paths come from the route schemas. `publicUrl`
 * (SQLGATE_PUBLIC_URL) is the server clients call; without it, `/`: the host that served the document.
 */
export const openApiDocument = (publicUrl?: string): Partial<OpenAPIV3_1.Document> => ({
  openapi: '3.1.0',
  servers: [
    publicUrl === undefined
      ? { url: '/', description: 'This gateway (the address this document was fetched from)' }
      : { url: publicUrl.replace(/\/+$/, ''), description: 'This gateway' },
  ],
  info: {
    title: 'sqlgate',
    version: '1.0.0',
    license: { name: 'Proprietary (UNLICENSED)', identifier: 'LicenseRef-sqlgate-proprietary' },
    description:
      'SQL query gateway: rewrites a query into a cheaper form that returns the same result, runs it on BigQuery, ' +
      `Snowflake or Aurora, estimates costs and verifies result equivalence. Errors are RFC 9457 problems whose type is ${PROBLEM_BASE}<code>.`,
  },
  components: {
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        description: 'An API key (sg_…) from the dashboard or `sqlgate keys create`',
      },
    },
  },
  security: [{ bearerAuth: [] }],
  tags: [
    { name: 'queries', description: 'Run and price queries' },
    { name: 'verify', description: 'Compare result sets' },
    { name: 'warehouses', description: 'Configured warehouses' },
    { name: 'webhooks', description: 'Webhook endpoints and deliveries (event: /query/completed)' },
    { name: 'guardrails', description: 'Cost limits, budgets and usage' },
  ],
  webhooks,
});
