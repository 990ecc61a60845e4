// A TypeScript client for crdstore's gRPC services, objects in and out as
// plain JSON values.
//
// `new Client("http://localhost:50051")` holds one HTTP/2 connection
// ("https://..." with the `tls` option for TLS; `interceptors` add headers
// such as credentials; `new Client(transport)` takes any Connect transport);
// `client.definitions` manages definitions and
// `client.resources(group, version, plural, namespace)` one resource type.
// Failures throw the classes of errors.ts; warnings the server returns
// go to the `onWarning` option (console.warn by default).

import { create } from "@bufbuild/protobuf";
import {
  type CallOptions,
  type Interceptor,
  type Client as RpcClient,
  type Transport,
  createClient,
} from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";

import { Conflict, Expired, Unavailable, fromConnectError } from "./errors.js";
import {
  DeleteOptionsSchema,
  EventType,
  FieldValidation,
  ListOptionsSchema,
  ResourceVersionMatch,
  WatchOptionsSchema,
  WriteOptionsSchema,
} from "./gen/crdstore/v1/common_pb.js";
import { CustomResourceDefinitions } from "./gen/crdstore/v1/definitions_pb.js";
import { type Migration as MigrationMessage, StorageVersionMigrations } from "./gen/crdstore/v1/migrations_pb.js";
import { CustomResources, PatchType, Subresource } from "./gen/crdstore/v1/resources_pb.js";

/** A Kubernetes object as JSON: apiVersion, kind, metadata, spec... */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type KubeObject = Record<string, any>;

/** TLS for an "https://" address: Node's own TLS options, as `tls.connect` takes them. */
export interface TlsOptions {
  /** The certificate authorities to trust (PEM), instead of Node's default list. */
  ca?: string | Buffer | Array<string | Buffer>;
  /** A client certificate and its key (PEM), for servers that ask for one. */
  cert?: string | Buffer;
  key?: string | Buffer;
  /** The name the server's certificate must carry, when not the address's host. */
  servername?: string;
  /** Refuse a server whose certificate does not verify. Default true. */
  rejectUnauthorized?: boolean;
}

export interface ClientOptions {
  /** Called with each warning the server returns with a successful write. */
  onWarning?: (warning: string) => void;
  /** Milliseconds each call may take. Default 30,000. */
  timeoutMs?: number;
  /** TLS options; the address must then be "https://...". */
  tls?: TlsOptions;
  /** Connect interceptors run around every call, e.g. one that sets an
   * `authorization` header: `(next) => (req) => { req.header.set("authorization", "Bearer ..."); return next(req); }`. */
  interceptors?: Interceptor[];
}

export interface WriteOptions {
  dryRun?: boolean;
  fieldValidation?: "Ignore" | "Warn" | "Strict";
  fieldManager?: string;
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  /** How resourceVersion is read, as in Kubernetes. */
  resourceVersionMatch?: "NotOlderThan" | "Exact";
}

/** One page of a list; `continue` is empty on the last page. */
export interface Page {
  items: KubeObject[];
  resourceVersion: string;
  continue: string;
  remainingItemCount: number;
}

/** A delete's outcome: the last state, and whether the object is gone. */
export interface Deleted {
  object: KubeObject;
  deleted: boolean;
}

/** A server-side apply's options: `fieldManager` is required. */
export interface ApplyOptions {
  fieldManager: string;
  /** Take over fields other managers own instead of throwing ApplyConflict. */
  force?: boolean;
  dryRun?: boolean;
  /** The object itself (unset) or its "status". */
  subresource?: "status";
}

/** A server-side apply's outcome: the object as stored (or as it would be,
 * on a dry run), and whether the apply created it. */
export interface Applied {
  object: KubeObject;
  created: boolean;
}

/** A field-level feature gate of a definition (`spec.customFeatureGates`). */
export interface FeatureGate {
  definition: string;
  component: string;
  name: string;
  /** alpha, beta, stable or deprecated. */
  stage: string;
  default: boolean;
  /** As set; undefined when it falls back to the default. */
  enabled?: boolean;
  /** Whether the gate lets its fields through now. */
  effective: boolean;
  paths: string[];
}

/** A storage-version migration: `phase` is Running, Succeeded or Failed;
 * `migrated` objects rewritten at `targetVersion`; `scanned` of `total`
 * objects looked at in the current pass; `object` the
 * `storagemigration.k8s.io/v1` `StorageVersionMigration`. */
export interface Migration {
  name: string;
  definition: string;
  phase: string;
  targetVersion: string;
  migrated: bigint;
  scanned: bigint;
  total: bigint;
  message: string;
  object: KubeObject;
}

export interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK";
  object: KubeObject;
}

export interface WatchOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Changes after this revision; empty: the current objects as ADDED, then every change. */
  resourceVersion?: string;
  /** Ask for (and yield) BOOKMARK events. */
  bookmarks?: boolean;
  /** Milliseconds to keep trying to reach a server that went away. Default 60,000. */
  retryForMs?: number;
  /** Ends the watch. */
  signal?: AbortSignal;
  /** The objects the caller already has (the items of the list whose
   * revision it watches from): after an Expired relist, those gone are
   * reported as DELETED like the ones the watch itself reported. */
  objects?: KubeObject[];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const encode = (obj: unknown): Uint8Array => encoder.encode(JSON.stringify(obj));
const decode = (bytes: Uint8Array): KubeObject => JSON.parse(decoder.decode(bytes));

const fieldValidations = {
  Ignore: FieldValidation.IGNORE,
  Warn: FieldValidation.WARN,
  Strict: FieldValidation.STRICT,
} as const;

function writeOptions(o: WriteOptions = {}) {
  const fieldValidation = o.fieldValidation ? fieldValidations[o.fieldValidation] : FieldValidation.UNSPECIFIED;
  if (fieldValidation === undefined) {
    throw new TypeError(`fieldValidation must be Ignore, Warn or Strict, not ${o.fieldValidation}`);
  }
  return create(WriteOptionsSchema, { dryRun: o.dryRun ?? false, fieldValidation, fieldManager: o.fieldManager ?? "" });
}

function resourceVersionMatch(match: ListOptions["resourceVersionMatch"]): ResourceVersionMatch {
  switch (match) {
    case undefined:
      return ResourceVersionMatch.UNSPECIFIED;
    case "NotOlderThan":
      return ResourceVersionMatch.NOT_OLDER_THAN;
    case "Exact":
      return ResourceVersionMatch.EXACT;
    default:
      throw new TypeError(`resourceVersionMatch must be NotOlderThan or Exact, not ${match}`);
  }
}

function listOptions(o: ListOptions = {}) {
  return create(ListOptionsSchema, {
    labelSelector: o.labelSelector ?? "",
    fieldSelector: o.fieldSelector ?? "",
    limit: BigInt(o.limit ?? 0),
    continueToken: o.continue ?? "",
    resourceVersion: o.resourceVersion ?? "",
    resourceVersionMatch: resourceVersionMatch(o.resourceVersionMatch),
  });
}

function page(r: { items: Uint8Array[]; resourceVersion: string; continueToken: string; remainingItemCount: bigint }): Page {
  return {
    items: r.items.map(decode),
    resourceVersion: r.resourceVersion,
    continue: r.continueToken,
    remainingItemCount: Number(r.remainingItemCount),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The gRPC transport over HTTP/2 for an address, with the options' TLS
 * and interceptors. */
function grpcTransport(baseUrl: string, options: ClientOptions): Transport {
  const secure = baseUrl.startsWith("https://");
  if (options.tls && !secure) {
    throw new TypeError(`TLS options need an https:// address, not ${baseUrl}`);
  }
  return createGrpcTransport({
    baseUrl,
    interceptors: options.interceptors ?? [],
    nodeOptions: secure ? { ...options.tls } : undefined,
  });
}

/** A connection to one crdstore server. */
export class Client {
  readonly definitions: Definitions;
  /** @internal */
  readonly rpcDefinitions: RpcClient<typeof CustomResourceDefinitions>;
  /** @internal */
  readonly rpcResources: RpcClient<typeof CustomResources>;
  readonly migrations: Migrations;
  /** @internal */
  readonly rpcMigrations: RpcClient<typeof StorageVersionMigrations>;
  private readonly onWarning: (warning: string) => void;
  private readonly timeoutMs: number;

  /** `target` is the server's gRPC address, e.g. "http://localhost:50051"
   * (or "https://..." with `options.tls`), or a Connect transport of the
   * caller's own (then `tls` and `interceptors` are the transport's). */
  constructor(target: string | Transport, options: ClientOptions = {}) {
    const transport = typeof target === "string" ? grpcTransport(target, options) : target;
    this.rpcDefinitions = createClient(CustomResourceDefinitions, transport);
    this.rpcResources = createClient(CustomResources, transport);
    this.rpcMigrations = createClient(StorageVersionMigrations, transport);
    this.onWarning = options.onWarning ?? ((w) => console.warn(`crdstore warning: ${w}`));
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.definitions = new Definitions(this);
    this.migrations = new Migrations(this);
  }

  /** The objects of one resource type at one version; `namespace` is the
   * default for calls on namespaced resources. */
  resources(group: string, version: string, resource: string, namespace = ""): Resources {
    return new Resources(this, group, version, resource, namespace);
  }

  /** @internal Runs a unary call: errors become crdstore errors, warnings go to onWarning. */
  async call<T>(run: (options: CallOptions) => Promise<T>): Promise<T> {
    const options: CallOptions = {
      timeoutMs: this.timeoutMs,
      onHeader: (headers) => {
        for (const [key, value] of headers) {
          if (key === "warning") this.onWarning(value);
        }
      },
    };
    try {
      return await run(options);
    } catch (error) {
      throw fromConnectError(error);
    }
  }
}

/** Custom resource definitions (apiextensions.k8s.io/v1). */
export class Definitions {
  constructor(private readonly client: Client) {}

  async create(definition: KubeObject, options?: WriteOptions): Promise<KubeObject> {
    const r = await this.client.call((o) =>
      this.client.rpcDefinitions.create({ definition: encode(definition), options: writeOptions(options) }, o),
    );
    return decode(r.definition);
  }

  async get(name: string): Promise<KubeObject> {
    const r = await this.client.call((o) => this.client.rpcDefinitions.get({ name }, o));
    return decode(r.definition);
  }

  async list(options?: ListOptions): Promise<Page> {
    return page(await this.client.call((o) => this.client.rpcDefinitions.list({ options: listOptions(options) }, o)));
  }

  async update(definition: KubeObject, options?: WriteOptions): Promise<KubeObject> {
    const r = await this.client.call((o) =>
      this.client.rpcDefinitions.update({ definition: encode(definition), options: writeOptions(options) }, o),
    );
    return decode(r.definition);
  }

  async delete(name: string): Promise<Deleted> {
    const r = await this.client.call((o) => this.client.rpcDefinitions.delete({ name }, o));
    return { object: decode(r.definition), deleted: r.deleted };
  }

  /** The field-level feature gates of every definition, or only those of
   * one definition or component. */
  async listFeatureGates(filter?: { definition?: string; component?: string }): Promise<FeatureGate[]> {
    const r = await this.client.call((o) =>
      this.client.rpcDefinitions.listFeatureGates(
        { definition: filter?.definition ?? "", component: filter?.component ?? "" },
        o,
      ),
    );
    return r.gates.map((g) => ({
      definition: g.definition,
      component: g.component,
      name: g.name,
      stage: g.stage,
      default: g.default,
      enabled: g.enabled,
      effective: g.effective,
      paths: [...g.paths],
    }));
  }

  /** Resolves once the definition's Established condition is True. */
  async waitEstablished(name: string, timeoutMs = 30_000): Promise<KubeObject> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const definition = await this.get(name);
      const conditions: KubeObject[] = definition.status?.conditions ?? [];
      if (conditions.some((c) => c.type === "Established" && c.status === "True")) return definition;
      if (Date.now() > deadline) throw new Error(`definition ${name} is not established after ${timeoutMs} ms`);
      await sleep(50);
    }
  }
}

function migration(m: MigrationMessage): Migration {
  return {
    name: m.name,
    definition: m.definition,
    phase: m.phase,
    targetVersion: m.targetVersion,
    migrated: m.migrated,
    scanned: m.scanned,
    total: m.total,
    message: m.message,
    object: decode(m.object),
  };
}

/** Storage-version migrations: rewrite a definition's stored objects at its
 * current storage version, then trim `status.storedVersions` to it. */
export class Migrations {
  constructor(private readonly client: Client) {}

  /** Starts migrating `definition` (`<plural>.<group>`); `name` is generated when empty. */
  async start(definition: string, name = ""): Promise<Migration> {
    return migration(await this.client.call((o) => this.client.rpcMigrations.start({ definition, name }, o)));
  }

  async get(name: string): Promise<Migration> {
    return migration(await this.client.call((o) => this.client.rpcMigrations.get({ name }, o)));
  }

  async list(): Promise<Migration[]> {
    const r = await this.client.call((o) => this.client.rpcMigrations.list({}, o));
    return r.migrations.map(migration);
  }

  /** The migration now, then after every step, until it has succeeded or failed. */
  async *follow(name: string): AsyncGenerator<Migration> {
    try {
      for await (const m of this.client.rpcMigrations.watch({ name })) yield migration(m);
    } catch (error) {
      throw fromConnectError(error);
    }
  }

  /** Starts a migration and follows it to its end; `progress` sees every
   * step. Resolves to the last state (Succeeded or Failed). */
  async run(definition: string, options: { name?: string; progress?: (m: Migration) => void } = {}): Promise<Migration> {
    let last = await this.start(definition, options.name ?? "");
    for await (const m of this.follow(last.name)) {
      options.progress?.(m);
      last = m;
    }
    return last;
  }
}

/** The objects of one resource type at one version. */
export class Resources {
  constructor(
    private readonly client: Client,
    readonly group: string,
    readonly version: string,
    readonly resource: string,
    readonly namespace: string,
  ) {}

  private ref(name = "", namespace = this.namespace) {
    return { group: this.group, version: this.version, resource: this.resource, namespace, name };
  }

  private refOf(obj: KubeObject) {
    return this.ref(obj.metadata?.name ?? "", obj.metadata?.namespace || this.namespace);
  }

  async create(obj: KubeObject, options?: WriteOptions): Promise<KubeObject> {
    const ref = { ...this.refOf(obj), name: "" };
    const r = await this.client.call((o) =>
      this.client.rpcResources.create({ ref, object: encode(obj), options: writeOptions(options) }, o),
    );
    return decode(r.object);
  }

  async get(name: string): Promise<KubeObject> {
    const r = await this.client.call((o) => this.client.rpcResources.get({ ref: this.ref(name) }, o));
    return decode(r.object);
  }

  /** One page; pass its `continue` for the next. */
  async list(options?: ListOptions): Promise<Page> {
    return page(
      await this.client.call((o) => this.client.rpcResources.list({ ref: this.ref(), options: listOptions(options) }, o)),
    );
  }

  /** Replaces the object; a stale metadata.resourceVersion throws Conflict. */
  async update(obj: KubeObject, options?: WriteOptions): Promise<KubeObject> {
    const r = await this.client.call((o) =>
      this.client.rpcResources.update({ ref: this.refOf(obj), object: encode(obj), options: writeOptions(options) }, o),
    );
    return decode(r.object);
  }

  async updateStatus(obj: KubeObject, options?: WriteOptions): Promise<KubeObject> {
    const r = await this.client.call((o) =>
      this.client.rpcResources.updateStatus({ ref: this.refOf(obj), object: encode(obj), options: writeOptions(options) }, o),
    );
    return decode(r.object);
  }

  /** A JSON merge patch (an object) or, with type "json", a JSON patch (a
   * list of operations), to the object or its "status" or "scale". */
  async patch(
    name: string,
    patch: unknown,
    options: WriteOptions & { type?: "merge" | "json"; subresource?: "status" | "scale" } = {},
  ): Promise<KubeObject> {
    const patchType = options.type === "json" ? PatchType.JSON : PatchType.MERGE;
    const subresource =
      options.subresource === "status" ? Subresource.STATUS : options.subresource === "scale" ? Subresource.SCALE : Subresource.UNSPECIFIED;
    const r = await this.client.call((o) =>
      this.client.rpcResources.patch(
        { ref: this.ref(name), patchType, patch: encode(patch), subresource, options: writeOptions(options) },
        o,
      ),
    );
    return decode(r.object);
  }

  /** Server-side apply of `obj` (the fields `fieldManager` has an opinion
   * on) to the object, created when missing, or its "status". Changing
   * fields another manager owns throws ApplyConflict (a Conflict) listing
   * them, unless `force` takes them over. */
  async apply(obj: KubeObject, options: ApplyOptions): Promise<Applied> {
    if (options.subresource !== undefined && options.subresource !== "status") {
      throw new Error(`an apply's subresource must be unset or "status", not ${JSON.stringify(options.subresource)}`);
    }
    const r = await this.client.call((o) =>
      this.client.rpcResources.apply(
        {
          ref: this.refOf(obj),
          object: encode(obj),
          fieldManager: options.fieldManager,
          force: options.force ?? false,
          dryRun: options.dryRun ?? false,
          subresource: options.subresource === "status" ? Subresource.STATUS : Subresource.UNSPECIFIED,
        },
        o,
      ),
    );
    return { object: decode(r.object), created: r.created };
  }

  async delete(
    name: string,
    options: { uid?: string; resourceVersion?: string; propagationPolicy?: string; dryRun?: boolean } = {},
  ): Promise<Deleted> {
    const deleteOptions = create(DeleteOptionsSchema, {
      preconditionUid: options.uid ?? "",
      preconditionResourceVersion: options.resourceVersion ?? "",
      propagationPolicy: options.propagationPolicy ?? "",
      dryRun: options.dryRun ?? false,
    });
    const r = await this.client.call((o) => this.client.rpcResources.delete({ ref: this.ref(name), options: deleteOptions }, o));
    return { object: decode(r.object), deleted: r.deleted };
  }

  /**
   * Converts objects, each at any version of this resource's definition, to
   * this handle's version with the definition's strategy (one webhook review
   * for all of them), in order. An error about one object names its index
   * (`objects[i]`).
   */
  async convert(objects: KubeObject[]): Promise<KubeObject[]> {
    const r = await this.client.call((o) =>
      this.client.rpcResources.convert(
        { group: this.group, resource: this.resource, desiredVersion: this.version, objects: objects.map(encode) },
        o,
      ),
    );
    return r.objects.map(decode);
  }

  /**
   * Events, as an async iterator that survives the stream: when it drops
   * (the server restarts, the network fails, the server's timeout ends it)
   * the watch reopens it from the last resourceVersion it yielded, so no
   * change is missed or repeated. When that revision has left the server's
   * history (Expired), it lists the objects again and brings its consumer
   * up to date as client-go's reflector does (DeltaFIFO's Replace): ADDED
   * for each object it had not seen, MODIFIED for each whose
   * resourceVersion changed, then DELETED, with the last state it saw, for
   * each object it had seen that the list no longer has. It then watches on
   * from the list's revision. A watch started from a revision of a list the
   * caller made should be given that list's items as `objects`, so their
   * deletions are reported too. It ends when `signal` aborts, and throws
   * Unavailable when the server stays away past `retryForMs`.
   */
  async *watch(options: WatchOptions = {}): AsyncGenerator<WatchEvent> {
    let resourceVersion = options.resourceVersion ?? "";
    let failingSince: number | undefined;
    let delay = 50;
    const types: Record<number, WatchEvent["type"]> = {
      [EventType.ADDED]: "ADDED",
      [EventType.MODIFIED]: "MODIFIED",
      [EventType.DELETED]: "DELETED",
      [EventType.BOOKMARK]: "BOOKMARK",
    };
    // What the consumer has been told exists, by namespace/name.
    const known = new Map<string, KubeObject>();
    for (const obj of options.objects ?? []) known.set(keyOf(obj), obj);
    while (!options.signal?.aborted) {
      const watchOptions = create(WatchOptionsSchema, {
        labelSelector: options.labelSelector ?? "",
        fieldSelector: options.fieldSelector ?? "",
        resourceVersion,
        allowBookmarks: options.bookmarks ?? false,
      });
      try {
        for await (const message of this.client.rpcResources.watch(
          { ref: this.ref(), options: watchOptions },
          { signal: options.signal },
        )) {
          failingSince = undefined;
          delay = 50;
          const event: WatchEvent = { type: types[message.type], object: decode(message.object) };
          resourceVersion = event.object.metadata?.resourceVersion || resourceVersion;
          if (event.type === "DELETED") known.delete(keyOf(event.object));
          else if (event.type !== "BOOKMARK") known.set(keyOf(event.object), event.object);
          if (event.type !== "BOOKMARK" || options.bookmarks) yield event;
        }
        // The server's timeout ended the stream cleanly: reopen it.
      } catch (raw) {
        if (options.signal?.aborted) return;
        const error = fromConnectError(raw);
        if (error instanceof Expired) {
          const listed = await this.listAll({ labelSelector: options.labelSelector, fieldSelector: options.fieldSelector });
          resourceVersion = listed.resourceVersion;
          for (const event of replace(known, listed.items)) yield event;
          continue;
        }
        if (!(error instanceof Unavailable)) throw error;
        failingSince ??= Date.now();
        if (Date.now() - failingSince > (options.retryForMs ?? 60_000)) throw error;
        await sleep(delay);
        delay = Math.min(delay * 2, 2_000);
      }
    }
  }

  /** Every page of a list, read at the first page's revision. */
  private async listAll(options: ListOptions): Promise<{ items: KubeObject[]; resourceVersion: string }> {
    const items: KubeObject[] = [];
    let resourceVersion = "";
    let token = "";
    do {
      const p = await this.list({ ...options, limit: 500, continue: token });
      items.push(...p.items);
      resourceVersion ||= p.resourceVersion;
      token = p.continue;
    } while (token);
    return { items, resourceVersion };
  }
}

/** The key client-go's MetaNamespaceKeyFunc gives an object. */
function keyOf(obj: KubeObject): string {
  const meta = obj.metadata ?? {};
  return meta.namespace ? `${meta.namespace}/${meta.name}` : `${meta.name}`;
}

/** The events that take a consumer from `known` to `listed` (and update
 * `known` to it): client-go's DeltaFIFO Replace, which reports the listed
 * objects and then deletes each known key the list does not have. */
function replace(known: Map<string, KubeObject>, listed: KubeObject[]): WatchEvent[] {
  const events: WatchEvent[] = [];
  const seen = new Set<string>();
  for (const obj of listed) {
    const key = keyOf(obj);
    seen.add(key);
    const previous = known.get(key);
    if (!previous) events.push({ type: "ADDED", object: obj });
    else if (previous.metadata?.resourceVersion !== obj.metadata?.resourceVersion) {
      events.push({ type: "MODIFIED", object: obj });
    }
    known.set(key, obj);
  }
  for (const [key, obj] of known) {
    if (seen.has(key)) continue;
    events.push({ type: "DELETED", object: obj });
    known.delete(key);
  }
  return events;
}

/** Runs a read-modify-write `update` again while it throws Conflict, up to
 * `attempts` times; `update` must read the object afresh each time. */
export async function retryOnConflict<T>(update: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await update();
    } catch (error) {
      if (!(error instanceof Conflict) || attempt >= attempts) throw error;
      await sleep(10 * 2 ** attempt);
    }
  }
}
