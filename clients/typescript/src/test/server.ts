// A real crdstore for the client tests: the binary cargo built, on free
// loopback ports, with a temporary data directory; restart keeps both.

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";

const root = resolve(import.meta.dirname, "../../../..");

/** Keeps history for one revision and compacts every second, so a watch
 * from an old revision finds it expired. */
export const shortHistory = ["--history-seconds", "0", "--history-revisions", "1", "--compaction-seconds", "1"];

export class Server {
  grpc = "127.0.0.1:0";
  http = "127.0.0.1:0";
  readonly dataDir = mkdtempSync(join(tmpdir(), "crdstore-ts-"));
  private process: ChildProcess | undefined;

  constructor(private readonly flags: string[] = []) {}

  get url(): string {
    return `http://${this.grpc}`;
  }

  async start(): Promise<void> {
    const binary = process.env.CRDSTORE_BIN ?? join(root, "target/debug/crdstore");
    const args = ["serve", "--data-dir", this.dataDir, "--grpc-addr", this.grpc, "--http-addr", this.http, ...this.flags];
    const child = spawn(binary, args, {
      stdio: ["ignore", "pipe", "ignore"],
    });
    this.process = child;
    const exited = new Promise<never>((_, reject) =>
      child.once("exit", (code) => reject(new Error(`crdstore exited before listening (${code})`))),
    );
    const listening = new Promise<void>((done) => {
      createInterface({ input: child.stdout! }).on("line", (line) => {
        if (!line.startsWith("crdstore listening")) return;
        for (const field of line.split(" ").slice(2)) {
          const [key, value] = field.split("=");
          if (key === "grpc") this.grpc = value;
          if (key === "http") this.http = value;
        }
        done();
      });
    });
    await Promise.race([listening, exited]);
    child.removeAllListeners("exit");
  }

  async stop(): Promise<void> {
    const child = this.process;
    this.process = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((done) => child.once("exit", done));
    child.kill("SIGTERM");
    await exited;
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
