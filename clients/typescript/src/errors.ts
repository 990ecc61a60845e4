// Errors of crdstore calls, one class per Kubernetes reason.
//
// The server sends each failure as a google.rpc.Status whose ErrorInfo
// carries the Kubernetes reason and whose BadRequest names each invalid
// field. fromConnectError decodes them with the generated googleapis types
// (src/googleapis) and turns them into the matching class, so callers write
// `if (e instanceof Conflict)`; `status` keeps the whole google.rpc.Status.

import { create } from "@bufbuild/protobuf";
import { AnySchema, anyPack } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";

import { BadRequestSchema, ErrorInfoSchema } from "./googleapis/google/rpc/error_details_pb.js";
import { type Status, StatusSchema } from "./googleapis/google/rpc/status_pb.js";

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
  /** The google.rpc.Status the server sent, every detail included. */
  readonly status: Status;

  constructor(
    message: string,
    reason: string,
    code?: Code,
    causes: Cause[] = [],
    metadata: Record<string, string> = {},
    status?: Status,
  ) {
    super(message);
    this.name = new.target.name;
    this.reason = reason;
    this.code = code;
    this.causes = causes;
    this.metadata = metadata;
    this.status = status ?? create(StatusSchema, { code: code ?? Code.Unknown, message });
  }
}

export class NotFound extends CrdstoreError {}
export class AlreadyExists extends CrdstoreError {}
/** A stale resourceVersion or a failed precondition: read again and retry. */
export class Conflict extends CrdstoreError {}
/** One field a server-side apply would take from another manager: its path
 * (".spec.replicas"), that manager, and the server's message
 * (`conflict with "m1"`, or `conflict with "m1" using v1` for a manager that
 * wrote it with an update). */
export interface FieldConflict {
  field: string;
  manager: string;
  message: string;
}

/** An apply changed fields other managers own: `conflicts` lists each.
 * Apply again with `force` to take them over, or leave them out. */
export class ApplyConflict extends Conflict {
  readonly conflicts: FieldConflict[];

  constructor(
    message: string,
    reason: string,
    code?: Code,
    causes: Cause[] = [],
    metadata: Record<string, string> = {},
    status?: Status,
  ) {
    super(message, reason, code, causes, metadata, status);
    this.conflicts = fieldConflicts(metadata);
  }
}

const conflictManager = /^conflicts? with ("(?:[^"\\]|\\.)*")/;

/** The FieldManagerConflict causes of the ErrorInfo's "causes" entry. */
function fieldConflicts(metadata: Record<string, string>): FieldConflict[] {
  let entries: unknown;
  try {
    entries = JSON.parse(metadata.causes ?? "[]");
  } catch {
    return [];
  }
  if (!Array.isArray(entries)) return [];
  return entries
    .filter((c) => c?.reason === "FieldManagerConflict")
    .map((c) => {
      const message = String(c.message ?? "");
      const found = conflictManager.exec(message);
      let manager = "";
      try {
        manager = found ? String(JSON.parse(found[1])) : "";
      } catch {
        manager = "";
      }
      return { field: String(c.field ?? ""), manager, message };
    });
}

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

type ErrorClass = new (
  message: string,
  reason: string,
  code?: Code,
  causes?: Cause[],
  metadata?: Record<string, string>,
  status?: Status,
) => CrdstoreError;

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
  const info = error.findDetails(ErrorInfoSchema)[0];
  const causes: Cause[] = error
    .findDetails(BadRequestSchema)
    .flatMap((bad) => bad.fieldViolations.map((v) => ({ field: v.field, message: v.description })));
  const status = create(StatusSchema, {
    code: error.code,
    message: error.rawMessage,
    details: error.details.map((detail) =>
      "desc" in detail
        ? anyPack(detail.desc, create(detail.desc, detail.value))
        : create(AnySchema, { typeUrl: `type.googleapis.com/${detail.type}`, value: detail.value }),
    ),
  });
  const reason = info?.reason || undefined;
  let cls = (reason && byReason[reason]) || byCode[error.code] || CrdstoreError;
  if (cls === Conflict && fieldConflicts({ ...info?.metadata }).length > 0) {
    cls = ApplyConflict;
  }
  return new cls(error.rawMessage, reason ?? Code[error.code], error.code, causes, { ...info?.metadata }, status);
}
