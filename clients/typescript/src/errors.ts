// Errors of crdstore calls, one class per Kubernetes reason.
//
// The server sends each failure as a google.rpc.Status whose ErrorInfo
// carries the Kubernetes reason and whose BadRequest names each invalid
// field. fromConnectError turns that into the matching class, so callers
// write `if (e instanceof Conflict)`.

import { BinaryReader } from "@bufbuild/protobuf/wire";
import { Code, ConnectError } from "@connectrpc/connect";

/** One invalid field: its path as Kubernetes writes it, and what is wrong. */
export interface Cause {
  field: string;
  message: string;
}

/** A failed call: the Kubernetes reason, the gRPC code, and any causes. */
export class CrdstoreError extends Error {
  readonly reason: string;
  readonly code: Code | undefined;
  readonly causes: Cause[];
  readonly metadata: Record<string, string>;

  constructor(message: string, reason: string, code?: Code, causes: Cause[] = [], metadata: Record<string, string> = {}) {
    super(message);
    this.name = new.target.name;
    this.reason = reason;
    this.code = code;
    this.causes = causes;
    this.metadata = metadata;
  }
}

export class NotFound extends CrdstoreError {}
export class AlreadyExists extends CrdstoreError {}
/** A stale resourceVersion or a failed precondition: read again and retry. */
export class Conflict extends CrdstoreError {}
/** The object is invalid; `causes` names each invalid field. */
export class Invalid extends CrdstoreError {}
/** The requested revision is older than the server's history: list again. */
export class Expired extends CrdstoreError {}
export class BadRequest extends CrdstoreError {}
export class Forbidden extends CrdstoreError {}
/** The operation is not allowed now, e.g. a create under a terminating definition. */
export class MethodNotAllowed extends CrdstoreError {}
export class UnsupportedMediaType extends CrdstoreError {}
export class NotAcceptable extends CrdstoreError {}
export class RequestEntityTooLarge extends CrdstoreError {}
/** A watch fell too far behind the server's events and was cut off. */
export class TooManyRequests extends CrdstoreError {}
/** The server could not be reached, or went away mid-call. */
export class Unavailable extends CrdstoreError {}
export class Timeout extends CrdstoreError {}
export class InternalError extends CrdstoreError {}

type ErrorClass = new (message: string, reason: string, code?: Code, causes?: Cause[], metadata?: Record<string, string>) => CrdstoreError;

// Every reason the server sends (crdstore::error::Reason::ALL; tests/tidy.rs
// checks this table against it), and aliases.
const byReason: Record<string, ErrorClass> = {
  NotFound,
  AlreadyExists,
  Conflict,
  Invalid,
  BadRequest,
  Expired,
  Gone: Expired,
  ResourceExpired: Expired,
  Forbidden,
  MethodNotAllowed,
  UnsupportedMediaType,
  NotAcceptable,
  RequestEntityTooLarge,
  TooManyRequests,
  ServiceUnavailable: Unavailable,
  Timeout,
  InternalError,
};

const byCode: Partial<Record<Code, ErrorClass>> = {
  [Code.NotFound]: NotFound,
  [Code.AlreadyExists]: AlreadyExists,
  [Code.Aborted]: Conflict,
  [Code.InvalidArgument]: Invalid,
  [Code.OutOfRange]: Expired,
  [Code.PermissionDenied]: Forbidden,
  [Code.Unavailable]: Unavailable,
};

/** The error for a failed call: by the ErrorInfo reason, else by the code. */
export function fromConnectError(error: unknown): Error {
  if (!(error instanceof ConnectError)) {
    return error instanceof Error ? error : new Error(String(error));
  }
  let reason: string | undefined;
  let metadata: Record<string, string> = {};
  const causes: Cause[] = [];
  for (const detail of error.details) {
    // Details received from a server arrive undecoded: a type name and bytes.
    if (!("type" in detail) || !(detail.value instanceof Uint8Array)) continue;
    if (detail.type === "google.rpc.ErrorInfo") {
      ({ reason, metadata } = readErrorInfo(detail.value));
    } else if (detail.type === "google.rpc.BadRequest") {
      causes.push(...readBadRequest(detail.value));
    }
  }
  const cls = (reason && byReason[reason]) || byCode[error.code] || CrdstoreError;
  return new cls(error.rawMessage, reason ?? Code[error.code], error.code, causes, metadata);
}

// google.rpc.ErrorInfo: reason = 1, domain = 2, map<string, string> metadata = 3.
function readErrorInfo(bytes: Uint8Array): { reason: string; metadata: Record<string, string> } {
  const reader = new BinaryReader(bytes);
  let reason = "";
  const metadata: Record<string, string> = {};
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1) reason = reader.string();
    else if (field === 3) {
      const [key, value] = readPair(reader.bytes());
      metadata[key] = value;
    } else reader.skip(wireType);
  }
  return { reason, metadata };
}

// google.rpc.BadRequest: repeated FieldViolation field_violations = 1,
// each with field = 1 and description = 2.
function readBadRequest(bytes: Uint8Array): Cause[] {
  const reader = new BinaryReader(bytes);
  const causes: Cause[] = [];
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1) {
      const [path, description] = readPair(reader.bytes());
      causes.push({ field: path, message: description });
    } else reader.skip(wireType);
  }
  return causes;
}

/** Fields 1 and 2 of a message, both strings. */
function readPair(bytes: Uint8Array): [string, string] {
  const reader = new BinaryReader(bytes);
  let first = "";
  let second = "";
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1) first = reader.string();
    else if (field === 2) second = reader.string();
    else reader.skip(wireType);
  }
  return [first, second];
}
