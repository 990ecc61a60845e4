// The TypeScript client's connection options against a real crdstore: TLS
// (through a TLS-terminating proxy with a certificate made for the test),
// interceptors, a transport of the caller's own, and errors decoded with the
// generated google.rpc types.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { type AddressInfo, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer as createTlsServer } from "node:tls";
import { after, before, describe, test } from "node:test";

import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { Code, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";

import { Client, Invalid, type KubeObject, NotFound } from "../index.js";
import { BadRequestSchema, ErrorInfoSchema } from "../googleapis/google/rpc/error_details_pb.js";
import { Server } from "./server.js";

const definition = (plural: string, kind: string): KubeObject => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `${plural}.example.com` },
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: { plural, kind },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: { size: { type: "integer", maximum: 10 } } } } } },
      },
    ],
  },
});

describe("connection options", () => {
  const server = new Server();
  const dir = mkdtempSync(join(tmpdir(), "crdstore-tls-"));
  let proxyUrl = "";
  let ca = "";
  const proxy = createTlsServer({ ALPNProtocols: ["h2"] });

  before(async () => {
    await server.start();
    // A certificate for 127.0.0.1, and a proxy that ends TLS (ALPN h2) in
    // front of the plaintext server.
    execFileSync("openssl", [
      "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=crdstore-test",
      "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
      "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"),
    ], { stdio: "ignore" });
    ca = readFileSync(join(dir, "cert.pem"), "utf8");
    proxy.setSecureContext({ key: readFileSync(join(dir, "key.pem")), cert: ca });
    proxy.on("secureConnection", (tls) => {
      const [host, port] = server.grpc.split(":");
      const plain = connect(Number(port), host);
      tls.pipe(plain).pipe(tls);
      tls.on("error", () => plain.destroy());
      plain.on("error", () => tls.destroy());
    });
    await new Promise<void>((done) => proxy.listen(0, "127.0.0.1", done));
    proxyUrl = `https://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  after(async () => {
    proxy.close();
    await server.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  test("TLS with the server's certificate authority", async () => {
    const client = new Client(proxyUrl, { tls: { ca } });
    await client.definitions.create(definition("tlswidgets", "TlsWidget"));
    await client.definitions.waitEstablished("tlswidgets.example.com");
    const widgets = client.resources("example.com", "v1", "tlswidgets", "default");
    await widgets.create({ apiVersion: "example.com/v1", kind: "TlsWidget", metadata: { name: "w" }, spec: { size: 1 } });
    assert.equal((await widgets.get("w")).spec.size, 1);

    // Without the authority the server's certificate does not verify.
    const untrusted = new Client(proxyUrl, { timeoutMs: 5_000 });
    await assert.rejects(untrusted.definitions.get("tlswidgets.example.com"), (e: unknown) => {
      assert.ok(e instanceof Error);
      assert.match(String(e.message) + String(e.cause ?? ""), /certificate|self.signed|unavailable/i);
      return true;
    });
    assert.throws(() => new Client(`http://${server.grpc}`, { tls: { ca } }), TypeError);
    // The TLS client still works.
    assert.equal((await client.definitions.get("tlswidgets.example.com")).metadata.name, "tlswidgets.example.com");
  });

  test("interceptors see and change every call, streams included", async () => {
    const seen: string[] = [];
    const auth: Interceptor = (next) => async (req) => {
      req.header.set("authorization", "Bearer test-token");
      seen.push(`${req.method.name} ${req.header.get("authorization")}`);
      return next(req);
    };
    const client = new Client(`http://${server.grpc}`, { interceptors: [auth] });
    await client.definitions.create(definition("authwidgets", "AuthWidget"));
    await client.definitions.waitEstablished("authwidgets.example.com");
    const widgets = client.resources("example.com", "v1", "authwidgets", "default");
    const abort = new AbortController();
    const events = widgets.watch({ signal: abort.signal });
    const first = events.next();
    await widgets.create({ apiVersion: "example.com/v1", kind: "AuthWidget", metadata: { name: "w" } });
    assert.equal((await first).value?.object.metadata.name, "w");
    abort.abort();
    for (const method of ["Create", "Get", "Watch"]) {
      assert.ok(seen.includes(`${method} Bearer test-token`), `${method} in ${JSON.stringify(seen)}`);
    }
  });

  test("a transport of the caller's own", async () => {
    const calls: string[] = [];
    const transport = createGrpcTransport({
      baseUrl: `http://${server.grpc}`,
      interceptors: [(next) => (req) => (calls.push(req.method.name), next(req))],
    });
    const client = new Client(transport);
    await assert.rejects(client.definitions.get("nothing.example.com"), NotFound);
    assert.ok((await client.definitions.list()).items.length >= 1);
    assert.deepEqual(calls, ["Get", "List"]);
  });

  test("errors carry the google.rpc.Status, details decoded with the generated types", async () => {
    const client = new Client(`http://${server.grpc}`);
    const bad = { ...definition("badwidgets", "BadWidget"), metadata: { name: "wrong.example.com" } };
    const error = await client.definitions.create(bad).catch((e: unknown) => e);
    assert.ok(error instanceof Invalid);
    assert.equal(error.status.code, Code.InvalidArgument);
    assert.equal(error.status.message, error.message);
    const info = error.status.details.map((d) => anyUnpack(d, ErrorInfoSchema)).find((m) => m);
    assert.equal(info?.reason, "Invalid");
    assert.equal(error.metadata.reason, "Invalid");
    const badRequest = error.status.details.map((d) => anyUnpack(d, BadRequestSchema)).find((m) => m);
    assert.ok(badRequest?.fieldViolations.some((v) => v.field === "metadata.name"));
    assert.deepEqual(
      error.causes,
      badRequest?.fieldViolations.map((v) => ({ field: v.field, message: v.description })),
    );
    // The server still serves.
    assert.ok(Array.isArray((await client.definitions.list()).items));
  });
});
