// The TypeScript client against a real crdstore: definitions, every verb,
// typed errors, pagination, watch with resume across a restart, and the
// README example.

import assert from "node:assert/strict";
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";

import {
  AlreadyExists,
  ApplyConflict,
  BadRequest,
  Client,
  Conflict,
  Expired,
  Invalid,
  NotFound,
  type KubeObject,
  retryOnConflict,
} from "../index.js";
import { Server, shortHistory } from "./server.js";

const widgetsDefinition = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.com" },
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: { type: "object", properties: { size: { type: "integer", maximum: 10 }, color: { type: "string" } } },
            },
          },
        },
      },
    ],
  },
};

const widget = (name: string, size = 1, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: { name, labels },
  spec: { size },
});

describe("crdstore client", () => {
  const server = new Server();
  const warnings: string[] = [];
  let client: Client;

  before(async () => {
    await server.start();
    client = new Client(server.url, { onWarning: (w) => warnings.push(w) });
    await client.definitions.create(widgetsDefinition);
    await client.definitions.waitEstablished("widgets.example.com");
  });
  after(() => server.dispose());

  test("definitions and typed errors", async () => {
    await assert.rejects(client.definitions.create(widgetsDefinition), AlreadyExists);
    await assert.rejects(client.definitions.get("gadgets.example.com"), NotFound);
    const bad = { ...widgetsDefinition, metadata: { name: "wrong.example.com" } };
    await assert.rejects(client.definitions.create(bad), (e: unknown) => {
      assert.ok(e instanceof Invalid);
      assert.ok(e.causes.some((c) => c.field === "metadata.name"), JSON.stringify(e.causes));
      return true;
    });
  });

  test("listFeatureGates", async () => {
    const gated = structuredClone(widgetsDefinition) as KubeObject;
    gated.metadata = { name: "gizmos.example.com" };
    gated.spec.names = { plural: "gizmos", singular: "gizmo", kind: "Gizmo", listKind: "GizmoList" };
    gated.spec.customFeatureGates = {
      component: "istio",
      featureGates: [{ name: "SizeGate", preRelease: "alpha", fieldPaths: [".spec.size"] }],
    };
    await client.definitions.create(gated);
    const gates = await client.definitions.listFeatureGates({ component: "istio" });
    assert.deepEqual(gates, [
      {
        definition: "gizmos.example.com",
        component: "istio",
        name: "SizeGate",
        stage: "alpha",
        default: false,
        enabled: undefined,
        effective: false,
        paths: [".spec.size"],
      },
    ]);
    assert.deepEqual(await client.definitions.listFeatureGates({ definition: "nothing.example.com" }), []);
  });

  test("create, get, update, patch, delete", async () => {
    const widgets = client.resources("example.com", "v1", "widgets", "crud");
    const created = await widgets.create(widget("w1", 3, { app: "web" }));
    assert.ok(created.metadata.uid && created.metadata.resourceVersion);
    assert.deepEqual((await widgets.get("w1")).spec, { size: 3 });

    await assert.rejects(widgets.create(widget("w2", 50)), (e: unknown) => {
      assert.ok(e instanceof Invalid);
      assert.deepEqual(e.causes.map((c) => c.field), ["spec.size"]);
      assert.match(e.causes[0].message, /should be less than or equal to 10/);
      return true;
    });

    assert.equal((await widgets.update({ ...created, spec: { size: 4 } })).spec.size, 4);
    await assert.rejects(widgets.update({ ...created, spec: { size: 5 } }), Conflict);

    assert.deepEqual((await widgets.patch("w1", { spec: { color: "red" } })).spec, { size: 4, color: "red" });
    const ops = [{ op: "replace", path: "/spec/size", value: 6 }];
    assert.equal((await widgets.patch("w1", ops, { type: "json" })).spec.size, 6);

    warnings.length = 0;
    await widgets.patch("w1", { spec: { extra: 1 } });
    assert.deepEqual(warnings, ['unknown field "spec.extra"']);

    assert.equal((await widgets.delete("w1")).deleted, true);
    await assert.rejects(widgets.get("w1"), NotFound);
  });

  test("apply by two managers: the typed conflict, then force", async () => {
    const widgets = client.resources("example.com", "v1", "widgets", "apply");
    const first = await widgets.apply(widget("a1", 2), { fieldManager: "m1" });
    assert.equal(first.created, true);
    assert.deepEqual(first.object.spec, { size: 2 });
    assert.equal((await widgets.apply(widget("a1", 2), { fieldManager: "m1" })).created, false);

    await assert.rejects(widgets.apply(widget("a1", 5), { fieldManager: "m2" }), (e: unknown) => {
      assert.ok(e instanceof ApplyConflict, String(e));
      assert.ok(e instanceof Conflict, "an apply conflict is a Conflict too");
      assert.deepEqual(e.conflicts, [{ field: ".spec.size", manager: "m1", message: 'conflict with "m1"' }]);
      return true;
    });
    assert.equal((await widgets.get("a1")).spec.size, 2);

    const dry = await widgets.apply(widget("a1", 5), { fieldManager: "m2", force: true, dryRun: true });
    assert.equal(dry.object.spec.size, 5);
    assert.equal((await widgets.get("a1")).spec.size, 2);
    const forced = await widgets.apply(widget("a1", 5), { fieldManager: "m2", force: true });
    assert.equal(forced.created, false);
    assert.equal((await widgets.get("a1")).spec.size, 5);

    await assert.rejects(widgets.apply(widget("a1", 5), { fieldManager: "" }), (e: unknown) => {
      assert.ok(e instanceof Invalid);
      assert.deepEqual(e.causes.map((c) => c.field), ["fieldManager"]);
      return true;
    });
    const stale = { ...forced.object, metadata: { ...forced.object.metadata, resourceVersion: "1" } };
    await assert.rejects(widgets.update(stale), (e: unknown) => e instanceof Conflict && !(e instanceof ApplyConflict));
  });

  test("delete takes the propagation policy", async () => {
    const widgets = client.resources("example.com", "v1", "widgets", "gc");
    const owned = (name: string, owner: KubeObject) => {
      const obj = widget(name, 1) as KubeObject;
      obj.metadata.ownerReferences = [
        { apiVersion: "example.com/v1", kind: "Widget", name: owner.metadata.name, uid: owner.metadata.uid, blockOwnerDeletion: true },
      ];
      return obj;
    };
    const gone = async (name: string) => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        try {
          await widgets.get(name);
        } catch (e) {
          if (e instanceof NotFound) return;
          throw e;
        }
        assert.ok(Date.now() < deadline, `${name} was never deleted`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await widgets.create(owned("orphan", await widgets.create(widget("orphaner", 1))));
    let answer = await widgets.delete("orphaner", { propagationPolicy: "Orphan" });
    assert.equal(answer.deleted, false);
    assert.deepEqual(answer.object.metadata.finalizers, ["orphan"]);
    await gone("orphaner");
    assert.equal((await widgets.get("orphan")).metadata.ownerReferences, undefined);

    await widgets.create(owned("child", await widgets.create(widget("parent", 1))));
    answer = await widgets.delete("parent", { propagationPolicy: "Foreground" });
    assert.deepEqual(answer.object.metadata.finalizers, ["foregroundDeletion"]);
    await gone("parent");
    await gone("child");
  });

  test("convert between versions", async () => {
    const gadgets = structuredClone(widgetsDefinition) as KubeObject;
    gadgets.metadata = { name: "gadgets.example.com" };
    gadgets.spec.names = { plural: "gadgets", singular: "gadget", kind: "Gadget", listKind: "GadgetList" };
    gadgets.spec.versions = [gadgets.spec.versions[0], { ...gadgets.spec.versions[0], name: "v2", storage: false }];
    gadgets.spec.conversion = { strategy: "None" };
    await client.definitions.create(gadgets);
    await client.definitions.waitEstablished("gadgets.example.com");
    const at = (version: string, name: string): KubeObject => ({
      apiVersion: `example.com/${version}`,
      kind: "Gadget",
      metadata: { name },
      spec: { size: 1 },
    });
    const out = await client.resources("example.com", "v2", "gadgets").convert([at("v1", "a"), at("v2", "b")]);
    assert.deepEqual(out.map((o) => [o.apiVersion, o.metadata.name]), [["example.com/v2", "a"], ["example.com/v2", "b"]]);
    await assert.rejects(client.resources("example.com", "v1", "gadgets").convert([at("v1", "a"), at("v9", "b")]), (e: unknown) => {
      assert.ok(e instanceof BadRequest);
      assert.match(e.message, /^objects\[1\]: /);
      return true;
    });
  });

  test("list with a selector, in pages", async () => {
    const widgets = client.resources("example.com", "v1", "widgets", "lists");
    for (let i = 0; i < 7; i++) await widgets.create(widget(`w${i}`, 1, { tier: i % 2 ? "a" : "b" }));
    const first = await widgets.list({ labelSelector: "tier=a", limit: 2 });
    assert.deepEqual(first.items.map((o) => o.metadata.name), ["w1", "w3"]);
    assert.ok(first.continue);
    const rest = await widgets.list({ labelSelector: "tier=a", limit: 2, continue: first.continue });
    assert.deepEqual(rest.items.map((o) => o.metadata.name), ["w5"]);
    assert.equal(rest.continue, "");
    await assert.rejects(widgets.list({ labelSelector: "tier in (" }), BadRequest);
  });

  test("retryOnConflict reads again and retries", async () => {
    const widgets = client.resources("example.com", "v1", "widgets", "retry");
    await widgets.create(widget("counter", 1));
    let attempts = 0;
    const result = await retryOnConflict(async () => {
      const current = await widgets.get("counter");
      // Someone else writes between our first read and our write.
      if (attempts++ === 0) await widgets.patch("counter", { spec: { color: "blue" } });
      return widgets.update({ ...current, spec: { ...current.spec, size: current.spec.size + 1 } });
    });
    assert.deepEqual(result.spec, { size: 2, color: "blue" });
    assert.equal(attempts, 2);
  });

  test("watch sees changes and resumes after a restart", async () => {
    const widgets = client.resources("example.com", "v1", "widgets", "watch");
    const before = await widgets.create(widget("before"));
    const abort = new AbortController();
    const events = widgets.watch({ resourceVersion: before.metadata.resourceVersion, signal: abort.signal });
    const next = async () => {
      const { value, done } = await events.next();
      assert.ok(!done && value);
      return [value.type, value.object.metadata.name, value.object.spec.size];
    };
    const first = next();
    await widgets.create(widget("w1"));
    assert.deepEqual(await first, ["ADDED", "w1", 1]);
    await widgets.patch("w1", { spec: { size: 2 } });
    assert.deepEqual(await next(), ["MODIFIED", "w1", 2]);

    await server.restart();
    await widgets.create(widget("w2"));
    await widgets.delete("w1");
    // Resumed from the last revision seen: nothing replayed, nothing lost.
    assert.deepEqual(await next(), ["ADDED", "w2", 1]);
    assert.deepEqual(await next(), ["DELETED", "w1", 2]);
    abort.abort();
  });
});

describe("a watch whose revision has expired", () => {
  const server = new Server(shortHistory);
  before(() => server.start());
  after(() => server.dispose());

  test("lists again and watches on", async () => {
    const client = new Client(server.url);
    await client.definitions.create(widgetsDefinition);
    await client.definitions.waitEstablished("widgets.example.com");
    const widgets = client.resources("example.com", "v1", "widgets", "default");
    const first = await widgets.create(widget("w0"));
    for (let i = 1; i < 4; i++) await widgets.create(widget(`w${i}`));
    // The first create's revision leaves the history at the next compaction.
    const rv = first.metadata.resourceVersion;
    for (const deadline = Date.now() + 20_000; ; ) {
      try {
        await widgets.list({ resourceVersion: rv, resourceVersionMatch: "Exact" });
      } catch (e) {
        if (e instanceof Expired) break;
        throw e;
      }
      assert.ok(Date.now() < deadline, "the history was never compacted");
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const abort = new AbortController();
    const events = widgets.watch({ resourceVersion: rv, signal: abort.signal });
    const next = async () => {
      const { value } = await events.next();
      return [value?.type, value?.object.metadata.name];
    };
    for (let i = 0; i < 4; i++) assert.deepEqual(await next(), ["ADDED", `w${i}`]);
    const after = next();
    await widgets.create(widget("w4"));
    assert.deepEqual(await after, ["ADDED", "w4"]);
    abort.abort();
  });
});

describe("a watch that expires while objects are deleted", () => {
  const server = new Server(shortHistory);
  before(() => server.start());
  after(() => server.dispose());

  test("relists, then reports each deletion it missed", async () => {
    const client = new Client(server.url);
    await client.definitions.create(widgetsDefinition);
    await client.definitions.waitEstablished("widgets.example.com");
    const widgets = client.resources("example.com", "v1", "widgets", "informer");
    for (const n of ["keep", "change", "gone1", "gone2"]) await widgets.create(widget(n));
    const abort = new AbortController();
    // From no revision: the current objects as ADDED, then every change.
    const events = widgets.watch({ signal: abort.signal });
    const next = async () => {
      const { value } = await events.next();
      return [value?.type, value?.object.metadata.name];
    };
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push(await next());
    assert.deepEqual(seen.map(([, n]) => n).sort(), ["change", "gone1", "gone2", "keep"]);

    // The watch is away (the server restarts) while two objects are deleted,
    // one changes and one is created, and its revision leaves the history.
    await server.stop();
    await server.start();
    const changed = await widgets.patch("change", { spec: { size: 2 } });
    await widgets.delete("gone1");
    await widgets.delete("gone2");
    await widgets.create(widget("new"));
    for (const deadline = Date.now() + 20_000; ; ) {
      try {
        await widgets.list({ resourceVersion: changed.metadata.resourceVersion, resourceVersionMatch: "Exact" });
      } catch (e) {
        if (e instanceof Expired) break;
        throw e;
      }
      assert.ok(Date.now() < deadline, "the history was never compacted");
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    // Replace: the list's changes, then the deletions with their last state.
    const relisted = [];
    for (let i = 0; i < 4; i++) relisted.push(await next());
    assert.deepEqual(relisted.slice(0, 2).sort(), [["ADDED", "new"], ["MODIFIED", "change"]]);
    assert.deepEqual(relisted.slice(2).sort(), [["DELETED", "gone1"], ["DELETED", "gone2"]]);
    // And it watches on from the list's revision.
    const later = next();
    await widgets.delete("keep");
    assert.deepEqual(await later, ["DELETED", "keep"]);
    assert.equal((await widgets.list()).items.length, 2);
    abort.abort();
  });

  test("reports deletions of the objects it was given", async () => {
    const client = new Client(server.url);
    const widgets = client.resources("example.com", "v1", "widgets", "given");
    for (const n of ["a", "b"]) await widgets.create(widget(n));
    const listed = await widgets.list();
    await widgets.delete("a");
    await widgets.create(widget("c"));
    await widgets.create(widget("d"));
    for (const deadline = Date.now() + 20_000; ; ) {
      try {
        await widgets.list({ resourceVersion: listed.resourceVersion, resourceVersionMatch: "Exact" });
      } catch (e) {
        if (e instanceof Expired) break;
        throw e;
      }
      assert.ok(Date.now() < deadline, "the history was never compacted");
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const abort = new AbortController();
    const events = widgets.watch({ resourceVersion: listed.resourceVersion, objects: listed.items, signal: abort.signal });
    const got = [];
    for (let i = 0; i < 3; i++) {
      const { value } = await events.next();
      got.push([value?.type, value?.object.metadata.name]);
    }
    assert.deepEqual(got, [["ADDED", "c"], ["ADDED", "d"], ["DELETED", "a"]]);
    abort.abort();
  });
});

describe("storage-version migrations", () => {
  const server = new Server();
  before(() => server.start());
  after(() => server.dispose());

  test("a migration brings every object to the new storage version", async () => {
    const client = new Client(server.url);
    await client.definitions.create(widgetsDefinition);
    await client.definitions.waitEstablished("widgets.example.com");
    const widgets = client.resources("example.com", "v1", "widgets", "default");
    for (let i = 0; i < 20; i++) await widgets.create(widget(`w${i}`, i % 10));
    const definition = await client.definitions.get("widgets.example.com");
    const v1 = definition.spec.versions[0];
    definition.spec.versions = [{ ...v1, storage: false }, { ...v1, name: "v2", storage: true }];
    assert.deepEqual((await client.definitions.update(definition)).status.storedVersions, ["v1", "v2"]);

    const seen: string[] = [];
    const done = await client.migrations.run("widgets.example.com", { name: "to-v2", progress: (m) => seen.push(m.phase) });
    assert.deepEqual([done.phase, done.targetVersion, done.migrated], ["Succeeded", "v2", 20n]);
    assert.equal(seen.at(-1), "Succeeded");
    assert.equal(done.object.kind, "StorageVersionMigration");
    assert.deepEqual((await client.migrations.list()).map((m) => m.name), ["to-v2"]);
    assert.deepEqual((await client.definitions.get("widgets.example.com")).status.storedVersions, ["v2"]);
    assert.equal((await widgets.get("w3")).spec.size, 3);
    await assert.rejects(client.migrations.start("widgets.example.com", "to-v2"), AlreadyExists);
    await assert.rejects(client.migrations.get("nope"), NotFound);
  });
});

describe("the README", () => {
  const server = new Server();
  before(() => server.start());
  after(() => server.dispose());

  test("the README example runs", async () => {
    const readme = readFileSync(resolve(import.meta.dirname, "../../../../README.md"), "utf8");
    const example = /```typescript\n([\s\S]*?)```/.exec(readme);
    assert.ok(example, "README.md has a TypeScript example");
    const index = pathToFileURL(resolve(import.meta.dirname, "../index.js")).href;
    const code = example[1]
      .replace('"@crdstore/client"', JSON.stringify(index))
      .replace('"http://localhost:50051"', JSON.stringify(server.url));
    const dir = mkdtempSync(join(tmpdir(), "crdstore-readme-"));
    try {
      const file = join(dir, "example.mjs");
      writeFileSync(file, code);
      const { widget: result } = await import(pathToFileURL(file).href);
      assert.equal(result.spec.size, 4);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
