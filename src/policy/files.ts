/** Where each config scope's file lives (kept apart from config.ts so the hot path does not load yaml). */
import { join } from 'node:path';

export interface ConfigFiles {
  policy: string;
  roles: string;
  user: string;
}

export function configFiles(projectRoot: string, userConfigDir: string): ConfigFiles {
  return {
    policy: join(projectRoot, '.hookwise', 'policy.yml'),
    roles: join(projectRoot, '.hookwise', 'roles.yml'),
    user: join(userConfigDir, 'config.yml'),
  };
}
