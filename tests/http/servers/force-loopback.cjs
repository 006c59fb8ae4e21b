// Preloaded into Node servers under test (NODE_OPTIONS=--require this file): every listen() on a TCP port
// binds 127.0.0.1 only, whatever host the server asked for (server-everything listens on all interfaces and
// has no option to change it). With FORCE_LOOPBACK_PORT_FILE set, the bound port is written to that file
// once the server listens, so a server started with PORT=0 tells which ephemeral port it got.
"use strict";
const fs = require("fs");
const net = require("net");

const LOOPBACK = "127.0.0.1";
const originalListen = net.Server.prototype.listen;

function isPort(value) {
  return typeof value === "number" || (typeof value === "string" && /^\d+$/.test(value));
}

net.Server.prototype.listen = function listen(...args) {
  const callback = typeof args[args.length - 1] === "function" ? args[args.length - 1] : undefined;
  let options = null;
  if (args.length === 0 || args[0] === undefined || args[0] === null || isPort(args[0])) {
    // listen([port][, host][, backlog][, callback]): keep the port and the backlog, replace the host
    options = { port: args[0] === undefined || args[0] === null ? 0 : Number(args[0]), host: LOOPBACK };
    if (typeof args[2] === "number") options.backlog = args[2];
  } else if (typeof args[0] === "object" && !(args[0] instanceof net.Server) && args[0].path === undefined
             && args[0].fd === undefined && args[0]._handle === undefined && args[0].handle === undefined) {
    options = { ...args[0], host: LOOPBACK };
  }
  if (options === null) {
    return originalListen.apply(this, args);  // a Unix socket or an inherited handle: no TCP host to force
  }
  const portFile = process.env.FORCE_LOOPBACK_PORT_FILE;
  if (portFile) {
    this.once("listening", () => {
      const address = this.address();
      fs.writeFileSync(portFile + ".tmp", String(address.port));
      fs.renameSync(portFile + ".tmp", portFile);
    });
  }
  return callback ? originalListen.call(this, options, callback) : originalListen.call(this, options);
};
