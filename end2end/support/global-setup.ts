// One server for the whole run: started here, waited for (healthz), stopped in teardown.
import type { FullConfig } from '@playwright/test';
import { startServer } from './server';

export default async function globalSetup(_config: FullConfig) {
  const server = await startServer();
  process.env.SOULGRID_URL = server.url;
  console.log(`[e2e] soulgrid pid ${server.pid} on ${server.url}, data ${server.dataDir}`);
  return async () => {
    await server.stop();
    console.log(`[e2e] soulgrid pid ${server.pid} stopped`);
  };
}
