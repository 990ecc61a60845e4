// A TypeScript client for crdstore's gRPC services, objects in and out as
// plain JSON values.
//
// `new Client("http://localhost:50051")` holds one HTTP/2 connection;
// `client.definitions` manages definitions and
// `client.resources(group, version, plural, namespace)` one resource type.
// Failures throw the classes of errors.ts; warnings the server returns
// go to the `onWarning` option (console.warn by default).

import { create } from "@bufbuild/protobuf";
import { type CallOptions, type Client as RpcClient, createClient } from "@connectrpc/connect";
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
import { CustomResources, PatchType, Subresource } from "./gen/crdstore/v1/resources_pb.js";

/** A Kubernetes object as JSON: apiVersion, kind, metadata, spec... */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type KubeObject = Record<string, any>;

export interface ClientOptions {
  /** Called with each warning the server returns with a successful write. */
  onWarning?: (warning: string) => void;
  /** Milliseconds each call may take. Default 30,000. */
  timeoutMs?: number;
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

/** A connection to one crdstore server. */
export class Client {
  readonly definitions: Definitions;
  /** @internal */
  readonly rpcDefinitions: RpcClient<typeof CustomResourceDefinitions>;
  /** @internal */
  readonly rpcResources: RpcClient<typeof CustomResources>;
  private readonly onWarning: (warning: string) => void;
  private readonly timeoutMs: number;

  /** `baseUrl` is the server's gRPC address, e.g. "http://localhost:50051". */
  constructor(baseUrl: string, options: ClientOptions = {}) {
    const transport = createGrpcTransport({ baseUrl });
    this.rpcDefinitions = createClient(CustomResourceDefinitions, transport);
    this.rpcResources = createClient(CustomResources, transport);
    this.onWarning = options.onWarning ?? ((w) => console.warn(`crdstore warning: ${w}`));
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.definitions = new Definitions(this);
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
   * history (Expired), it lists the objects again, yields each as ADDED,
   * and watches on from the list's revision. It ends when `signal` aborts,
   * and throws Unavailable when the server stays away past `retryForMs`.
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
          if (event.type !== "BOOKMARK" || options.bookmarks) yield event;
        }
        // The server's timeout ended the stream cleanly: reopen it.
      } catch (raw) {
        if (options.signal?.aborted) return;
        const error = fromConnectError(raw);
        if (error instanceof Expired) {
          const listed = await this.list({ labelSelector: options.labelSelector, fieldSelector: options.fieldSelector });
          resourceVersion = listed.resourceVersion;
          for (const item of listed.items) yield { type: "ADDED", object: item };
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
