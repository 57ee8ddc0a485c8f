import type { Config } from '../../config.ts';
import type { Services } from '../services.ts';
import type { FormSigner } from './session.ts';

/** What every dashboard page module is registered with. */
export type DashboardDeps = {
  readonly services: Services;
  readonly config: Config;
  readonly signer: FormSigner;
};
