// The presign endpoint Cairn ships (contract: ../backend/s3/PRESIGN-ENDPOINT.md): the bucket's
// keys stay on a server the user runs, devices get bearer tokens with a role (read,
// append-only, maintenance), and each request is checked against restic's repository layout
// under one prefix before a short-lived URL is signed. It owns the fetch-style handler that
// Node, Cloudflare Workers and Lambda all run (handler), the request policy (policy), devices
// and token hashing (devices), the configuration document (config), and the client's role
// check (access).

export { presignHandler, DEFAULT_EXPIRES_SECONDS, type PresignHandler, type PresignHandlerConfig, type DeviceInfo, type AnswerLog } from './handler';
export { checkRequest, checkPrefix, Refusal } from './policy';
export { newToken, tokenHash, deviceForToken, bearerToken, constantTimeEqual, ROLES, type Role, type Device } from './devices';
export { parsePresignConfig, s3SignerFromConfig, type PresignFileConfig, type SecretEnv } from './config';
export { requireAccess, roleAllows, deviceInfo, type Access } from './access';
