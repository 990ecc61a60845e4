// crdstore: a TypeScript client for the standalone store of Kubernetes-style
// custom resources. See client.ts for the API and errors.ts for the errors.
export {
  Client,
  Definitions,
  Resources,
  retryOnConflict,
  type ClientOptions,
  type Deleted,
  type FeatureGate,
  type KubeObject,
  type ListOptions,
  type Page,
  type TlsOptions,
  type WatchEvent,
  type WatchOptions,
  type WriteOptions,
} from "./client.js";
export type { Interceptor, Transport } from "@connectrpc/connect";
export {
  AlreadyExists,
  BadRequest,
  Conflict,
  CrdstoreError,
  Expired,
  Forbidden,
  InternalError,
  Invalid,
  MethodNotAllowed,
  NotAcceptable,
  NotFound,
  RequestEntityTooLarge,
  Timeout,
  TooManyRequests,
  Unavailable,
  UnsupportedMediaType,
  type Cause,
} from "./errors.js";
