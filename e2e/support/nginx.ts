import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Debian's nginx as the TLS front of several `npx tab relay` instances, as docs/relay.md's
 * recipe has it, for a test: on 127.0.0.1 on a free unprivileged port, from a temporary prefix
 * of its own (config, pid, logs, temp paths), in the foreground, stopped by `close()`.
 */

export const nginxBinary: string | undefined = ["/usr/sbin/nginx", "/usr/bin/nginx"].find((path) => spawnSync(path, ["-v"]).status === 0);

export interface NginxFront {
  port: number;
  /** What nginx wrote to its error log so far. */
  errors(): string;
  close(): Promise<void>;
}

/** The configuration of docs/relay.md, with this run's ports, certificate and prefix. */
export function nginxConfig(dir: string, listen: number, serverName: string, relayPorts: readonly number[]): string {
  return `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 256; }
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  upstream tab_relay {
${relayPorts.map((p) => `    server 127.0.0.1:${p};`).join("\n")}
  }
  map $http_upgrade $connection_upgrade { default upgrade; "" close; }
  server {
    listen 127.0.0.1:${listen} ssl;
    server_name ${serverName};
    ssl_certificate ${dir}/relay.pem;
    ssl_certificate_key ${dir}/relay.key;
    location /wisp/ {
      proxy_pass http://tab_relay/;
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_read_timeout 180s;
      proxy_send_timeout 180s;
    }
  }
}
`;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

export async function startNginxFront(options: {
  serverName: string;
  certPem: string;
  keyPem: string;
  relayPorts: readonly number[];
}): Promise<NginxFront> {
  if (nginxBinary === undefined) throw new Error("nginx is not installed (apt-get install nginx)");
  const dir = mkdtempSync(join(tmpdir(), "tab-nginx-"));
  mkdirSync(join(dir, "tmp"));
  writeFileSync(join(dir, "relay.pem"), options.certPem);
  writeFileSync(join(dir, "relay.key"), options.keyPem);
  const port = await freePort();
  writeFileSync(join(dir, "nginx.conf"), nginxConfig(dir, port, options.serverName, options.relayPorts));
  const errors = () => {
    try {
      return readFileSync(join(dir, "error.log"), "utf8");
    } catch {
      return "";
    }
  };
  const child: ChildProcess = spawn(nginxBinary, ["-p", dir, "-e", join(dir, "error.log"), "-c", join(dir, "nginx.conf")], {
    stdio: "ignore",
  });
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM"); // fast shutdown: open WebSockets are cut
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // Listening once it accepts a connection (at most 100 tries, 50 ms apart).
  for (let tries = 0; !(await accepts(port)); tries++) {
    if (tries > 100 || child.exitCode !== null) {
      const log = errors();
      await close();
      throw new Error(`nginx did not start: ${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { port, errors, close };
}
