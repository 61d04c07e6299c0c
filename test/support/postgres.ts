// A throw-away PostgreSQL server for tests: initdb + pg_ctl in a temp folder, listening on a free loopback port.
// initdb refuses to run as root, so under root the server's files and process belong to the `postgres` user.
import { execFile } from "node:child_process";
import { access, chown, mkdtemp, readdir, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface TestPostgres {
  /** The server's `postgres` database, as the superuser (no password on loopback). */
  url: string;
  /** A new empty database on the server; answers its URL. */
  database(): Promise<string>;
  stop(): Promise<void>;
}

let databases = 0;

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

/** The folder holding initdb, pg_ctl and postgres: PG_BINDIR, pg_config's answer, Debian's versioned folders, PATH. */
async function findBinaries(): Promise<string> {
  const candidates: string[] = [];
  if (process.env.PG_BINDIR) candidates.push(process.env.PG_BINDIR);
  const fromConfig = await run("pg_config", ["--bindir"]).then(
    (r) => r.stdout.trim(),
    () => "",
  );
  if (fromConfig) candidates.push(fromConfig);
  for (const version of ["17", "16", "15", "14", "13"]) candidates.push(`/usr/lib/postgresql/${version}/bin`);
  candidates.push(...(process.env.PATH ?? "").split(path.delimiter).filter(Boolean));
  for (const dir of candidates) {
    const all = await Promise.all(["initdb", "pg_ctl", "postgres"].map((b) => exists(path.join(dir, b))));
    if (all.every(Boolean)) return dir;
  }
  throw new Error(
    "PostgreSQL server binaries (initdb, pg_ctl, postgres) not found: install Debian's `postgresql` package (or set PG_BINDIR)",
  );
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run("id", ["-u", "postgres"]), run("id", ["-g", "postgres"])]).catch(
    () => {
      throw new Error(
        "running as root, and there is no `postgres` user to run the test PostgreSQL server as",
      );
    },
  );
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/** Servers left running by test processes that were killed before their stop(): stopped, their folders removed. */
async function sweepAbandoned(stop: (data: string) => Promise<unknown>): Promise<void> {
  const names = await readdir(os.tmpdir()).catch(() => [] as string[]);
  for (const name of names) {
    const m = /^studio-pg-(\d+)-/.exec(name);
    if (!m || alive(Number(m[1]))) continue;
    const dir = path.join(os.tmpdir(), name);
    await stop(path.join(dir, "data")).catch(() => {});
    await rm(dir, { recursive: true, force: true });
  }
}

/** Start a server; stop() ends it at once and removes its folder. */
export async function startPostgres(): Promise<TestPostgres> {
  const bin = await findBinaries();
  const root = process.getuid?.() === 0;
  const as = async (file: string, args: string[]) => {
    const exe = path.join(bin, file);
    return root ? run("runuser", ["-u", "postgres", "--", exe, ...args]) : run(exe, args);
  };
  await sweepAbandoned((data) => as("pg_ctl", ["stop", "-D", data, "-m", "immediate", "-w"]));
  // The folder names the test process, so a later start can tell a server whose test was killed.
  const dir = await mkdtemp(path.join(os.tmpdir(), `studio-pg-${process.pid}-`));
  const data = path.join(dir, "data");
  try {
    if (root) {
      const { uid, gid } = await postgresUser();
      await chown(dir, uid, gid);
    }
    await as("initdb", [
      "-D",
      data,
      "-U",
      "postgres",
      "-A",
      "trust",
      "-E",
      "UTF8",
      "--locale=C",
      "--no-sync",
    ]);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  // A port picked free can be taken before the server binds it: try a few.
  let lastError: unknown;
  for (let tries = 0; tries < 5; tries++) {
    const port = await freePort();
    const options = [
      `-h 127.0.0.1 -p ${port} -k ${dir}`,
      // Durability is not what these servers are for.
      "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300",
    ].join(" ");
    try {
      // -w: pg_ctl itself polls until the server accepts connections.
      await as("pg_ctl", [
        "start",
        "-D",
        data,
        "-w",
        "-t",
        "60",
        "-l",
        path.join(dir, "server.log"),
        "-o",
        options,
      ]);
    } catch (err) {
      lastError = err;
      continue;
    }
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    return {
      url,
      async database() {
        const name = `t${process.pid}_${++databases}`;
        const { default: pg } = await import("pg");
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          await client.query(`CREATE DATABASE ${name}`);
        } finally {
          await client.end();
        }
        return `postgres://postgres@127.0.0.1:${port}/${name}`;
      },
      async stop() {
        await as("pg_ctl", ["stop", "-D", data, "-m", "immediate", "-w"]).catch(() => {});
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
  await rm(dir, { recursive: true, force: true });
  throw new Error(
    `the test PostgreSQL server did not start: ${lastError instanceof Error ? lastError.message : String(lastError)}`,
  );
}
