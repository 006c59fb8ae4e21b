// node --import ./loopback.mjs: every server the conformance suite starts listens on 127.0.0.1 only (the suite
// calls listen(0), which binds every interface). Any suite version, node 20 or 22. See ../conformance_client.py.
import dns from 'node:dns';
import net from 'node:net';

const HOST = '127.0.0.1';

// The suite reads server.address() right after listen(0). Given a host, listen looks it up first, which is
// asynchronous even for an IP literal; answering that one lookup at once keeps the bind synchronous.
const lookup = dns.lookup;
dns.lookup = function (hostname, options, callback) {
  const done = typeof options === 'function' ? options : callback;
  if (hostname === HOST && typeof done === 'function') {
    // node 22 asks for every address ({all: true}), node 20 for one
    if (typeof options === 'object' && options !== null && options.all) done(null, [{ address: HOST, family: 4 }]);
    else done(null, HOST, 4);
    return {};
  }
  return lookup.call(this, hostname, options, callback);
};

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const [first] = args;
  if (first === undefined || typeof first === 'function') {
    args.unshift(0, HOST);
  } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    if (typeof args[1] !== 'string') args.splice(1, 0, HOST);
  } else if (first && typeof first === 'object' && first.path === undefined && first.host === undefined &&
             first.fd === undefined && first.handle === undefined && first._handle === undefined) {
    args[0] = { ...first, host: HOST };
  }
  return listen.apply(this, args);
};
