// The client over gRPC-Web (@connectrpc/connect-web's transport, on Node's
// fetch: HTTP/1.1, as a browser sends it) against the real binary: unary
// calls, an error with its reason decoded from the trailers, and a watch
// stream delivering each change as it happens, then ended by its signal.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { createGrpcWebTransport } from "@connectrpc/connect-web";

import { Client, type KubeObject, NotFound } from "../index.js";
import { Server } from "./server.js";

const widgets = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "gadgets.example.com" },
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: { plural: "gadgets", kind: "Gadget" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      },
    ],
  },
};

const gadget = (name: string, size: number): KubeObject => ({
  apiVersion: "example.com/v1",
  kind: "Gadget",
  metadata: { name },
  spec: { size },
});

describe("the client over gRPC-Web", () => {
  const server = new Server();
  let client: Client;
  before(async () => {
    await server.start();
    client = new Client(createGrpcWebTransport({ baseUrl: server.url }));
  });
  after(() => server.dispose());

  test("unary calls and a typed error", async () => {
    const created = await client.definitions.create(widgets);
    assert.equal(created.metadata.name, "gadgets.example.com");
    await client.definitions.waitEstablished("gadgets.example.com");
    const gadgets = client.resources("example.com", "v1", "gadgets", "default");
    const g = await gadgets.create(gadget("g", 1));
    const got = await gadgets.get("g");
    assert.equal(got.metadata.uid, g.metadata.uid);
    const updated = await gadgets.update({ ...got, spec: { size: 2 } });
    assert.deepEqual(updated.spec, { size: 2 });
    const page = await gadgets.list();
    assert.deepEqual(page.items.map((o) => o.metadata.name), ["g"]);
    await assert.rejects(gadgets.get("none"), (err: unknown) => err instanceof NotFound);
  });

  test("a watch streams each change as it happens", async () => {
    const gadgets = client.resources("example.com", "v1", "gadgets", "watched");
    const start = await gadgets.list();
    const abort = new AbortController();
    const events = gadgets.watch({ resourceVersion: start.resourceVersion, signal: abort.signal });
    const next = async () => {
      const { value, done } = await events.next();
      assert.ok(!done && value);
      return [value.type, value.object.metadata.name, value.object.spec.size];
    };
    // Each event arrives before the next write: the stream is not buffered.
    const first = next();
    await gadgets.create(gadget("a", 1));
    assert.deepEqual(await first, ["ADDED", "a", 1]);
    const second = next();
    await gadgets.patch("a", { spec: { size: 5 } });
    assert.deepEqual(await second, ["MODIFIED", "a", 5]);
    const third = next();
    await gadgets.delete("a");
    assert.deepEqual(await third, ["DELETED", "a", 5]);
    abort.abort();
    const { done } = await events.next();
    assert.ok(done, "the signal ends the watch");
  });
});
