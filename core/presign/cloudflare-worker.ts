// The presign endpoint as a Cloudflare Workers module (built to dist/presign/cloudflare-worker.mjs
// by scripts/build-presign.mjs). Bindings: CAIRN_PRESIGN_CONFIG (a plain variable) and the
// secrets CAIRN_S3_ACCESS_KEY_ID, CAIRN_S3_SECRET_ACCESS_KEY (`wrangler secret put …`).

import { answerFromEnv } from './from-env';
import type { SecretEnv } from './config';

export default {
  fetch(request: Request, env: SecretEnv): Promise<Response> {
    return answerFromEnv(env, request);
  },
};
