// The presign endpoint as an AWS Lambda function-URL handler (payload format 2.0; built to
// dist/presign/lambda.mjs by scripts/build-presign.mjs, runtime nodejs20.x or later, handler
// `lambda.handler`). The function's environment holds CAIRN_PRESIGN_CONFIG, and either
// CAIRN_S3_ACCESS_KEY_ID / CAIRN_S3_SECRET_ACCESS_KEY (B2, other providers) or nothing more when
// the function's own role may use the bucket (its AWS_* variables are used then).

import { answerFromEnv } from './from-env';
import type { SecretEnv } from './config';

/** The parts of a function-URL event this handler reads. */
export interface FunctionUrlEvent {
  rawPath?: string;
  headers?: Record<string, string | undefined>;
  body?: string;
  isBase64Encoded?: boolean;
  requestContext: { http: { method: string } };
}

export interface FunctionUrlResult {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

function eventRequest(event: FunctionUrlEvent): Request {
  const method = event.requestContext.http.method;
  const headers = new Headers();
  for (const [k, v] of Object.entries(event.headers ?? {})) if (v !== undefined) headers.set(k, v);
  const body =
    event.body === undefined || method === 'GET' || method === 'HEAD'
      ? undefined
      : event.isBase64Encoded
        ? Uint8Array.from(atob(event.body), (c) => c.charCodeAt(0))
        : event.body;
  return new Request(`https://lambda${event.rawPath ?? '/'}`, { method, headers, ...(body === undefined ? {} : { body }) });
}

export function lambdaHandler(env: SecretEnv): (event: FunctionUrlEvent) => Promise<FunctionUrlResult> {
  return async (event) => {
    const res = await answerFromEnv(env, eventRequest(event));
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => (headers[k] = v));
    return { statusCode: res.status, headers, body: await res.text() };
  };
}

const processEnv = (globalThis as { process?: { env?: SecretEnv } }).process?.env ?? {};

export const handler = lambdaHandler(processEnv);
