// crdstore: a TypeScript client for the standalone store of Kubernetes-style
// custom resources. See client.ts for the API and errors.ts for the errors.
export {
  Client,
  Definitions,
  Resources,
  retryOnConflict,
  type ClientOptions,
  type Deleted,
  type KubeObject,
  type ListOptions,
  type Page,
  type WatchEvent,
  type WatchOptions,
  type WriteOptions,
} from "./client.js";
export {
  AlreadyExists,
  BadRequest,
  Conflict,
  CrdstoreError,
  Expired,
  Forbidden,
  Invalid,
  NotFound,
  Unavailable,
  type Cause,
} from "./errors.js";
